"""Living near a place is a location too, and a location always waits for the owner
(routes.EN_LOCATION: near / close to / outside / next to / around, beside in / at / on).

Generated family: a capitalised place name of one or two invented words (random syllables,
so no word of the classifier's cue lists slips in) after each relation; the claim is
proposed as profile.location and never committed alone
(sensitive key). Twin: living near someone or something owned ("near my …") is no place.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from wordfreq import top_n_list

from memwarden_extractor.routes import AMBIGUOUS_TOOL_NAMES
from memwarden_shared.detect.credential_talk import mentions_credential
from memwarden_shared.text.stance import tool_names
from memwarden_usecases.explain import explain

_WORDS = [w for w in top_n_list("en", 3000)[500:] if w.isalpha() and w.isascii() and len(w) > 4]
_RELATIONS = ["near", "close to", "just outside", "next to", "around", "right next to"]


_SYLLABLE = st.builds(
    lambda c, v: c + v, st.sampled_from("bdgklmnprstvz"), st.sampled_from("aeiou")
)
_NAME = st.builds(lambda parts: "".join(parts).title(), st.lists(_SYLLABLE, min_size=2, max_size=4))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_RELATIONS), st.lists(_NAME, min_size=1, max_size=2))
def test_living_near_a_place_is_a_location_for_the_owner(relation: str, words: list[str]) -> None:
    place = " ".join(words)
    # an invented word may still be a tool's name or a credential cue in pinyin ("mima"):
    # those are refused or read as tools, never committed, and are not this family
    assume(not mentions_credential(place))
    assume(not any(w.lower() in tool_names() | AMBIGUOUS_TOOL_NAMES for w in words))
    text = f"I live {relation} {place}."
    found = [(c.key, c.decision) for s in explain(text) for c in s.candidates]
    assert ("profile.location", "NEEDS_CONFIRMATION") in found, (text, found)
    assert all(d != "COMMIT" for _, d in found), (text, found)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(_RELATIONS), st.sampled_from(_WORDS))
def test_living_near_something_owned_is_no_place(relation: str, word: str) -> None:
    text = f"I live {relation} my {word}."
    keys = {c.key for s in explain(text) for c in s.candidates}
    assert "profile.location" not in keys, text
