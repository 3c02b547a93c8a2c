"""Team decisions worded without "decide" (issue 25 item 1, mechanism: the group-rule cue,
``classifier_cues.EN_GROUP_RULE``/``ZH_GROUP_RULE``: the owner's own group as subject, a
rule noun as predicate). Generated over rule nouns, group words and random tool tokens in
English and Chinese: the owner's group's rule is a ``decision.note``; another group's, a
hedged one or a question is nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.extract_helpers import proposed

_token = st.text(alphabet="bcdfghjkmnpqrstvwxz", min_size=4, max_size=8)

EN_OURS = [
    "Our official {thing} is {x}.",
    "Our team's standard {thing} is {x}.",
    "Our convention is to run {x} before every merge.",
    "Final call: we go with {x} for the {thing}.",
    "It's official: we use {x} as the {thing}.",
]
ZH_OURS = [
    "团队规定所有服务都用 {x}。",
    "我们的惯例是用 {x} 做{thing}。",
    "我们团队的规范是统一用 {x}。",
]
NOT_OURS = [
    "Their official {thing} is {x}.",
    "The other team's convention is to run {x}.",
    "Our official {thing} might be {x}, not sure.",
    "Is our official {thing} {x}?",
    "他们团队规定都用 {x}。",
    "我们的惯例是用 {x} 吗？",
]
EN_THINGS = ["linter", "formatter", "ticket tracker", "runtime", "test runner"]
ZH_THINGS = ["部署", "代码检查", "发布"]


@settings(max_examples=60, deadline=None)
@given(x=_token, data=st.data())
def test_a_rule_of_the_owners_group_is_a_decision(x: str, data: st.DataObject) -> None:
    zh = data.draw(st.booleans())
    template = data.draw(st.sampled_from(ZH_OURS if zh else EN_OURS))
    thing = data.draw(st.sampled_from(ZH_THINGS if zh else EN_THINGS))
    text = template.format(x=x, thing=thing)
    assert proposed(text) == [("decision.note", text.rstrip("。."))]


@settings(max_examples=60, deadline=None)
@given(x=_token, template=st.sampled_from(NOT_OURS), thing=st.sampled_from(EN_THINGS))
def test_another_groups_hedged_or_asked_rule_is_nothing(x: str, template: str, thing: str) -> None:
    assert proposed(template.format(x=x, thing=thing)) == []


# A decision label heading the sentence, or a tag after it (EN/ZH_DECISION_LABEL, _TAG):
# generated from the label's own words, its nouns, a group suffix, a separator and a body
EN_LABEL_WORDS = ["", "final ", "official ", "team ", "new ", "agreed ", "our team's "]
EN_LABEL_NOUNS = ["decision", "call", "convention", "rule", "policy", "standard", "consensus"]
EN_GROUP_SUFFIX = ["", " from our side", " on our team", " for our project"]
EN_BODIES = [
    "we use {x} for the {thing}",
    "every change goes through {x}",
    "the {thing} is {x}",
    "we're going with {x} for the {thing}",
]
ZH_LABEL_WORDS = ["", "最后", "最终", "正式", "团队", "我们", "组里"]
ZH_LABEL_NOUNS = ["决定", "拍板了", "规定", "约定", "共识", "规范"]
ZH_BODIES = ["新服务统一用 {x}", "{thing}都用 {x}", "所有仓库都走 {x}"]
EN_TAGS = ["that's our convention", "this is our team's rule", "that's our official policy"]
ZH_TAGS = ["这是我们组的规定", "这是我们团队的惯例", "这就是我们的约定"]
FOREIGN_EN = ["their ", "his ", "the other ", "your "]
FOREIGN_ZH = ["他们的", "老板的", "别的组的", "客户的"]


def _label_text(data: st.DataObject, x: str, zh: bool, foreign: bool) -> str:
    thing = data.draw(st.sampled_from(ZH_THINGS if zh else EN_THINGS))
    if zh:
        words = data.draw(st.sampled_from(FOREIGN_ZH if foreign else ZH_LABEL_WORDS))
        noun = data.draw(st.sampled_from(ZH_LABEL_NOUNS))
        body = data.draw(st.sampled_from(ZH_BODIES)).format(x=x, thing=thing)
        return f"{words}{noun}{data.draw(st.sampled_from(['：', ':']))}{body}。"
    words = data.draw(st.sampled_from(FOREIGN_EN if foreign else EN_LABEL_WORDS))
    noun = data.draw(st.sampled_from(EN_LABEL_NOUNS))
    suffix = "" if foreign else data.draw(st.sampled_from(EN_GROUP_SUFFIX))
    sep = data.draw(st.sampled_from([": ", " — ", " - "]))
    body = data.draw(st.sampled_from(EN_BODIES)).format(x=x, thing=thing)
    return f"{(words + noun).capitalize()}{suffix}{sep}{body}."


@settings(max_examples=80, deadline=None)
@given(x=_token, data=st.data())
def test_a_decision_label_heading_the_sentence_files_a_decision(
    x: str, data: st.DataObject
) -> None:
    text = _label_text(data, x, zh=data.draw(st.booleans()), foreign=False)
    assert proposed(text) == [("decision.note", text.rstrip("。."))]


@settings(max_examples=40, deadline=None)
@given(x=_token, data=st.data())
def test_a_decision_tag_after_the_claim_files_a_decision(x: str, data: st.DataObject) -> None:
    zh = data.draw(st.booleans())
    if zh:
        text = f"统一用 {x}，{data.draw(st.sampled_from(ZH_TAGS))}。"
    else:
        text = f"Every service ships with {x}, {data.draw(st.sampled_from(EN_TAGS))}."
    assert proposed(text) == [("decision.note", text.rstrip("。."))]


@settings(max_examples=60, deadline=None)
@given(x=_token, data=st.data())
def test_a_label_naming_someone_elses_decision_files_none_of_ours(
    x: str, data: st.DataObject
) -> None:
    text = _label_text(data, x, zh=data.draw(st.booleans()), foreign=True)
    assert "decision.note" not in [key for key, _ in proposed(text)], text


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["pls remember", "please remember", "remember"]),
    st.sampled_from(["3 things", "two things", "these"]),
    st.sampled_from(["for future chats", "about me", "for later"]),
    st.sampled_from(["Alex", "Tove", "Priya", "Jonas", "Mei"]),
)
def test_a_list_header_with_a_purpose_asks_to_remember_each_item(
    ask: str, count: str, purpose: str, name: str
) -> None:
    # the header may say for whom or when; every item under it is asked to be remembered.
    # The first item right under a header not read as one is left open by its colon, so
    # "my name is …" there is proposed only through the header.
    text = f"{ask} {count} {purpose}:\n1. my name is {name}\n2. I like dark mode"
    assert ("profile.name", name) in proposed(text), text
