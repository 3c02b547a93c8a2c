"""Rows written per turn, per table (issue 23): a small deterministic pipeline run on a
database of its own, counted by PostgreSQL itself (``pg_stat_user_tables``), never timed.

The budget is what the pipeline writes today; a change that writes more fails here and
must say why in docs/decisions.md (and raise the budget with it). ``bench/pipeline_bench.py``
prints the same figures for large batches.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, create_engine, text

from memwarden_ingest.io import ingest_turns
from memwarden_shared.config import get_settings
from memwarden_shared.contract.canonical import memory_id_for
from memwarden_shared.contract.models import Role, Source, Turn
from memwarden_shared.delivery.relay import RelayTimings, relay_once
from memwarden_shared.state import memory_state
from memwarden_shared.store.db import engine_for, engine_scope, unit_of_work, utcnow
from memwarden_usecases.pipeline import run_task_locally

# the sentences of bench/pipeline_bench.py: four committable, one rejected, one not proposed
TEXTS = [
    "I prefer pnpm for all my projects.",
    "我更喜欢深色主题。",
    "Remember that I review pull requests only in the afternoon.",
    "My colleague lives in Beijing.",
    "Use npm this time.",
    "我写代码一直用 Vim。",
]
TURNS = 2 * len(TEXTS)

# Rows inserted + updated + deleted per table for TURNS turns: 8 committed memories, 28
# events (12 turn.received, 8 proposal.submitted, 8 memory.committed). See docs/decisions.md,
# "Rows written per turn". Before issue 23 the outbox wrote 4 rows per event (112 here).
BUDGET = {
    "messages": 12,  # one insert per turn
    "outbox": 3 * 28,  # per event: insert, the claim (marks published), consumed
    "processed_events": 28,  # the inbox: one row per event and consumer
    "proposal_candidates": 16,  # inserted by the extractor, taken (deleted) by the gate
    "proposals": 8,
    "receipts": 8,
    "fact_keys": 8,  # a new fact's row, inserted with its first version (before: 16)
    "memory_versions": 8,
    "memory_evidence": 8,
    "current_memories": 8,
    "vector_index": 8,
    # upserts per scope and bucket: a subject per turn here, and the session's scope
    "write_counts": 10,
}


@pytest.fixture
def own_database(fresh_pg_url: str, fresh_pg_owner_url: str) -> Iterator[tuple[Engine, Engine]]:
    """The application role's engine (the pipeline) and the owner's (the counters)."""
    app, owner = engine_for(fresh_pg_url), create_engine(fresh_pg_owner_url)
    yield app, owner
    app.dispose()
    owner.dispose()


def _turns(tenant: str) -> list[Turn]:
    return [
        Turn(
            tenant_id=tenant,
            subject_id=f"u{i}",
            session_id="s",
            message_id=f"m{i}",
            role=Role.USER,
            source=Source.USER_MESSAGE,
            text=TEXTS[i % len(TEXTS)],
            created_at=datetime(2026, 5, 1, 9, tzinfo=UTC),
        )
        for i in range(TURNS)
    ]


def _rows_written(owner: Engine) -> dict[str, int]:
    """Per table, rows inserted + updated + deleted, once every other backend of the
    database has exited (a backend flushes its counters when it exits)."""
    deadline = time.monotonic() + 30
    with owner.connect() as conn:
        while conn.execute(
            text(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        ).scalar_one():
            assert time.monotonic() < deadline, "the pipeline's connections did not close"
            conn.rollback()  # a fresh snapshot of the activity view
            time.sleep(0.1)
        conn.rollback()
        rows = conn.execute(
            text("SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables")
        ).all()
    return {str(name): int(n) for name, n in rows if n}


@pytest.mark.postgres
@pytest.mark.spans_tenants
def test_pipeline__writes_no_more_rows_per_turn_than_its_budget(
    own_database: tuple[Engine, Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a burst of new subjects is what the anomaly watch sends to review: not this count's path
    monkeypatch.setenv("MEMWARDEN_ANOMALY_ENABLED", "false")
    get_settings.cache_clear()
    app, owner = own_database
    with engine_scope(app):
        ingest_turns(_turns("t-rows"), engine=app)
        # the relay path, as deployed, with the stages run in this process
        while relay_once(app, run_task_locally, 500, RelayTimings(30, 3600)):
            pass
    app.dispose()
    written = _rows_written(owner)
    get_settings.cache_clear()

    per_turn = {t: round(n / TURNS, 2) for t, n in sorted(written.items())}
    print(f"\nrows written per turn {sum(written.values()) / TURNS:.2f}: {per_turn}")
    assert set(written) <= set(BUDGET), f"tables written outside the budget: {per_turn}"
    over = {t: (n, BUDGET[t]) for t, n in written.items() if n > BUDGET[t]}
    assert not over, f"(written, budget) over budget: {over}"
    assert written["current_memories"] == 8, "the run committed other than 8 memories"


def _version(row: dict[str, Any], value: str, now: datetime) -> memory_state.NewVersion:
    stored = int(row["current_version"])
    return memory_state.NewVersion(
        fact_row=row,
        value=value,
        proposal_id=f"p-{value}",
        message_id=f"m-{value}",
        message_revision=1,
        auto=True,
        valid_from=now,
        expires_at=None,
        supersedes=stored or None,
    )


def _written_here(conn: Connection) -> dict[str, int]:
    """Rows this backend inserted, updated and deleted and has not reported yet, per table:
    this transaction's and possibly earlier ones' (PostgreSQL 15 reports them later), so a
    caller subtracts a reading taken at its transaction's start."""
    rows = conn.execute(
        text("SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_xact_user_tables")
    ).all()
    return {str(name): int(n) for name, n in rows if n}


@pytest.mark.postgres
def test_commit__a_first_version_and_a_replacement_write_each_row_once(
    pg_engine: Engine, tenant: str
) -> None:
    key = {
        "tenant_id": tenant,
        "subject_id": "u1",
        "scope_kind": "user",
        "scope_key": "u1",
        "kind": "preference",
        "normalized_key": "tools.package_manager",
        "claim_key": "",
    }
    mid = memory_id_for(key)
    for value, expected in [
        # the fact key inserted with its version (no placeholder row updated after)
        ("pnpm", {"fact_keys": 1, "memory_versions": 1, "current_memories": 1}),
        # the key's version and the projection move in place; the old version is retired
        ("yarn", {"fact_keys": 1, "memory_versions": 2, "current_memories": 1}),
    ]:
        with unit_of_work(pg_engine) as uow:
            now = utcnow()
            before = _written_here(uow.conn)
            row = memory_state.lock_fact_keys(uow.conn, {mid: key}, now)[mid]
            memory_state.commit_versions(uow.conn, [_version(row, value, now)], now)
            written = _written_here(uow.conn)
            uow.commit()
        assert {t: written.get(t, 0) - before.get(t, 0) for t in expected} == expected, value
