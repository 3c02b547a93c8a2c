"""Date questions find dated memories (``services.recall.datematch``): over generated days,
anchors, event words and question forms in English and Chinese (written month-day, ISO,
relative day words resolved from when the question is asked), the event on the day asked
about ranks first among events on other days and undated memories. Pure ranking, with the
hashed embedder so the date term alone has to do it."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_recall.query import rank_rows
from memwarden_shared.text.embedding import HashedNgramEmbedder

_MONTHS = [dt.date(2026, m, 1).strftime("%B") for m in range(1, 13)]
_EMBEDDER = HashedNgramEmbedder()
_UPDATED = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class _Row:
    memory_id: str
    normalized_key: str
    value_json: str
    kind: str = "task_fact"
    version: int = 1
    scope_kind: str = "user"
    scope_key: str = ""
    updated_at: dt.datetime = _UPDATED
    expires_at: dt.datetime | None = None


def _question(form: str, day: dt.date, asked: dt.datetime) -> str:
    if form == "en_written":
        return f"what do I have on {_MONTHS[day.month - 1]} {day.day}?"
    if form == "zh_written":
        return f"{day.month}月{day.day}日有什么安排"
    if form == "iso":
        return f"anything planned for {day.isoformat()}"
    if form == "en_relative":
        return "what's happening tomorrow?"
    return "明天有什么事"


_words = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=4, max_size=9)


@settings(max_examples=60, deadline=None)
@given(
    asked_day=st.dates(min_value=dt.date(2025, 1, 1), max_value=dt.date(2030, 12, 1)),
    offsets=st.lists(st.integers(2, 25), min_size=1, max_size=5, unique=True),
    words=st.lists(_words, min_size=8, max_size=8, unique=True),
    form=st.sampled_from(["en_written", "zh_written", "iso", "en_relative", "zh_relative"]),
)
def test_the_event_on_the_day_asked_about_ranks_first(
    asked_day: dt.date, offsets: list[int], words: list[str], form: str
) -> None:
    asked = dt.datetime.combine(asked_day, dt.time(9, 0), tzinfo=dt.UTC)
    target = asked_day + dt.timedelta(days=1)  # "tomorrow" names it too
    others = [asked_day + dt.timedelta(days=n) for n in offsets]
    rows = [
        _Row(f"m{i:02d}", "task_fact.event", json.dumps(f"{day} {words[i]} {words[-1]}"))
        for i, day in enumerate(others)
    ]
    rows.append(_Row("m90", "preference.note", json.dumps(f"{words[6]} {words[-1]}")))
    rows.append(
        _Row("m99", "task_fact.event", json.dumps(f"{target.isoformat()} {words[5]} {words[-1]}"))
    )
    ranked = rank_rows(rows, _question(form, target, asked), len(rows), _EMBEDDER, asked)
    assert ranked[0].memory_id == "m99"


def test_a_question_naming_no_date_leaves_dated_memories_unboosted() -> None:
    asked = dt.datetime(2026, 5, 4, 9, tzinfo=dt.UTC)
    rows = [
        _Row("m0", "task_fact.event", json.dumps("2026-05-05 dentist")),
        _Row("m1", "preference.note", json.dumps("dentist visits only in the morning")),
    ]
    scores = {r.memory_id: r.score for r in rank_rows(rows, "dentist", 2, _EMBEDDER, asked)}
    plain = {r.memory_id: r.score for r in rank_rows(rows, "dentist", 2, _EMBEDDER, None)}
    assert scores == plain  # no period in the query: the moment asked changes nothing
