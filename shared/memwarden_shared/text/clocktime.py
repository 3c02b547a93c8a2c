"""Clock times in a sentence ("at 10am", "18:30", "下午两点", "晚上八点半") as ``HH:MM``. Pure.

An event memory carries its time as ``HH:MM`` after the date ("2026-03-13 10:00 design
review"); the extractor finds the time here and the gate's grounding checks that the
``HH:MM`` of a value is one the evidence sentence says. Choices:

* English needs am/pm or a colon with two-digit minutes ("1:1 with Dana" is no time);
  "12am" is 00:00, "12pm" 12:00.
* Chinese "N点" with an optional part of day: 下午/晚上/傍晚 add 12 to 1–11, 中午 keeps 12,
  凌晨/早上/上午 keep the hour; "半" is :30, "N分" the minutes, "一刻" :15, "三刻" :45. A
  bare "一点" is "a little", never one o'clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
              "八": 8, "九": 9}  # fmt: skip
_ZH_NUMBER = r"\d{1,2}|[一二两三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九零]"
_ZH_AFTERNOON = ("下午", "晚上", "傍晚", "今晚", "明晚", "晚")

EN_CLOCK = re.compile(
    r"(?<![\w:])(?:(?:at|@|by|around|from)\s*)?"
    r"(?:(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])"
    r"|(\d{1,2}):(\d{2})(?![\d:]))",
    re.I,
)
ZH_CLOCK = re.compile(
    r"(凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|今晚|明晚|晚)?\s*"
    r"(" + _ZH_NUMBER + r")\s*[点點时](?:\s*(半|一刻|三刻|(" + _ZH_NUMBER + r")\s*分?)|整)?"
)


@dataclass(frozen=True)
class ClockTime:
    """One clock time ``sentence[start:end]``, as ``hhmm`` ("10:00")."""

    start: int
    end: int
    hhmm: str


def _zh_number(word: str) -> int:
    if word.isdigit():
        return int(word)
    if "十" in word:
        tens, _, ones = word.partition("十")
        return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)
    return _ZH_DIGITS[word]


def _hhmm(hour: int, minute: int) -> str | None:
    return f"{hour:02d}:{minute:02d}" if 0 <= hour <= 23 and 0 <= minute <= 59 else None


def _en(m: re.Match[str]) -> str | None:
    if m.group(1):
        hour, minute = int(m.group(1)), int(m.group(2) or 0)
        if not 1 <= hour <= 12:
            return None
        pm = m.group(3).lower().startswith("p")
        return _hhmm(hour % 12 + (12 if pm else 0), minute)
    return _hhmm(int(m.group(4)), int(m.group(5)))


def _zh(m: re.Match[str]) -> str | None:
    part, hour = m.group(1) or "", _zh_number(m.group(2))
    tail = m.group(3) or ""
    if m.group(2) == "一" and not part and not tail:
        return None  # "有一点累", "一点建议": "a little", not one o'clock
    minute = {"半": 30, "一刻": 15, "三刻": 45}.get(tail)
    if minute is None:
        minute = _zh_number(m.group(4)) if m.group(4) else 0
    if part in _ZH_AFTERNOON and 1 <= hour <= 11:
        hour += 12
    return _hhmm(hour, minute)


def find_clock_times(sentence: str) -> list[ClockTime]:
    """Every clock time in ``sentence``, in order, never overlapping."""
    found = [
        ClockTime(m.start(), m.end(), hhmm)
        for pattern, convert in ((EN_CLOCK, _en), (ZH_CLOCK, _zh))
        for m in pattern.finditer(sentence)
        if (hhmm := convert(m)) is not None
    ]
    found.sort(key=lambda c: (c.start, -(c.end - c.start)))
    result: list[ClockTime] = []
    for item in found:
        if not result or item.start >= result[-1].end:
            result.append(item)
    return result
