"""Recall reads in one statement and ships each stored vector once per process (issue 23).

Mechanism: the current versions, their evidence pointers (which also decide support), the
curate block and the key of the stored vector come from one SELECT; the vector bytes of a
``memory_id:version`` are fetched once and then served from ``vector_cache``.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, event

from memwarden_recall.query import recall
from memwarden_recall.vector_cache import VectorCache
from memwarden_revalidation.commands import revoke_message
from tests.actions_helpers import memory_of, say

keys = st.tuples(st.text(min_size=1, max_size=6), st.integers(1, 5), st.sampled_from(["a", "b"]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(keys, st.binary(max_size=8)), max_size=40), st.integers(1, 10))
def test_vector_cache__keeps_the_last_puts_within_its_bound(
    puts: list[tuple[tuple[str, int, str], bytes]], bound: int
) -> None:
    cache = VectorCache(max_entries=bound)
    latest: dict[tuple[str, int, str], bytes] = {}
    for key, blob in puts:
        cache.put_many({key: blob})
        latest.pop(key, None)
        latest[key] = blob  # dict order = recency of the puts
    assert len(cache) == min(bound, len(latest))
    kept = dict(list(latest.items())[-bound:])
    assert cache.get_many(latest) == kept


@contextmanager
def reads_of(engine: Engine, tables: tuple[str, ...]) -> Iterator[list[str]]:
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if any(t in statement for t in tables):
            seen.append(statement)

    event.listen(engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", note)


def tool_name(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 9)))


def test_recall__one_statement_once_vectors_are_cached(store: Engine, tenant: str) -> None:
    rng = random.Random(tenant)
    query = f"{tool_name(rng)} npm {tool_name(rng)}"  # a generated query: it only ranks
    mid = say(store, tenant, "I use npm for every project")
    memory_id, version = memory_of(store, tenant, mid)
    tables = ("current_memories", "vector_index", "memory_evidence")
    with reads_of(store, tables) as cold:
        first = recall(tenant, "u1", query, engine=store)
    with reads_of(store, tables) as warm:
        second = recall(tenant, "u1", query, engine=store)
    assert [(r.memory_id, r.version, r.evidence_message_ids) for r in first] == [
        (memory_id, version, (mid,))
    ]
    assert second == first
    assert len(cold) <= 2
    assert len(warm) == 1, warm
    revoke_message(tenant, mid, engine=store)
    assert recall(tenant, "u1", query, engine=store) == []
