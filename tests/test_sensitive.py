"""shared.sensitive: sensitive content is recognised in English and Chinese, preferences are not."""

from __future__ import annotations

import time

import pytest

from memwarden_shared.detect.sensitive import SensitiveCategory, sensitive_categories

S = SensitiveCategory


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Please remember that I have type 1 diabetes.", [S.HEALTH]),
        ("I've been dealing with depression this year", [S.HEALTH]),
        ("I'm pregnant, so no coffee suggestions", [S.HEALTH]),
        ("I am HIV positive", [S.HEALTH]),
        ("我有糖尿病", [S.HEALTH]),
        ("最近有点抑郁", [S.HEALTH]),
        ("我怀孕了", [S.HEALTH]),
        ("我每天要吃药", [S.HEALTH]),
        ("I live at 42 Wallaby Way, Sydney.", [S.PRECISE_LOCATION]),
        ("my home address is on the form", [S.PRECISE_LOCATION]),
        ("I live in Beijing", [S.PRECISE_LOCATION]),
        ("We moved to the Netherlands", [S.PRECISE_LOCATION]),
        ("我住在杭州西湖区。", [S.PRECISE_LOCATION]),
        ("我家住朝阳区建国路88号", [S.PRECISE_LOCATION]),
        ("请记住我的手机号是 13800138000。", [S.CONTACT]),
        ("my phone number is on file", [S.CONTACT]),
        ("email me at jane.doe@example.com", [S.CONTACT]),
        ("call me at +44 20 7946 0958", [S.CONTACT]),
        ("我的微信号是 zhang_san88", [S.CONTACT]),
        ("I'm a practising Catholic", [S.RELIGION]),
        ("我信佛", [S.RELIGION]),
        ("I voted for the Greens last time", [S.POLITICS]),
        ("Remember that I vote Green in every election.", [S.POLITICS]),
        ("I voted Labour at the last general election", [S.POLITICS]),
        ("我每次选举都投绿党", [S.POLITICS]),
        ("I'm a party member", [S.POLITICS]),
        ("我是党员", [S.POLITICS]),
        ("I'm gay", [S.SEXUALITY]),
        ("我是双性恋", [S.SEXUALITY]),
        ("My manager prefers yarn for every repo.", [S.THIRD_PERSON]),
        ("my wife's birthday is in May", [S.THIRD_PERSON]),
        ("我老板喜欢用 yarn", [S.THIRD_PERSON]),
        ("My colleague lives in Beijing.", [S.PRECISE_LOCATION, S.THIRD_PERSON]),
        ("同事住北京。", [S.PRECISE_LOCATION, S.THIRD_PERSON]),
        ("我妈得了糖尿病", [S.HEALTH, S.THIRD_PERSON]),
    ],
)
def test_sensitive_categories__recognises_sensitive_content(
    text: str, expected: list[SensitiveCategory]
) -> None:
    assert sensitive_categories(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I live in the terminal",
        "I live in vim",
        "I prefer dark mode",
        "我更喜欢深色主题",
        "请记住我用 pnpm",
        "记住我喜欢深色模式",
        "I prefer email notifications",
        "my phone is an iPhone",
        "the new version came out",
        "Raft leader election timeout",
        "Raft holds a leader election in every term",
        "hearing aids are expensive",
        "std::vector is fast",
        "这个 bug 是老毛病了",
        "电脑中了病毒",
        "故障诊断工具",
        "我男同事说可以用 pnpm",
        "客户端是 Electron 写的",
        "我的时区是 Asia/Shanghai",
        "Reply in English, please",
        "我住酒店的时候喜欢安静",
    ],
)
def test_sensitive_categories__leaves_ordinary_preferences_alone(text: str) -> None:
    assert sensitive_categories(text) == []


def test_sensitive_categories__sees_through_zero_width_and_full_width_text() -> None:
    assert sensitive_categories("I have dia\u200bbetes") == [S.HEALTH]
    assert sensitive_categories("我的手机号是 １３８００１３８０００") == [S.CONTACT]


@pytest.mark.parametrize("unit", ["4", "a@", "x", "住", "1-", "my colleague "])
def test_sensitive_categories__stays_linear_on_long_repetitive_input(unit: str) -> None:
    text = unit * (100_000 // len(unit))
    started = time.perf_counter()
    sensitive_categories(text)
    assert time.perf_counter() - started < 5


def test_sensitive_categories__returns_sorted_unique_categories() -> None:
    text = "My wife is pregnant and my husband is pregnant too; email a@b.co"
    result = sensitive_categories(text)
    assert result == sorted(set(result))
    assert result == [S.CONTACT, S.HEALTH, S.THIRD_PERSON]
