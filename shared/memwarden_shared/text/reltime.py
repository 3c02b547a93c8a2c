"""Relative time words ("yesterday", "下周三") resolved to absolute dates. Pure.

A memory that says "yesterday" is wrong the next day (seed 004), so the extractor replaces
every relative word with an ISO date computed from the message's ``created_at`` and the gate
refuses values that still contain one.

Choices, documented once here:

* The calendar day is the anchor's own day in the anchor's own UTC offset
  (``anchor.date()``): a message sent at 00:30+08:00 was sent "today" in that offset.
* Weeks are ISO calendar weeks (Monday first). ``next Monday`` / ``下周一`` is the Monday of
  the *next calendar week*, ``last Friday`` / ``上周五`` the Friday of the *previous*
  calendar week, ``this Friday`` / ``这周五`` the Friday of the anchor's week. English and
  Chinese thus agree, and "next Monday" said on a Sunday means the following day.
* A week ("next week", "上周") resolves to the Monday of that week, rendered as
  "the week of 2026-03-16" / "2026-03-16当周"; a month to ``YYYY-MM``; a year to ``YYYY``.
* Bare weekdays ("on Tuesday", "周二", "每周二") are NOT relative times here: they are as
  often recurring ("I deploy on Tuesdays") as they are one date, so they are left alone.
* "a few days ago", "recently", "最近" are vague, not dates: they are not resolved.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from memwarden_shared.text.batch_memo import per_batch
from memwarden_shared.text.prefilter import Prefiltered, any_may_match, prefiltered


class Granularity(StrEnum):
    DAY = "day"
    WEEK = "week"  # resolved to the Monday of the week
    MONTH = "month"
    YEAR = "year"


@dataclass(frozen=True)
class RelativeTime:
    """One relative phrase ``sentence[start:end] == word`` and the date it stands for."""

    start: int
    end: int
    word: str
    date: dt.date
    granularity: Granularity = Granularity.DAY
    part_of_day: str = ""  # "morning", "night", ... when the phrase names one ("last night")

    @property
    def iso(self) -> str:
        """The ISO text this phrase becomes: ``2026-03-09``, ``2026-03`` or ``2026``."""
        if self.granularity is Granularity.MONTH:
            return f"{self.date.year:04d}-{self.date.month:02d}"
        if self.granularity is Granularity.YEAR:
            return f"{self.date.year:04d}"
        return self.date.isoformat()


# --------------------------------------------------------------------------- cue data

EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
EN_WEEKDAYS = {
    "monday": 0,
    "tuesday": 1,
    "wednesday": 2,
    "thursday": 3,
    "friday": 4,
    "saturday": 5,
    "sunday": 6,
}
# day offset, part of day
EN_DAY_WORDS: dict[str, tuple[int, str]] = {
    "the day before yesterday": (-2, ""),
    "the day after tomorrow": (2, ""),
    "yesterday morning": (-1, "morning"),
    "yesterday afternoon": (-1, "afternoon"),
    "yesterday evening": (-1, "evening"),
    "tomorrow morning": (1, "morning"),
    "tomorrow afternoon": (1, "afternoon"),
    "tomorrow evening": (1, "evening"),
    "tomorrow night": (1, "night"),
    "last night": (-1, "night"),
    "this morning": (0, "morning"),
    "this afternoon": (0, "afternoon"),
    "this evening": (0, "evening"),
    "tonight": (0, "night"),
    "yesterday": (-1, ""),
    "today": (0, ""),
    "tomorrow": (1, ""),
}
EN_SHIFT = {"last": -1, "this": 0, "next": 1}
# Words after which an English date needs no "on"/"in" of its own.
EN_PREPOSITIONS = frozenset(
    {
        "on",
        "since",
        "until",
        "till",
        "by",
        "from",
        "before",
        "after",
        "of",
        "to",
        "through",
        "starting",
        "as",
        "at",
        "in",
        "for",
    }
)

ZH_DAY_WORDS: dict[str, tuple[int, str]] = {
    "大前天": (-3, ""),
    "前天": (-2, ""),
    "昨天": (-1, ""),
    "昨日": (-1, ""),
    "昨晚": (-1, "晚上"),
    "昨夜": (-1, "夜里"),
    "今天": (0, ""),
    "今日": (0, ""),
    "今早": (0, "早上"),
    "今晚": (0, "晚上"),
    "明天": (1, ""),
    "明日": (1, ""),
    "明早": (1, "早上"),
    "明晚": (1, "晚上"),
    "后天": (2, ""),
    "大后天": (3, ""),
}
ZH_DIGITS = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
ZH_WEEKDAYS = {
    "一": 0,
    "二": 1,
    "三": 2,
    "四": 3,
    "五": 4,
    "六": 5,
    "日": 6,
    "天": 6,
    "1": 0,
    "2": 1,
    "3": 2,
    "4": 3,
    "5": 4,
    "6": 5,
    "7": 6,
}
ZH_SHIFT = {"上": -1, "这": 0, "本": 0, "下": 1}
ZH_YEAR_WORDS = {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
# "以后天天" holds "后天", "以前天天" holds "前天", "以前年轻" holds "前年": these characters
# before/after mean the word is part of something else.
ZH_DAY_BLOCK_BEFORE = frozenset("以之然最午落先提目此当面日")
ZH_DAY_BLOCK_AFTER = frozenset("气然下空才生使堂文赋性轻纪")

# --------------------------------------------------------------------------- patterns

_L = r"(?<![A-Za-z0-9])"
_R = r"(?![A-Za-z0-9])"
_EN_NUM = r"(\d{1,3}|" + "|".join(EN_NUMBERS) + r")"
_WEEKDAY = "|".join(EN_WEEKDAYS)
_ZH_NUM = r"(\d{1,3}|[一二两三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九])"
_ZH_WD = "[一二三四五六日天1-7]"

Resolver = Callable[[re.Match[str], dt.date], tuple[dt.date, Granularity, str]]


def _en_num(word: str) -> int:
    return int(word) if word.isdigit() else EN_NUMBERS[word.lower()]


def _zh_num(word: str) -> int:
    """Chinese or Arabic numerals up to 99: 三, 十, 十二, 二十, 二十五, 12."""
    if word.isdigit():
        return int(word)
    if "十" in word:
        tens, _, ones = word.partition("十")
        return (ZH_DIGITS[tens] if tens else 1) * 10 + (ZH_DIGITS[ones] if ones else 0)
    return ZH_DIGITS[word]


def _monday(day: dt.date, weeks: int = 0) -> dt.date:
    return day - dt.timedelta(days=day.weekday()) + dt.timedelta(weeks=weeks)


def _shift_month(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    return dt.date(index // 12, index % 12 + 1, 1)


def _ago(amount: int, unit: str, sign: int, day: dt.date) -> tuple[dt.date, Granularity, str]:
    unit = unit.lower()
    if unit.startswith(("day", "天")):
        return day + dt.timedelta(days=sign * amount), Granularity.DAY, ""
    if unit.startswith(("week", "周", "星期", "礼拜")):
        return day + dt.timedelta(weeks=sign * amount), Granularity.DAY, ""
    if unit.startswith(("month", "月")):
        return _shift_month(day, sign * amount), Granularity.MONTH, ""
    return dt.date(day.year + sign * amount, 1, 1), Granularity.YEAR, ""


def _en_day(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    offset, part = EN_DAY_WORDS[" ".join(m.group(0).lower().split())]
    return day + dt.timedelta(days=offset), Granularity.DAY, part


def _en_weekday(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    shift, weekday = EN_SHIFT[m.group(1).lower()], EN_WEEKDAYS[m.group(2).lower()]
    return _monday(day, shift) + dt.timedelta(days=weekday), Granularity.DAY, ""


def _en_period(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    shift, unit = EN_SHIFT[m.group(1).lower()], m.group(2).lower()
    if unit == "week":
        return _monday(day, shift), Granularity.WEEK, ""
    if unit == "month":
        return _shift_month(day, shift), Granularity.MONTH, ""
    return dt.date(day.year + shift, 1, 1), Granularity.YEAR, ""


def _zh_day(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    offset, part = ZH_DAY_WORDS[m.group(0)]
    return day + dt.timedelta(days=offset), Granularity.DAY, part


def _zh_weekday(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    monday = _monday(day, ZH_SHIFT[m.group(1)])
    return monday + dt.timedelta(days=ZH_WEEKDAYS[m.group(2)]), Granularity.DAY, ""


def _en_weekday_of_week(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    """ "Monday next week", "next week Thursday": that weekday of the named week (either
    order; the patterns name their groups)."""
    weekday, shift = EN_WEEKDAYS[m["weekday"].lower()], EN_SHIFT[m["shift"].lower()]
    return _monday(day, shift) + dt.timedelta(days=weekday), Granularity.DAY, ""


def _day_of_month(shift: int, number: int, day: dt.date) -> tuple[dt.date, Granularity, str]:
    """Day ``number`` of the month ``shift`` months from ``day``'s; an impossible day (the
    31st of a 30-day month) clamps to the month's last day."""
    first = _shift_month(day, shift)
    last = (_shift_month(first, 1) - dt.timedelta(days=1)).day
    return first.replace(day=min(max(number, 1), last)), Granularity.DAY, ""


def _en_day_of_month(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    """ "the 15th of next month", "on the 3rd this month"."""
    return _day_of_month(EN_SHIFT[m.group(2).lower()], int(m.group(1)), day)


def _zh_day_of_month(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    """ "下个月5号", "本月28日", "这个月二十号"."""
    return _day_of_month(ZH_SHIFT[m.group(1)], _zh_num(m.group(2)), day)


def _zh_weekday_after_next(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    """ "下下周二": weekday X of the week after next."""
    return _monday(day, 2) + dt.timedelta(days=ZH_WEEKDAYS[m.group(1)]), Granularity.DAY, ""


def _zh_week(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    return _monday(day, ZH_SHIFT[m.group(1)]), Granularity.WEEK, ""


def _zh_month(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    return _shift_month(day, ZH_SHIFT[m.group(1)]), Granularity.MONTH, ""


def _zh_year(m: re.Match[str], day: dt.date) -> tuple[dt.date, Granularity, str]:
    return dt.date(day.year + ZH_YEAR_WORDS[m.group(0)], 1, 1), Granularity.YEAR, ""


_EN_DAY_ALT = "|".join(w.replace(" ", r"\s+") for w in sorted(EN_DAY_WORDS, key=len, reverse=True))
_PATTERNS: tuple[tuple[re.Pattern[str], Resolver], ...] = (
    (re.compile(_L + "(?:" + _EN_DAY_ALT + ")" + _R, re.I), _en_day),
    (re.compile(_L + r"(last|this|next)\s+(" + _WEEKDAY + ")" + _R, re.I), _en_weekday),
    (
        re.compile(
            _L
            + r"(?P<weekday>"
            + _WEEKDAY
            + r")\s+(?:of\s+)?(?P<shift>this|next|last)\s+week"
            + _R,
            re.I,
        ),
        _en_weekday_of_week,
    ),
    # ... and said week first: "next week Thursday", "next week's Friday", "next week on Monday"
    (
        re.compile(
            _L
            + r"(?P<shift>this|next|last)\s+week(?:'s)?,?\s+(?:on\s+)?(?P<weekday>"
            + _WEEKDAY
            + r")"
            + _R,
            re.I,
        ),
        _en_weekday_of_week,
    ),
    (
        re.compile(
            _L + r"(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(this|next|last)\s+month" + _R,
            re.I,
        ),
        _en_day_of_month,
    ),
    (re.compile(_L + r"(last|this|next)\s+(week|month|year)" + _R, re.I), _en_period),
    (
        re.compile(_L + _EN_NUM + r"\s+(days?|weeks?|months?|years?)\s+ago" + _R, re.I),
        lambda m, d: _ago(_en_num(m.group(1)), m.group(2), -1, d),
    ),
    (
        re.compile(_L + r"in\s+" + _EN_NUM + r"\s+(days?|weeks?)" + _R, re.I),
        lambda m, d: _ago(_en_num(m.group(1)), m.group(2), 1, d),
    ),
    (
        re.compile(_L + _EN_NUM + r"\s+(days?|weeks?)\s+from\s+(?:now|today)" + _R, re.I),
        lambda m, d: _ago(_en_num(m.group(1)), m.group(2), 1, d),
    ),
    (re.compile("|".join(sorted(ZH_DAY_WORDS, key=len, reverse=True))), _zh_day),
    (re.compile(r"下下(?:个)?(?:周|星期|礼拜)(" + _ZH_WD + ")"), _zh_weekday_after_next),
    (re.compile(r"([上下这本])(?:个)?月\s*" + _ZH_NUM + r"\s*[号日]"), _zh_day_of_month),
    (re.compile(r"([上下这本])(?:个)?(?:周|星期|礼拜)(" + _ZH_WD + ")"), _zh_weekday),
    (
        re.compile(r"([上下这本])(?:个)?(?:周|星期|礼拜)(?![期边围到全长年" + _ZH_WD[1:-1] + "])"),
        _zh_week,
    ),
    (re.compile(r"([上下这本])(?:个)?月(?!份?[0-9一二三四五六七八九十])"), _zh_month),
    (re.compile("|".join(ZH_YEAR_WORDS)), _zh_year),
    (
        re.compile(_ZH_NUM + r"\s*(天|周|个星期|星期|个礼拜|个月|年)(?:以|之)?前"),
        lambda m, d: _ago(_zh_num(m.group(1)), m.group(2).lstrip("个"), -1, d),
    ),
    (
        re.compile(_ZH_NUM + r"\s*(天|周|个星期|星期|个礼拜|个月|年)(?:以|之)?后"),
        lambda m, d: _ago(_zh_num(m.group(1)), m.group(2).lstrip("个"), 1, d),
    ),
)


# Each behind its literal prefilter: a sentence holds at most one or two of these phrases.
PATTERNS: tuple[tuple[re.Pattern[str] | Prefiltered, Resolver], ...] = tuple(
    (prefiltered(pattern), resolve) for pattern, resolve in _PATTERNS
)
_MAY_HOLD_ONE = any_may_match(pattern for pattern, _ in PATTERNS)


def _blocked(sentence: str, m: re.Match[str]) -> bool:
    """Chinese day/year words that are really part of another word ("以后天天", "以前年轻")."""
    word = m.group(0)
    if word not in ("前天", "后天", "前年", "后年"):
        return False
    before = sentence[m.start() - 1] if m.start() > 0 else ""
    after = sentence[m.end()] if m.end() < len(sentence) else ""
    if word.endswith("天") and sentence[m.end() : m.end() + 2] == "下午":
        return before in ZH_DAY_BLOCK_BEFORE  # "后天下午" is the afternoon, not "天下"
    return before in ZH_DAY_BLOCK_BEFORE or after in ZH_DAY_BLOCK_AFTER


@per_batch  # classifier and grounding each look for them in the same span
def find_relative_times(sentence: str, anchor: dt.datetime) -> list[RelativeTime]:
    """Every relative time phrase in ``sentence``, resolved against ``anchor``'s calendar day.

    Phrases never overlap: the longest match starting first wins ("the day before
    yesterday" over "yesterday", "大前天" over "前天"). ``anchor`` must be timezone-aware.
    """
    if anchor.tzinfo is None:
        raise ValueError("anchor must be timezone-aware")
    if not _MAY_HOLD_ONE(sentence):
        return []  # most sentences name no relative time at all
    day = anchor.date()
    found: list[RelativeTime] = []
    for pattern, resolve in PATTERNS:
        for m in pattern.finditer(sentence):
            if _blocked(sentence, m):
                continue
            date, granularity, part = resolve(m, day)
            found.append(RelativeTime(m.start(), m.end(), m.group(0), date, granularity, part))
    found.sort(key=lambda r: (r.start, -(r.end - r.start)))
    result: list[RelativeTime] = []
    for item in found:
        if not result or item.start >= result[-1].end:
            result.append(item)
    return result


_ANY_DAY = dt.datetime(2000, 1, 3, tzinfo=dt.UTC)


def has_relative_time(text: str) -> bool:
    """True when ``text`` holds a relative time phrase (no anchor needed to tell)."""
    return bool(find_relative_times(text, _ANY_DAY))


def _is_cjk_phrase(word: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in word)


def _render_en(rel: RelativeTime, text: str) -> str:
    before = text[: rel.start].rstrip().rsplit(None, 1)
    has_prep = bool(before) and before[-1].lower() in EN_PREPOSITIONS
    if rel.granularity is Granularity.WEEK:
        core, prep = f"the week of {rel.iso}", "in"
    elif rel.part_of_day:
        core, prep = f"the {rel.part_of_day} of {rel.iso}", "on"
    elif rel.granularity is Granularity.DAY:
        core, prep = rel.iso, "on"
    else:
        core, prep = rel.iso, "in"
    if has_prep or text[rel.end : rel.end + 2] in ("'s", "’s"):
        return core
    rendered = f"{prep} {core}"
    if not text[: rel.start].strip():
        rendered = rendered[0].upper() + rendered[1:]  # the sentence starts here
    return rendered


def _render_zh(rel: RelativeTime) -> str:
    if rel.granularity is Granularity.WEEK:
        return rel.iso + "当周"
    if rel.granularity is Granularity.YEAR:
        return rel.iso + "年"
    return rel.iso + rel.part_of_day


def render(rel: RelativeTime, text: str) -> str:
    """How ``rel`` is written once normalised inside ``text`` (English or Chinese form)."""
    return _render_zh(rel) if _is_cjk_phrase(rel.word) else _render_en(rel, text)


def normalise_relative_times(text: str, anchor: dt.datetime) -> str:
    """``text`` with every relative time phrase replaced by its absolute ISO form.

    English: "I started yesterday" -> "I started on 2026-03-09" ("since yesterday" ->
    "since 2026-03-09"; "next week" -> "in the week of 2026-03-16"). Chinese: "我昨天开始"
    -> "我2026-05-19开始", "下周" -> "2026-05-25当周", "去年" -> "2025年".
    """
    out = text
    for rel in reversed(find_relative_times(text, anchor)):
        out = out[: rel.start] + render(rel, text) + out[rel.end :]
    return out


# What a rendered phrase looks like inside a value: the ISO core plus the words the renderer
# adds around it. The gate's grounding check removes these as one unit after verifying the
# ISO core, so "the week of" never has to be found in the evidence sentence.
ISO_CORE = r"(?<!\d)(\d{4}-\d{2}-\d{2}|\d{4}-\d{2}|(?:1[6-9]|2[0-9])\d{2})(?![\d-])"
RENDERED_DATE = re.compile(
    r"(?:(?<![A-Za-z])(?:on|in)\s+)?"
    r"(?:the\s+(?:week|morning|afternoon|evening|night)\s+of\s+)?"
    + ISO_CORE
    + r"(?:当周|年|早上|晚上|夜里)?",
    re.I,
)


def rendered_dates(value: str) -> list[tuple[int, int, str]]:
    """``(start, end, iso)`` of each ISO date/month/year (with its rendering words) in ``value``."""
    return [(m.start(), m.end(), m.group(1)) for m in RENDERED_DATE.finditer(value)]
