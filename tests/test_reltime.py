"""Relative time words resolved from the message time (seed 004: "昨天" must become a date)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden_shared.text.reltime import (
    Granularity,
    find_relative_times,
    has_relative_time,
    normalise_relative_times,
    rendered_dates,
)

UTC = dt.UTC
CST = dt.timezone(dt.timedelta(hours=8))
TUESDAY = dt.datetime(2026, 3, 10, 14, 0, tzinfo=UTC)  # 2026-03-10 is a Tuesday
WEDNESDAY_CST = dt.datetime(2026, 5, 20, 10, 0, tzinfo=CST)


@pytest.mark.parametrize(
    ("sentence", "anchor", "expected"),
    [
        ("I started yesterday.", TUESDAY, [("yesterday", "2026-03-09", Granularity.DAY)]),
        (
            "today and tomorrow",
            TUESDAY,
            [("today", "2026-03-10", Granularity.DAY), ("tomorrow", "2026-03-11", Granularity.DAY)],
        ),
        (
            "the day before yesterday",
            TUESDAY,
            [("the day before yesterday", "2026-03-08", Granularity.DAY)],
        ),
        (
            "the day after tomorrow",
            TUESDAY,
            [("the day after tomorrow", "2026-03-12", Granularity.DAY)],
        ),
        ("last night", TUESDAY, [("last night", "2026-03-09", Granularity.DAY)]),
        ("next Monday", TUESDAY, [("next Monday", "2026-03-16", Granularity.DAY)]),
        ("last Friday", TUESDAY, [("last Friday", "2026-03-06", Granularity.DAY)]),
        ("this Friday", TUESDAY, [("this Friday", "2026-03-13", Granularity.DAY)]),
        ("next week", TUESDAY, [("next week", "2026-03-16", Granularity.WEEK)]),
        ("last week", TUESDAY, [("last week", "2026-03-02", Granularity.WEEK)]),
        ("last month", TUESDAY, [("last month", "2026-02", Granularity.MONTH)]),
        ("next year", TUESDAY, [("next year", "2027", Granularity.YEAR)]),
        ("3 days ago", TUESDAY, [("3 days ago", "2026-03-07", Granularity.DAY)]),
        ("two weeks ago", TUESDAY, [("two weeks ago", "2026-02-24", Granularity.DAY)]),
        ("in 3 days", TUESDAY, [("in 3 days", "2026-03-13", Granularity.DAY)]),
        ("我昨天开始负责值班。", WEDNESDAY_CST, [("昨天", "2026-05-19", Granularity.DAY)]),
        ("前天", WEDNESDAY_CST, [("前天", "2026-05-18", Granularity.DAY)]),
        ("大前天", WEDNESDAY_CST, [("大前天", "2026-05-17", Granularity.DAY)]),
        ("后天", WEDNESDAY_CST, [("后天", "2026-05-22", Granularity.DAY)]),
        ("昨晚", WEDNESDAY_CST, [("昨晚", "2026-05-19", Granularity.DAY)]),
        ("下周三开会", WEDNESDAY_CST, [("下周三", "2026-05-27", Granularity.DAY)]),
        ("上周五", WEDNESDAY_CST, [("上周五", "2026-05-15", Granularity.DAY)]),
        ("下星期一", WEDNESDAY_CST, [("下星期一", "2026-05-25", Granularity.DAY)]),
        ("下周", WEDNESDAY_CST, [("下周", "2026-05-25", Granularity.WEEK)]),
        ("上周", WEDNESDAY_CST, [("上周", "2026-05-11", Granularity.WEEK)]),
        ("上个月", WEDNESDAY_CST, [("上个月", "2026-04", Granularity.MONTH)]),
        ("去年", WEDNESDAY_CST, [("去年", "2025", Granularity.YEAR)]),
        ("3天前", WEDNESDAY_CST, [("3天前", "2026-05-17", Granularity.DAY)]),
        ("十二天前", WEDNESDAY_CST, [("十二天前", "2026-05-08", Granularity.DAY)]),
        ("两个月前", WEDNESDAY_CST, [("两个月前", "2026-03", Granularity.MONTH)]),
    ],
)
def test_find_relative_times__resolves_each_phrase(
    sentence: str, anchor: dt.datetime, expected: list[tuple[str, str, Granularity]]
) -> None:
    found = find_relative_times(sentence, anchor)
    assert [(r.word, r.iso, r.granularity) for r in found] == expected
    for r in found:
        assert sentence[r.start : r.end] == r.word


@pytest.mark.parametrize(
    "sentence",
    [
        "I deploy only on Tuesdays.",
        "我每周二上午十点开周会。",
        "以后天天用 pnpm。",
        "以前年轻的时候",
        "这周围有什么好吃的",
        "本周期的目标",
        "a few days ago",
        "最近",
        "This time use npm.",
    ],
)
def test_find_relative_times__leaves_recurring_vague_and_lookalike_words(sentence: str) -> None:
    assert find_relative_times(sentence, TUESDAY) == []


def test_find_relative_times__uses_the_anchors_own_calendar_day() -> None:
    # 00:30 in +08:00 is still the previous day in UTC; the sender's day counts.
    anchor = dt.datetime(2026, 3, 10, 0, 30, tzinfo=CST)
    assert [r.iso for r in find_relative_times("yesterday", anchor)] == ["2026-03-09"]
    assert [r.iso for r in find_relative_times("yesterday", anchor.astimezone(UTC))] == [
        "2026-03-08"
    ]


def test_find_relative_times__next_weekday_is_in_the_next_calendar_week() -> None:
    sunday = dt.datetime(2026, 3, 15, 9, 0, tzinfo=UTC)
    assert [r.iso for r in find_relative_times("next Monday", sunday)] == ["2026-03-16"]
    assert [r.iso for r in find_relative_times("下周一", sunday)] == ["2026-03-16"]


def test_find_relative_times__refuses_a_naive_anchor() -> None:
    with pytest.raises(ValueError):
        find_relative_times("yesterday", dt.datetime(2026, 3, 10))


@pytest.mark.parametrize(
    ("text", "anchor", "expected"),
    [
        (
            "Remember that I started leading the platform team yesterday.",
            TUESDAY,
            "Remember that I started leading the platform team on 2026-03-09.",
        ),
        ("Yesterday I moved.", TUESDAY, "On 2026-03-09 I moved."),
        ("I have been on call since yesterday.", TUESDAY, "I have been on call since 2026-03-09."),
        ("yesterday's meeting", TUESDAY, "2026-03-09's meeting"),
        ("I start next week.", TUESDAY, "I start in the week of 2026-03-16."),
        ("We met last night.", TUESDAY, "We met on the night of 2026-03-09."),
        ("I joined last month.", TUESDAY, "I joined in 2026-02."),
        (
            "请记住，我昨天开始负责支付服务的值班。",
            WEDNESDAY_CST,
            "请记住，我2026-05-19开始负责支付服务的值班。",
        ),
        ("下周我休假。", WEDNESDAY_CST, "2026-05-25当周我休假。"),
        ("昨晚的故障", WEDNESDAY_CST, "2026-05-19晚上的故障"),
        ("我去年入职。", WEDNESDAY_CST, "我2025年入职。"),
        ("No relative words here.", TUESDAY, "No relative words here."),
    ],
)
def test_normalise_relative_times__writes_absolute_dates(
    text: str, anchor: dt.datetime, expected: str
) -> None:
    assert normalise_relative_times(text, anchor) == expected


def test_rendered_dates__finds_the_iso_core_with_its_rendering_words() -> None:
    value = "I joined in the week of 2026-03-16 and left 2026-05-19晚上"
    assert [(value[s:e], iso) for s, e, iso in rendered_dates(value)] == [
        ("in the week of 2026-03-16", "2026-03-16"),
        ("2026-05-19晚上", "2026-05-19"),
    ]


_PHRASES = st.sampled_from(
    [
        "yesterday",
        "today",
        "tomorrow",
        "next Monday",
        "last Friday",
        "next week",
        "last month",
        "3 days ago",
        "昨天",
        "前天",
        "下周三",
        "上周",
        "去年",
        "5天前",
        "the day before yesterday",
    ]
)
_FILLER = st.sampled_from(["I started", "我", "work", "开始", "on call", "值班", ""])
_ANCHORS = st.datetimes(
    min_value=dt.datetime(2001, 1, 1),
    max_value=dt.datetime(2090, 12, 31),
    timezones=st.sampled_from([UTC, CST, dt.timezone(dt.timedelta(hours=-5))]),
)


@given(st.lists(st.tuples(_FILLER, _PHRASES), min_size=1, max_size=4), _ANCHORS)
def test_normalise_relative_times__leaves_no_relative_word(
    parts: list[tuple[str, str]], anchor: dt.datetime
) -> None:
    text = " ".join(f"{filler} {phrase}" for filler, phrase in parts)
    assert has_relative_time(text)
    normalised = normalise_relative_times(text, anchor)
    assert not has_relative_time(normalised)
    found = {r.iso for r in find_relative_times(text, anchor)}
    assert found == {iso for _, _, iso in rendered_dates(normalised)}


@given(st.integers(min_value=1, max_value=99), _ANCHORS)
def test_find_relative_times__n_days_ago_is_plain_date_arithmetic(
    days: int, anchor: dt.datetime
) -> None:
    expected = (anchor.date() - dt.timedelta(days=days)).isoformat()
    assert [r.iso for r in find_relative_times(f"{days} days ago", anchor)] == [expected]
    assert [r.iso for r in find_relative_times(f"{days}天前", anchor)] == [expected]
