"""The ``dated_text`` value type (registry v2, ``task_fact.event``). Pure.

A dated value is ``"YYYY-MM-DD[ HH:MM] <what>"``: an absolute date (and time) in the
writer's own UTC offset, then what happens, e.g. ``"2026-03-06 10:00 design review"``.
The memory expires after the event's day (see :func:`event_expiry`), and the gate grounds
the date and time in the sentence: literally, through a relative word ("the day after
tomorrow", "下周五") resolved from the message time, or through a written date ("March 6",
"3月6日"); a time through "10am", "10:00", "下午3点".
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from memwarden_shared.text.fold import simplified, zh_numeral_value
from memwarden_shared.text.reltime import find_relative_times

DATED = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}))?\s+(\S.*)$", re.S)


@dataclass(frozen=True)
class DatedText:
    date: dt.date
    time: dt.time | None
    what: str


def parse_dated(value: str) -> DatedText | None:
    """The parts of a dated value, or None when it does not open with a real date/time."""
    m = DATED.match(value.strip()) if isinstance(value, str) else None
    if m is None:
        return None
    try:
        day = dt.date(int(m[1]), int(m[2]), int(m[3]))
        time = dt.time(int(m[4]), int(m[5])) if m[4] is not None else None
    except ValueError:  # 2026-02-30, 25:00
        return None
    return DatedText(day, time, m[6].strip())


def event_expiry(value: str, written_at: dt.datetime, grace: dt.timedelta) -> dt.datetime | None:
    """The end of the event's day in the writer's UTC offset (``written_at``'s), plus
    ``grace``; None when ``value`` is not a dated value, or when the event was already over
    when it was said ("I shipped v2 last Friday"): that is a fact of history, kept like any
    other, not an appointment that lapses."""
    parsed = parse_dated(value)
    if parsed is None:
        return None
    tz = written_at.tzinfo or dt.UTC
    if parsed.date < written_at.astimezone(tz).date():
        return None
    next_day = dt.datetime.combine(parsed.date + dt.timedelta(days=1), dt.time(), tzinfo=tz)
    return next_day + grace


# ------------------------------------------------------------------ what a sentence says

_EN_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for m in names
}
_MONTH = "|".join(sorted(_EN_MONTHS, key=len, reverse=True))
_ZH_NUM = r"[0-9零〇一二两三四五六七八九十]+"
_DAY_NUM = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR_AFTER = r"(?:,?\s+(?P<y>\d{4}))?"
_WRITTEN_DATES = (
    # "March 6", "Mar 6th, 2026"
    re.compile(
        rf"\b(?P<mon>{_MONTH})\.?\s+{_DAY_NUM}{_YEAR_AFTER}\b",
        re.I,
    ),
    # "6 March", "6th of March 2026"
    re.compile(
        rf"\b{_DAY_NUM}\s+(?:of\s+)?(?P<mon>{_MONTH})\b\.?{_YEAR_AFTER}",
        re.I,
    ),
    # "2026年3月6日", "3月6号"
    re.compile(
        rf"(?:(?P<y>\d{{4}})\s*年\s*)?(?P<mon>{_ZH_NUM})\s*月\s*(?P<day>{_ZH_NUM})\s*[日号號]"
    ),
    re.compile(r"\b(?P<y>\d{4})[/.](?P<mon>\d{1,2})[/.](?P<day>\d{1,2})\b"),
)
_EN_TIME = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ap>a\.?m\.?|p\.?m\.?)(?![a-z])"
    r"|\b(?P<h24>\d{1,2}):(?P<m24>\d{2})\b"
    r"|\b(?P<hoc>\d{1,2})\s*o'?clock\b"
    r"|\b(?P<noon>noon|midday|midnight)\b",
    re.I,
)
_ZH_TIME = re.compile(
    rf"(?P<part>凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里)?\s*(?P<h>{_ZH_NUM})\s*[点點时時]"
    rf"(?:\s*(?P<half>半)|\s*(?P<m>{_ZH_NUM})\s*分?)?"
)
_AFTERNOON = frozenset({"下午", "傍晚", "晚上", "夜里"})


def _number(text: str) -> int:
    return int(text) if text.isdigit() else zh_numeral_value(text)


def _month(text: str) -> int:
    return _EN_MONTHS[text.lower()] if text.lower() in _EN_MONTHS else _number(text)


def written_dates(span: str, anchor: dt.datetime) -> list[tuple[int, int, dt.date]]:
    """Dates written out in ``span``; a date with no year is the anchor's year."""
    out = []
    for pattern in _WRITTEN_DATES:
        for m in pattern.finditer(span):
            try:
                year = int(m["y"]) if m["y"] else anchor.year
                out.append((m.start(), m.end(), dt.date(year, _month(m["mon"]), _number(m["day"]))))
            except (ValueError, KeyError):
                continue
    return out


def _en_times(m: re.Match[str]) -> set[dt.time]:
    if m["noon"]:
        return {dt.time(0 if m["noon"].lower() == "midnight" else 12, 0)}
    if m["h24"]:
        return {dt.time(int(m["h24"]), int(m["m24"]))} if int(m["h24"]) < 24 else set()
    if m["hoc"]:
        hour = int(m["hoc"])
        return {dt.time(hour % 12, 0), dt.time(hour % 12 + 12, 0)} if hour <= 12 else set()
    hour, minute = int(m["h"]), int(m["m"] or 0)
    if not 1 <= hour <= 12:
        return set()
    pm = m["ap"].lower().startswith("p")
    return {dt.time(hour % 12 + (12 if pm else 0), minute)}


def _zh_times(m: re.Match[str]) -> set[dt.time]:
    hour = _number(m["h"])
    minute = 30 if m["half"] else (_number(m["m"]) if m["m"] else 0)
    if hour > 24 or minute > 59:
        return set()
    if m["part"] in _AFTERNOON and hour < 12:
        return {dt.time(hour + 12, minute)}
    if m["part"] or hour > 12:
        return {dt.time(hour % 24, minute)}
    return {dt.time(hour, minute), dt.time((hour + 12) % 24, minute)}  # "10点" says no half


@dataclass(frozen=True)
class SpanWhen:
    """The dates and times a sentence states, and where (to blank them from the rest)."""

    dates: set[dt.date]
    times: set[dt.time]
    intervals: list[tuple[int, int]]


def when_in(span: str, anchor: dt.datetime) -> SpanWhen:
    """Every date and time of day ``span`` states, relative words resolved from ``anchor``."""
    dates: set[dt.date] = set()
    times: set[dt.time] = set()
    intervals: list[tuple[int, int]] = []
    simple = simplified(span)  # one character for one: offsets into it index ``span``
    for rel in find_relative_times(simple, anchor):
        if rel.granularity.value == "day":
            dates.add(rel.date)
        intervals.append((rel.start, rel.end))
    for m in re.finditer(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)", span):
        try:
            dates.add(dt.date.fromisoformat(m[1]))
        except ValueError:
            continue
        intervals.append((m.start(), m.end()))
    for start, end, day in written_dates(simple, anchor):
        dates.add(day)
        intervals.append((start, end))
    for m in _EN_TIME.finditer(span):
        times |= _en_times(m)
        intervals.append((m.start(), m.end()))
    for m in _ZH_TIME.finditer(span):
        times |= _zh_times(m)
        intervals.append((m.start(), m.end()))
    return SpanWhen(dates, times, intervals)


def without(span: str, intervals: list[tuple[int, int]]) -> str:
    """``span`` with the ``intervals`` cut out (CJK around them rejoins: "我们下周五上线"
    becomes "我们上线")."""
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    for start, end in reversed(merged):
        span = span[:start] + span[end:]
    return span


def _period_end(start: dt.date, granularity: str) -> dt.date:
    if granularity == "week":
        return start + dt.timedelta(days=6)
    if granularity == "month":
        following = dt.date(start.year + start.month // 12, start.month % 12 + 1, 1)
        return following - dt.timedelta(days=1)
    if granularity == "year":
        return dt.date(start.year, 12, 31)
    return start


def periods_in(span: str, anchor: dt.datetime) -> list[tuple[dt.date, dt.date]]:
    """The calendar periods (first day, last day) ``span`` names, in either language: a day
    ("tomorrow", "March 6", "3月6日", "下周五") is a one-day period, "next week" / "下个月"
    the whole week or month. Recall matches a dated memory to a date question with it."""
    simple = simplified(span)
    periods = [
        (rel.date, _period_end(rel.date, rel.granularity.value))
        for rel in find_relative_times(simple, anchor)
    ]
    for m in re.finditer(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?!\d)", span):
        try:
            day = dt.date.fromisoformat(m[1])
        except ValueError:
            continue
        periods.append((day, day))
    periods.extend((day, day) for _, _, day in written_dates(simple, anchor))
    return periods
