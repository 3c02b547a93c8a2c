"""An aside that vouches for the claim or changes the topic is no negation of it
(classifier_cues NEGATION_EXEMPT): "No kidding, …", "not gonna lie, …", "算了不说这个，…",
"不是开玩笑，…". Generated: aside x first-person use of a catalogue tool, en and zh; the
same claims negated stay NEGATED, so the family can fail both ways.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.text.classifier import Feature, classify
from memwarden_shared.text.tool_catalogue import AMBIGUOUS_FORMS, TOOLS

NAMES = sorted(
    {f for forms in TOOLS.values() for fs in forms.values() for f in fs if f.isascii()}
    - set(AMBIGUOUS_FORMS)
)
EN_ASIDES = ["No kidding", "No doubt", "Not gonna lie", "I'm not joking", "No joke"]
ZH_ASIDES = ["算了不说这个", "好了不提了", "不是开玩笑", "说真的", "先不聊这个"]


@given(st.sampled_from(EN_ASIDES), st.sampled_from(NAMES))
def test_an_english_aside_is_no_negation(aside: str, tool: str) -> None:
    assert not classify(f"{aside}, I use {tool} every day.").has(Feature.NEGATED)
    assert classify(f"{aside}, I don't use {tool}.").has(Feature.NEGATED)


@given(st.sampled_from(ZH_ASIDES), st.sampled_from(NAMES))
def test_a_chinese_aside_is_no_negation(aside: str, tool: str) -> None:
    assert not classify(f"{aside}，我一直用 {tool}。").has(Feature.NEGATED)
    assert classify(f"{aside}，我从不用 {tool}。").has(Feature.NEGATED)
