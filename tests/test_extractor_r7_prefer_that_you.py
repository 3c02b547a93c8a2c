""" "I prefer that you …" is the owner's communication style (issue 25, round 7).

Mechanism: ``routes.EN_PREFER_THAT_YOU`` reads a first-person preference whose wished act
has the assistant as its subject ("I prefer that you …", "I'd rather you …", "I would prefer
it if you …") as an instruction about how the assistant works with the owner, so the
communication-style router takes the claim whatever the act is; the classifier still
decides whether it lasts. Generated family: random leads, verbs of the assistant's work and
objects from wordfreq's top list (a word that itself carries an attitude, a time or a
negation, as the classifier reads it, is left out). Negative twins: the same wish limited
to this once, asked as a question, or said by someone else commits nothing.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from wordfreq import top_n_list

from memwarden_shared.detect.sensitive import sensitive_categories
from memwarden_shared.text.classifier import Feature, classify
from memwarden_usecases.explain import explain

_WORDS = [
    w
    for w in top_n_list("en", 3000)[300:]
    if w.isalpha()
    and w.isascii()
    and len(w) > 3
    and not w.endswith("ly")  # an adverb ("recently") is no object of the act
    and not sensitive_categories(w)
]
words = st.sampled_from(_WORDS)
LEADS = st.sampled_from(
    [
        "I prefer that you",
        "I'd rather you",
        "I would prefer that you",
        "I'd prefer it if you",
        "I really prefer that you",
        "I'd much rather you",
        "i prefer that you",
    ]
)
VERBS = st.sampled_from(
    ["ask about", "show", "explain", "check", "mention", "include", "list", "point out", "cite"]
)
END = st.sampled_from([".", "!", ""])
KEY = "preference.communication_style"


def _style(text: str) -> list[str]:
    return [c.decision for s in explain(text) for c in s.candidates if c.key == KEY]


def _plain(verb: str, word: str) -> bool:
    """The act says nothing of time, doubt or negation by itself."""
    features = classify(f"I always {verb} the {word}.")
    return not features.not_durable and not features.has(Feature.NEGATED)


@settings(max_examples=80, deadline=None)
@given(LEADS, VERBS, words, END)
def test_prefer_that_you__is_communication_style(lead: str, verb: str, word: str, end: str) -> None:
    assume(_plain(verb, word))
    text = f"{lead} {verb} the {word}{end}"
    assert _style(text) == ["COMMIT"], text


@settings(max_examples=60, deadline=None)
@given(
    LEADS,
    VERBS,
    words,
    st.sampled_from(["{} this time.", "{} just for now.", "Would you say {}?", "My boss says {}."]),
)
def test_prefer_that_you__once_asked_or_reported_is_not_kept(
    lead: str, verb: str, word: str, frame: str
) -> None:
    assume(_plain(verb, word))
    text = frame.format(f"{lead} {verb} the {word}")
    assert "COMMIT" not in _style(text), text
