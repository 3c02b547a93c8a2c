"""The gate's value check (SPEC §5.5): a value must be said in its evidence sentence."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.contract.registry import KeySpec, default_registry
from memwarden_shared.detect.grounding import (
    NEGATION_DROPPED,
    REFERS_ELSEWHERE,
    RELATIVE_TIME_UNNORMALISED,
    VALUE_NOT_GROUNDED,
    ungrounded_reason,
)

EN_ANCHOR = dt.datetime(2026, 3, 10, 14, 0, tzinfo=dt.UTC)
ZH_ANCHOR = dt.datetime(2026, 5, 20, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=8)))
OK = None


def spec(key: str) -> KeySpec:
    found = default_registry().get(key.split(".", 1)[0], key)
    assert found is not None
    return found


CASES = [
    # enum keys: a surface form of the value, at token boundaries
    ("preference.package_manager", "pnpm", "I prefer pnpm.", OK),
    ("preference.package_manager", "npm", "I prefer pnpm.", VALUE_NOT_GROUNDED),
    ("preference.package_manager", "yarn", "I prefer pnpm.", VALUE_NOT_GROUNDED),
    ("preference.package_manager", "npm", "Use npm-run-all with npm.", OK),
    ("preference.ui_theme", "dark", "我更喜欢深色主题。", OK),
    ("preference.ui_theme", "light", "我更喜欢浅色主题。", OK),
    ("preference.ui_theme", "dark", "我喜欢浅色主题。", VALUE_NOT_GROUNDED),
    ("preference.language", "中文", "Please reply in Chinese.", OK),
    ("preference.language", "English", "以后请用英文回复我。", OK),
    # free text with registry aliases
    ("preference.editor", "vim", "我写代码一直用 Vim。", OK),
    ("preference.editor", "neovim", "I code in nvim.", OK),
    ("preference.editor", "emacs", "I prefer vim.", VALUE_NOT_GROUNDED),
    # timezone: alias or literal, sign included
    ("profile.timezone", "Asia/Shanghai", "请记住，我的时区是 Asia/Shanghai。", OK),
    ("profile.timezone", "Asia/Shanghai", "我的时区是东八区。", OK),
    ("profile.timezone", "UTC-8", "My timezone is UTC - 8.", OK),
    ("profile.timezone", "UTC+8", "My timezone is UTC-8.", VALUE_NOT_GROUNDED),
    ("profile.timezone", "UTC", "My timezone is UTC+8.", VALUE_NOT_GROUNDED),
    # free text: every content word, every CJK bigram
    (
        "preference.note",
        "I review pull requests only in the afternoon",
        "Remember that I review pull requests only in the afternoon.",
        OK,
    ),
    (
        "preference.note",
        "I review pull requests only in the morning",
        "Remember that I review pull requests only in the afternoon.",
        VALUE_NOT_GROUNDED,
    ),
    (
        "preference.note",
        "the company is in Singapore",
        "This trial uses the Singapore entity.",
        VALUE_NOT_GROUNDED,
    ),
    ("preference.note", "公司注册在新加坡", "本次测试先用新加坡的主体。", VALUE_NOT_GROUNDED),
    ("preference.note", "我每周二上午十点开周会", "请记住，我每周二上午十点开周会。", OK),
    (
        "preference.note",
        "我每周三上午十点开周会",
        "请记住，我每周二上午十点开周会。",
        VALUE_NOT_GROUNDED,
    ),
    ("profile.location", "42 Wallaby Way, Sydney", "I live at 42 Wallaby Way, Sydney.", OK),
    (
        "profile.location",
        "43 Wallaby Way, Sydney",
        "I live at 42 Wallaby Way, Sydney.",
        VALUE_NOT_GROUNDED,
    ),
    ("profile.contact", "13800138000", "请记住我的手机号是 13800138000。", OK),
    # a value of function words only points elsewhere (text.anaphora)
    ("preference.note", "the", "I live at 42 Wallaby Way, Sydney.", REFERS_ELSEWHERE),
    ("preference.note", "   ", "I prefer pnpm.", VALUE_NOT_GROUNDED),
    # negation must survive into free text
    ("preference.note", "I prefer dark mode", "I do not prefer dark mode.", NEGATION_DROPPED),
    ("preference.note", "I do not prefer dark mode", "I do not prefer dark mode.", OK),
    ("preference.note", "喜欢深色模式", "我不喜欢深色模式。", NEGATION_DROPPED),
    ("preference.note", "我喜欢深色模式", "我不喜欢深色模式。", VALUE_NOT_GROUNDED),  # 我喜
]

DATED = [
    (
        "I started leading the platform team on 2026-03-09",
        "Remember that I started leading the platform team yesterday.",
        EN_ANCHOR,
        OK,
    ),
    (
        "I started leading the platform team on 2026-03-08",
        "Remember that I started leading the platform team yesterday.",
        EN_ANCHOR,
        VALUE_NOT_GROUNDED,
    ),
    (
        "I started leading the platform team yesterday",
        "Remember that I started leading the platform team yesterday.",
        EN_ANCHOR,
        RELATIVE_TIME_UNNORMALISED,
    ),
    ("I start in the week of 2026-03-16", "Remember that I start next week.", EN_ANCHOR, OK),
    ("I started on 2026-03-09", "Remember that I started on 2026-03-09.", EN_ANCHOR, OK),
    ("我2026-05-19开始负责支付服务的值班", "请记住，我昨天开始负责支付服务的值班。", ZH_ANCHOR, OK),
    (
        "我2026-05-18开始负责支付服务的值班",
        "请记住，我昨天开始负责支付服务的值班。",
        ZH_ANCHOR,
        VALUE_NOT_GROUNDED,
    ),
    (
        "我昨天开始负责支付服务的值班",
        "请记住，我昨天开始负责支付服务的值班。",
        ZH_ANCHOR,
        RELATIVE_TIME_UNNORMALISED,
    ),
    (
        "我2026-05-19开始负责订单服务的值班",
        "请记住，我昨天开始负责支付服务的值班。",
        ZH_ANCHOR,
        VALUE_NOT_GROUNDED,
    ),
]


@pytest.mark.parametrize(("key", "value", "span", "expected"), CASES)
def test_ungrounded_reason__checks_the_value_against_the_sentence(
    key: str, value: str, span: str, expected: str | None
) -> None:
    assert ungrounded_reason(value, span, spec(key), EN_ANCHOR) == expected


@pytest.mark.parametrize(("value", "span", "anchor", "expected"), DATED)
def test_ungrounded_reason__dates_must_resolve_from_the_message_time(
    value: str, span: str, anchor: dt.datetime, expected: str | None
) -> None:
    assert ungrounded_reason(value, span, spec("preference.note"), anchor) == expected


def test_ungrounded_reason__refuses_a_value_that_is_not_text() -> None:
    value: object = {"x": 1}
    assert ungrounded_reason(value, "I prefer pnpm.", spec("preference.note"), EN_ANCHOR) == (  # type: ignore[arg-type]
        VALUE_NOT_GROUNDED
    )


_MANAGERS = ["npm", "pnpm", "yarn", "bun"]


@given(
    st.sampled_from(_MANAGERS),
    st.sampled_from(_MANAGERS),
    st.sampled_from(["I prefer {}.", "我一直用 {}。", "{} for every repo", "Use {}-based CI."]),
)
def test_ungrounded_reason__a_package_manager_is_grounded_only_by_itself(
    said: str, proposed: str, template: str
) -> None:
    reason = ungrounded_reason(
        proposed, template.format(said), spec("preference.package_manager"), EN_ANCHOR
    )
    assert (reason is None) == (said == proposed)


# content words only: a value of nothing but stop words ("I") is refused by design
_TOKENS = st.sampled_from(["review", "code", "daily", "我", "每天", "写", "代码", "vim"])


@given(st.lists(_TOKENS, min_size=1, max_size=8), st.sampled_from(["zebra", "斑马"]))
def test_ungrounded_reason__an_invented_word_is_never_grounded(
    words: list[str], invented: str
) -> None:
    span = " ".join(words) + "."
    note = spec("preference.note")
    assert ungrounded_reason(" ".join(words), span, note, EN_ANCHOR) is None
    assert ungrounded_reason(" ".join([*words, invented]), span, note, EN_ANCHOR) == (
        VALUE_NOT_GROUNDED
    )
