"""Consumers idempotent under concurrency (SPEC §8.1): two workers handed overlapping batches
at the same moment both finish, and the result equals running them one after the other.
Held at a barrier on PostgreSQL."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Topic, Turn
from memwarden_shared.store.schema import (
    current_memories,
    memory_versions,
    messages,
    outbox,
    proposals,
    receipts,
    vector_index,
)
from memwarden_shared.store.tenant_scope import tenant_scope
from tests.conftest import turn_dict
from tests.sink_helpers import sync_memories

pytestmark = pytest.mark.postgres

TOOLS = ["pnpm", "yarn", "npm", "bun", "deno", "vite"]


def _at_barrier(jobs: list[Callable[[], Any]]) -> list[Any]:
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def worker(i: int) -> None:
        barrier.wait()
        try:
            results[i] = jobs[i]()
        except Exception as exc:  # asserted on below
            results[i] = exc

    # Each thread runs in a copy of the test's context: its row-level security scope.
    threads = [
        threading.Thread(target=contextvars.copy_context().run, args=(worker, i))
        for i in range(len(jobs))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def _proposals(
    engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> list[dict[str, Any]]:
    """One proposal per subject, so every outcome is a COMMIT whatever the order."""
    out = []
    for i, tool in enumerate(TOOLS):
        text = f"I prefer {tool}."
        subject = f"u{i}"
        ingest_turns(
            [Turn.model_validate(turn_dict(tenant, text, message_id=f"m{i}", subject=subject))],
            engine=engine,
            extract=False,
        )
        out.append(
            make_proposal(
                tenant,
                f"m{i}",
                text,
                value=tool,
                subject_id=subject,
                scope={"kind": "user", "key": subject},
            )
        )
    return out


def _state(engine: Engine, tenant: str) -> dict[str, Any]:
    with engine.connect() as conn:
        return {
            "decisions": sorted(
                conn.execute(
                    select(proposals.c.subject_id, proposals.c.decision).where(
                        proposals.c.tenant_id == tenant
                    )
                ).all()
            ),
            "versions": sorted(
                conn.execute(
                    select(
                        memory_versions.c.subject_id,
                        memory_versions.c.value_json,
                        memory_versions.c.status,
                    ).where(memory_versions.c.tenant_id == tenant)
                ).all()
            ),
            "receipts": conn.execute(
                select(func.count()).select_from(receipts).where(receipts.c.tenant_id == tenant)
            ).scalar_one(),
        }


def test_gate__two_deciders_on_overlapping_batches_both_succeed(
    pg_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    # Losing interleaving on the first build: both read "proposal unknown", both decide,
    # the second insert raised UniqueViolation and its whole batch was dropped.
    batch = _proposals(pg_engine, tenant, make_proposal)
    first, second = batch[:4], batch[2:]
    results = _at_barrier(
        [
            lambda: decide_batch(first, engine=pg_engine),
            lambda: decide_batch(second, engine=pg_engine),
        ]
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    concurrent = _state(pg_engine, tenant)

    sequential_tenant = tenant + "-seq"
    with tenant_scope(sequential_tenant):
        again = _proposals(pg_engine, sequential_tenant, make_proposal)
        decide_batch(again[:4], engine=pg_engine)
        decide_batch(again[2:], engine=pg_engine)
        sequential = _state(pg_engine, sequential_tenant)
    assert concurrent["decisions"] == sequential["decisions"]
    assert len(concurrent["decisions"]) == len(TOOLS)
    assert concurrent["versions"] == sequential["versions"]
    assert concurrent["receipts"] == sequential["receipts"] == len(TOOLS)
    # the overlap got one receipt each, the same in both workers' answers
    by_id = {r.proposal_id: r for r in results[0]}
    for r in results[1]:
        if r.proposal_id in by_id:
            assert r.decision == by_id[r.proposal_id].decision


def test_vector_sink__two_sinks_on_the_same_memories_both_succeed(
    pg_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    # Losing interleaving on the first build: both saw no vector row and both inserted;
    # the second failed on pk_vector_index.
    receipts_ = decide_batch(_proposals(pg_engine, tenant, make_proposal), engine=pg_engine)
    ids = [r.memory_id for r in receipts_ if r.memory_id]
    results = _at_barrier([lambda: sync_memories(ids, engine=pg_engine) for _ in range(2)])
    assert not [r for r in results if isinstance(r, Exception)], results
    with pg_engine.connect() as conn:
        indexed = sorted(
            conn.execute(
                select(vector_index.c.memory_id, vector_index.c.version).where(
                    vector_index.c.tenant_id == tenant
                )
            ).all()
        )
        current = sorted(
            conn.execute(
                select(current_memories.c.memory_id, current_memories.c.version).where(
                    current_memories.c.tenant_id == tenant
                )
            ).all()
        )
    assert indexed == current and len(current) == len(ids) > 1


def test_ingest__two_identical_ingests_at_once_both_succeed(pg_engine: Engine, tenant: str) -> None:
    turns = [
        Turn.model_validate(turn_dict(tenant, f"I prefer {tool}.", message_id=f"m{i}"))
        for i, tool in enumerate(TOOLS)
    ]
    results = _at_barrier([lambda: ingest_turns(turns, engine=pg_engine) for _ in range(2)])
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sum(r.stored for r in results) == len(TOOLS)
    assert sum(r.duplicates for r in results) == len(TOOLS)
    with pg_engine.connect() as conn:
        stored = conn.execute(
            select(func.count()).select_from(messages).where(messages.c.tenant_id == tenant)
        ).scalar_one()
        events = conn.execute(
            select(func.count())
            .select_from(outbox)
            .where(outbox.c.tenant_id == tenant, outbox.c.topic == Topic.TURN_RECEIVED)
        ).scalar_one()
    assert stored == events == len(TOOLS)
