"""Recall quality on a labelled query set (tests/breadth/recall_queries.jsonl format).

Each line: ``{"id", "lang", "subject_id", "memories": [{kind, normalized_key, value}…],
"query", "relevant": [indexes into memories]}``, and optionally ``"asked_at"`` (ISO 8601 with
an offset: relative dates in the query resolve from it; now when absent). Every query's
memories are ranked by the same function recall uses (``query.rank_rows``) with the given
embedder, no store involved: this measures the ordering, not the evidence checks in front
of it. Figures:

- recall@1: the first result is relevant; recall@5: a relevant one is in the top 5;
- MRR: mean over queries of 1 / rank of the first relevant memory (0 if none is ranked).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memwarden_recall.query import rank_rows
from memwarden_shared.text.embedding import Embedder

# Every memory of a query is equally recent, so ties fall to memory id = list position.
_UPDATED_AT = datetime(2026, 1, 1, tzinfo=UTC)


class BadQuerySet(ValueError):
    """The file is not a labelled query set; the message names the line."""


@dataclass(frozen=True)
class _Row:
    memory_id: str
    normalized_key: str
    kind: str
    value_json: str
    version: int = 1
    scope_kind: str = "user"
    scope_key: str = ""
    updated_at: datetime = _UPDATED_AT
    expires_at: datetime | None = None
    embedding: bytes | None = None  # never indexed: the embedder embeds each memory now
    embedder: str | None = None


def load_queries(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BadQuerySet(f"{path}: cannot read ({exc.__class__.__name__})") from None
    cases = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
            _check(case)
        except (ValueError, TypeError, KeyError) as exc:
            raise BadQuerySet(f"{path}:{n}: not a labelled recall query ({exc})") from None
        cases.append(case)
    if not cases:
        raise BadQuerySet(f"{path}: no queries")
    return cases


def _check(case: Any) -> None:
    if not isinstance(case, dict):
        raise ValueError("not an object")
    if not isinstance(case["query"], str) or not case["query"].strip():
        raise ValueError("query must be a non-empty string")
    memories = case["memories"]
    _check_memories(memories)
    relevant = case["relevant"]
    if not relevant or not all(_is_index(i, len(memories)) for i in relevant):
        raise ValueError("relevant must list indexes into memories")
    asked_at = case.get("asked_at")
    if asked_at is not None and (
        not isinstance(asked_at, str) or datetime.fromisoformat(asked_at).tzinfo is None
    ):
        raise ValueError("asked_at must be an ISO 8601 time with an offset")


def _check_memories(memories: Any) -> None:
    if not isinstance(memories, list) or not memories:
        raise ValueError("memories must be a non-empty list")
    for m in memories:
        if not isinstance(m["normalized_key"], str) or not isinstance(m["kind"], str):
            raise ValueError("a memory needs kind and normalized_key strings")
        if "value" not in m:
            raise ValueError("a memory needs a value")


def _is_index(i: Any, count: int) -> bool:
    return isinstance(i, int) and not isinstance(i, bool) and 0 <= i < count


def first_relevant_rank(case: dict[str, Any], embedder: Embedder) -> int | None:
    """The 1-based rank of the first relevant memory for the case's query."""
    rows = [
        _Row(
            memory_id=f"m{i:04d}",
            normalized_key=m["normalized_key"],
            kind=m["kind"],
            value_json=json.dumps(m["value"], ensure_ascii=False),
        )
        for i, m in enumerate(case["memories"])
    ]
    asked_at = datetime.fromisoformat(case["asked_at"]) if case.get("asked_at") else None
    ranked = rank_rows(rows, case["query"], len(rows), embedder, asked_at)
    relevant = {f"m{i:04d}" for i in case["relevant"]}
    return next((n for n, r in enumerate(ranked, 1) if r.memory_id in relevant), None)


def _figures(ranks: list[int | None]) -> dict[str, Any]:
    n = len(ranks)
    return {
        "queries": n,
        "recall_at_1": round(sum(r == 1 for r in ranks) / n, 4),
        "recall_at_5": round(sum(r is not None and r <= 5 for r in ranks) / n, 4),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 4),
    }


def evaluate(cases: list[dict[str, Any]], embedder: Embedder) -> dict[str, Any]:
    """The report: overall figures, per language and per relevant key, and the misses."""
    ranks = [first_relevant_rank(c, embedder) for c in cases]
    by_lang: dict[str, list[int | None]] = {}
    by_key: dict[str, list[int | None]] = {}
    for case, rank in zip(cases, ranks, strict=True):
        by_lang.setdefault(str(case.get("lang", "?")), []).append(rank)
        key = case["memories"][case["relevant"][0]]["normalized_key"]
        by_key.setdefault(key, []).append(rank)
    return {
        "embedder": embedder.name,
        **_figures(ranks),
        "by_lang": {lang: _figures(r) for lang, r in sorted(by_lang.items())},
        "by_key": {key: _figures(r) for key, r in sorted(by_key.items())},
        "not_first": [
            {"id": c.get("id"), "query": c["query"], "rank": r}
            for c, r in zip(cases, ranks, strict=True)
            if r != 1
        ],
    }
