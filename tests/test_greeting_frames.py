"""A greeting before a claim conditions nothing (text.classifier ``_bare_condition``).

Mechanism: a closed frame is read as a bare condition ("When on the train.", "在公司的时候。")
only when it is no greeting; "早上好！" names a time of day but, as a greeting, governs
nothing. Generated family: every greeting of the classifier's cue list that is a whole
phrase, with random closing punctuation, before a claim built from wordfreq's top list;
each claim is shown to commit alone first, so the family can fail.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from wordfreq import top_n_list

from memwarden_usecases.explain import explain

_ZH_GREETINGS = ["你好", "您好", "早上好", "下午好", "晚上好", "早", "嗨", "哈喽"]
_EN_GREETINGS = ["Hi", "Hello", "Hey", "Good morning", "Good evening", "Good afternoon", "Morning"]
# past the function words ("that", "this"): a pointer is no claim of its own
_EN_WORDS = [w for w in top_n_list("en", 800)[150:] if w.isalpha() and w.isascii() and len(w) > 3]
_ZH_WORDS = [w for w in top_n_list("zh", 800) if len(w) >= 2 and w.isalpha() and not w.isascii()]


def _commits(text: str) -> bool:
    return any(c.decision == "COMMIT" for s in explain(text) for c in s.candidates)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_a_greeting_before_a_claim_keeps_it(data: st.DataObject) -> None:
    if data.draw(st.booleans()):
        greeting = data.draw(st.sampled_from(_ZH_GREETINGS)) + data.draw(st.sampled_from("！。～!"))
        claim = f"我一直用{data.draw(st.sampled_from(_ZH_WORDS))}。"
    else:
        greeting = data.draw(st.sampled_from(_EN_GREETINGS)) + data.draw(st.sampled_from("!.~"))
        claim = f"Remember that I always use {data.draw(st.sampled_from(_EN_WORDS))}."
    assume(_commits(claim))
    # Chinese runs on without a space; English puts one
    text = f"{greeting}{claim}" if claim.startswith("我") else f"{greeting} {claim}"
    assert _commits(text), text
