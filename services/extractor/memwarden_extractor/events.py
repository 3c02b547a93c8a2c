"""A dated event the owner asked to remember, as a ``task_fact.event`` value. Pure.

"Remember that the design review is the day after tomorrow at 10am" (2026-03-11) ->
``"2026-03-13 10:00 the design review"``; "记一下，我们下周五上线" (2026-03-04) ->
``"2026-03-13 我们 上线"``. The value is ``YYYY-MM-DD[ HH:MM] <what>``:

* the date is the one day-precise date of the claim (a relative phrase resolved in the
  writer's own offset, an ISO date, or a month and day written out in either language, in
  the writer's year); a week, a month, or two different days
  ("moved from Monday to Wednesday") give no event;
* the time is the one clock time of the claim, when there is exactly one;
* ``<what>`` is the claim without the date and time phrases, everything else kept as
  written (so the gate's grounding finds each word, in order, in the evidence). Where a
  phrase is cut between two Chinese characters a space is left, so "我 next Friday 要去面试"
  gives "我 要去面试" and no bigram the owner never wrote.

Whether the sentence may be remembered at all (an explicit request, no question, no
hypothesis …) is decided by the caller; this module only reads the date, time and content.
"""

from __future__ import annotations

import datetime as dt
import re

from memwarden_shared.text.clocktime import find_clock_times
from memwarden_shared.text.event_dates import written_dates
from memwarden_shared.text.fold import simplified
from memwarden_shared.text.reltime import Granularity, find_relative_times, normalise_relative_times

_ISO_DAY = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d-])")
# Words left dangling once the date/time is cut out: "is due on" -> "is due", "is" -> "".
_EN_DANGLING_END = re.compile(
    r"(?:\s+|^)(?:on|at|in|by|for|to|from|of|the|is|are|was|were|will be|be|'s|,)\s*$", re.I
)
_ZH_DANGLING = "是的在于，,、：:"
_EDGE = " \t,，;；:：.。!！?？…~～-—"
_CJK = re.compile(r"[\u3400-\u9fff]")
# A month and day with no year, said of an occasion that comes back every year ("my
# birthday is March 5", "结婚纪念日是6月1日"), is a standing fact, kept as a note without an
# expiry, not a one-off event that lapses after the day.
_ANNUAL = re.compile(
    r"\b(?:birthdays?|b-?day|anniversar(?:y|ies)|name ?days?|every year|each year|annual(?:ly)?"
    r"|yearly)\b|生日|生辰|纪念日|忌日|每年|每一年|年年",
    re.I,
)


def _day_phrases(claim: str, anchor: dt.datetime) -> list[tuple[int, int, dt.date]]:
    """(start, end, date) of each day-precise date phrase in ``claim``, read on its simplified
    copy (one character for one, so the offsets hold): "下週二" is "下周二"."""
    claim = simplified(claim)
    found = [
        (rel.start, rel.end, rel.date)
        for rel in find_relative_times(claim, anchor)
        if rel.granularity is Granularity.DAY
    ]
    for m in _ISO_DAY.finditer(claim):
        try:
            found.append((m.start(), m.end(), dt.date(*map(int, m.groups()))))
        except ValueError:
            continue
    # A month and day written out ("April 9", "9th of April", "4月9日", "2026/4/9"), read by
    # the same parser the gate grounds dates with, so what is proposed is what it accepts.
    taken = [(start, end) for start, end, _ in found]
    annual = bool(_ANNUAL.search(claim))
    found.extend(
        (start, end, day)
        for start, end, day in written_dates(claim, anchor)
        if not any(start < e and s < end for s, e in taken)
        and not (annual and not re.search(r"\d{4}", claim[start:end]))
    )
    return sorted(found)


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without ``spans``; a space stands where a cut joined two non-spaces."""
    out = text
    for start, end in sorted(spans, reverse=True):
        left, right = out[:start].rstrip(" "), out[end:].lstrip(" ")
        joiner = " " if left and right and right[0] not in _EDGE else ""
        out = left + joiner + right
    return out


def _tidy(what: str) -> str:
    what = re.sub(r"\s+", " ", what).strip(_EDGE)
    while True:
        before = what
        what = _EN_DANGLING_END.sub("", what).strip(_EDGE)
        if _CJK.search(what[-1:] or "x") or _CJK.search(what[:1] or "x"):
            what = what.strip(_ZH_DANGLING + _EDGE)
        if what == before:
            return what


def event_value(claim: str, anchor: dt.datetime) -> tuple[str, dt.date] | None:
    """``("YYYY-MM-DD[ HH:MM] <what>", date)`` for the claim clause of a sentence, or None.

    ``claim`` is the clause as written (remember-cue stripped, dates not yet normalised);
    ``anchor`` the message's ``created_at`` (its own offset decides the calendar day).
    """
    days = _day_phrases(claim, anchor)
    if not days or len({day for _, _, day in days}) != 1:
        return None
    spans = [(start, end) for start, end, _ in days]
    clocks = [c for c in find_clock_times(claim) if not any(s <= c.start < e for s, e in spans)]
    when = days[0][2].isoformat()
    if len({c.hhmm for c in clocks}) == 1:
        when += " " + clocks[0].hhmm
        spans += [(c.start, c.end) for c in clocks]
    what = _tidy(normalise_relative_times(_cut(claim, spans), anchor))
    if not re.search(r"\w", what):
        return None
    return f"{when} {what}", days[0][2]
