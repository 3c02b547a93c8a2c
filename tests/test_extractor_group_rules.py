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
