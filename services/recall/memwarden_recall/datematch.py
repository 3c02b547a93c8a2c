"""Date questions against dated memories: "what do I have on Friday?", "下周有什么安排",
"anything on March 6?". The question's periods (``text.event_dates.periods_in``: relative
words resolved from the moment it is asked, written dates, ISO dates; English and Chinese)
are matched with the date a ``dated_text`` value opens with. Neither an embedder nor the
key vocabulary can see that "Friday" and "2026-03-06" are one day; this term can."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

from memwarden_shared.text.event_dates import parse_dated, periods_in


def date_matches(query: str, rows: Sequence[Any], asked_at: dt.datetime) -> list[float]:
    """1.0 for each row whose value is dated within a period the query names, else 0.0
    (every row 0.0 when the query names no date)."""
    periods = periods_in(query, asked_at)
    if not periods:
        return [0.0] * len(rows)
    out = []
    for row in rows:
        try:
            value = json.loads(row.value_json)
        except ValueError:
            value = None
        dated = parse_dated(value) if isinstance(value, str) else None
        hit = dated is not None and any(first <= dated.date <= last for first, last in periods)
        out.append(1.0 if hit else 0.0)
    return out
