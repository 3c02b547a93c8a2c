"""A switch names its new value: the negation in "not X anymore — I've switched to Y" is
about the old value (classifier_cues EN/ZH_SWITCH_CLAUSE in the negation exemptions), and
a negated use marks X as the rejected alternative (routes EN/ZH_REJECTED_BEFORE).

A habit that ended ("I used to use X", "我以前用 X") is the same old value: alone it
commits nothing (it says nothing of today), before a switch clause it names what was left.

Generated family: two different values of one catalogue key (the tool catalogue and the
package managers of the registry), a negated clause about the old one in several shapes, a
separator, and a switch clause for the new one, en and zh. The new value commits and the
old one never does; without the switch clause, the negated clause alone commits nothing.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from memwarden_shared.text.tool_catalogue import AMBIGUOUS_FORMS, TOOLS
from memwarden_usecases.explain import explain

_GROUPS = [
    [forms[0] for forms in values.values() if forms[0] not in AMBIGUOUS_FORMS]
    for values in TOOLS.values()
] + [["npm", "pnpm", "yarn", "bun"]]
_PAIRS = [(a, b) for group in _GROUPS for a in group for b in group if a != b]

_EN_OLD = [
    "I don't use {old} anymore",
    "Not {old} anymore",
    "No longer {old}",
    "I'm not on {old} any more",
    # a habit that ended (EN_ENDED_HABIT)
    "I used to use {old}",
    "I stopped using {old}",
    "I quit {old}",
]
_EN_SEP = [", ", " — ", "; ", " - ", ": "]
_EN_NEW = [
    "I've switched to {new}",
    "I switched to {new}",
    "I moved to {new}",
    "I use {new} now",
    "now I use {new}",
    "I've fully migrated to {new}",
    "I'm on {new} now",
]
_ZH_OLD = [
    "我不再用 {old} 了",
    "{old} 不用了",
    "不用 {old} 了",
    # a habit that ended (ZH_ENDED_HABIT)
    "我以前用 {old}",
    "我之前一直用 {old}",
    "过去用 {old}",
    "我原来在用 {old}",
]
_ZH_SEP = ["，", "；", "——"]
_ZH_NEW = ["我改用 {new}", "我现在用 {new}", "我已经换成 {new} 了", "我切到 {new} 了"]


def _committed(text: str) -> list[str]:
    return [c.value.lower() for s in explain(text) for c in s.candidates if c.decision == "COMMIT"]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(_PAIRS), st.data())
def test_a_switch_commits_the_new_value_never_the_old(
    pair: tuple[str, str], data: st.DataObject
) -> None:
    old, new = pair
    english = data.draw(st.booleans())
    if english:
        claim = data.draw(st.sampled_from(_EN_NEW)).format(new=new) + "."
        negated = data.draw(st.sampled_from(_EN_OLD)).format(old=old)
        sep = data.draw(st.sampled_from(_EN_SEP))
    else:
        claim = data.draw(st.sampled_from(_ZH_NEW)).format(new=new) + "。"
        negated = data.draw(st.sampled_from(_ZH_OLD)).format(old=old)
        sep = data.draw(st.sampled_from(_ZH_SEP))
    assume(new.lower() in " ".join(_committed(claim)))  # the switch clause alone commits
    values = _committed(negated + sep + claim)
    assert any(new.lower() in v for v in values), (negated + sep + claim, values)
    assert not any(old.lower() == v for v in values), (negated + sep + claim, values)
    # the negated clause alone keeps nothing of the old value
    alone = _committed(negated + ("." if english else "。"))
    assert not any(old.lower() in v for v in alone), (negated, alone)


_ZH_LANGUAGES = ["英文", "中文", "日语", "德语", "法语", "西班牙语", "韩语"]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["以后", "今后", "从现在起"]),
    st.sampled_from(["改成", "换成", "改为", "改"]),
    st.sampled_from(_ZH_LANGUAGES),
    st.sampled_from(["回复我", "回答我", "回答", "和我交流"]),
)
def test_a_standing_change_of_reply_language_commits(
    when: str, change: str, language: str, reply: str
) -> None:
    text = f"{when}{change}用{language}{reply}。"
    found = [(c.key, c.decision) for s in explain(text) for c in s.candidates]
    assert ("preference.language", "COMMIT") in found, (text, found)
