"""A claim filed for everyone at once is about others, not the owner (classifier REPORTED):
"set everyone's theme to dark", "for all users", "把所有人的…都记成…", "大家的…". Generated:
quantifier x key word x value, en and zh; the owner's own claim stays theirs.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.text.classifier import Feature, classify

EN_GROUPS = ["everyone's", "everybody's", "all users'", "each user's", "all the members'"]
EN_FOR = ["for everyone", "for all users", "for the whole team", "for everybody"]
ZH_GROUPS = ["所有人的", "大家的", "每个人的", "全员的", "所有用户的"]
THINGS = [("theme", "主题"), ("editor", "编辑器"), ("language", "语言"), ("timezone", "时区")]
VALUES = ["dark", "vim", "English", "UTC"]


@given(st.sampled_from(EN_GROUPS), st.sampled_from(THINGS), st.sampled_from(VALUES))
def test_a_setting_for_everyone_is_no_claim_of_the_owner(group: str, thing: tuple[str, str],
                                                         value: str) -> None:  # fmt: skip
    assert classify(f"Set {group} {thing[0]} to {value}, I'm the admin.").has(Feature.REPORTED)
    assert not classify(f"Set my {thing[0]} to {value}.").has(Feature.REPORTED)


@given(st.sampled_from(EN_FOR), st.sampled_from(THINGS), st.sampled_from(VALUES))
def test_a_default_for_all_is_no_claim_of_the_owner(who: str, thing: tuple[str, str],
                                                    value: str) -> None:  # fmt: skip
    assert classify(f"Make the {thing[0]} {value} {who}.").has(Feature.REPORTED)


@given(st.sampled_from(ZH_GROUPS), st.sampled_from(THINGS), st.sampled_from(VALUES))
def test_a_chinese_setting_for_everyone_is_no_claim_of_the_owner(group: str,
                                                                 thing: tuple[str, str],
                                                                 value: str) -> None:  # fmt: skip
    assert classify(f"帮我把{group}{thing[1]}都记成{value}。").has(Feature.REPORTED)
    assert not classify(f"帮我把我的{thing[1]}记成{value}。").has(Feature.REPORTED)
