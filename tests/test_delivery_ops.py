"""Operating delivery: error classes, the audit and ``outbox status`` on stuck work, the
``deadletter`` commands, one owner of memory state, and logs without traceback loops."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import psycopg
import pytest
from kombu.exceptions import OperationalError as KombuOperationalError
from sqlalchemy import Connection, Engine, delete, select, update
from sqlalchemy.exc import IntegrityError, OperationalError

from memwarden.cli import build_parser
from memwarden_extractor.io import extract_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import MemoryStatus, Turn
from memwarden_shared.delivery.consume import consume
from memwarden_shared.delivery.outbox import emit_many
from memwarden_shared.delivery.relay import RelayTimings, run_relay
from memwarden_shared.delivery.retry import is_transient, redacted
from memwarden_shared.state import memory_state
from memwarden_shared.store.db import engine_scope, unit_of_work, utcnow
from memwarden_shared.store.schema import current_memories, memory_versions, outbox, vector_index
from memwarden_usecases.audit import audit
from memwarden_usecases.pipeline import drain
from tests.conftest import turn_dict

CANARY = "canary-value-91bd"


@pytest.mark.parametrize(
    "exc",
    [
        psycopg.errors.SerializationFailure(),
        psycopg.errors.DeadlockDetected(),
        psycopg.errors.LockNotAvailable(),
        psycopg.errors.AdminShutdown(),
        psycopg.errors.ConnectionFailure(),
        OperationalError("SELECT 1", {}, psycopg.OperationalError("server closed")),
        KombuOperationalError("broker unreachable"),
        ConnectionRefusedError(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_is_transient__retryable_failures(exc: BaseException) -> None:
    assert is_transient(exc)


@pytest.mark.parametrize(
    "exc",
    [
        psycopg.errors.UniqueViolation(),
        IntegrityError("INSERT", {}, psycopg.errors.UniqueViolation()),
        KeyError("x"),
        ValueError("x"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_is_transient__permanent_failures(exc: BaseException) -> None:
    assert not is_transient(exc)


def test_redacted__names_the_error_never_its_message() -> None:
    try:
        empty: dict[str, str] = {}
        empty[CANARY]
    except KeyError as exc:
        text = redacted(exc)
    assert text.startswith("KeyError at=test_delivery_ops.py:")
    assert CANARY not in text


def _ingest_and_drain(engine: Engine, tenant: str) -> None:
    turn = turn_dict(tenant, "I prefer pnpm for all my JavaScript projects.", message_id="m1")
    ingest_turns([Turn.model_validate(turn)], engine=engine)
    drain(engine)


def test_audit__reports_stuck_work_that_looked_healthy(sqlite_engine: Engine, tenant: str) -> None:
    _ingest_and_drain(sqlite_engine, tenant)
    assert audit(tenant, engine=sqlite_engine).clean
    with unit_of_work(sqlite_engine) as uow:
        uow.conn.execute(delete(vector_index))  # a vector sink event that never ran
        emit_many(uow.conn, [("turn.received", f"{tenant}:late", tenant, {})])
        uow.conn.execute(  # published an hour ago, never consumed
            update(outbox)
            .where(outbox.c.event_key == f"{tenant}:late")
            .values(sent_at=utcnow().replace(year=2020))
        )
        uow.commit()
    second = turn_dict(tenant, "I prefer dark mode in every editor.", message_id="m2")
    ingest_turns([Turn.model_validate(second)], engine=sqlite_engine)
    with unit_of_work(sqlite_engine) as uow:
        envelopes = [
            {
                "id": None,
                "topic": "turn.received",
                "key": f"{tenant}:m2",
                "tenant_id": tenant,
                "payload": {"message_id": "m2", "revision": 1},
            }
        ]
        uow.commit()
    extract_batch(envelopes, engine=sqlite_engine)  # a candidate the gate never saw

    def poison(conn: Connection, envelopes: list[dict[str, Any]]) -> int:
        raise RuntimeError(CANARY)

    consume(
        "gate",
        [{"topic": "proposal.submitted", "key": f"{tenant}:p", "tenant_id": tenant, "payload": {}}],
        poison,
        engine=sqlite_engine,
    )
    report = audit(tenant, engine=sqlite_engine)
    problems = " | ".join(f"{f['where']}: {f['problem']}" for f in report.findings)
    assert "current committed version has no vector row" in problems
    assert "candidates not decided" in problems
    assert "published but not consumed past the redelivery deadline" in problems
    assert "dead_letters" in problems
    assert CANARY not in json.dumps(report.as_json())


def _cli(capsys: pytest.CaptureFixture[str], engine: Engine, *argv: str) -> dict[str, Any]:
    args = build_parser().parse_args(list(argv))
    with engine_scope(engine):
        assert args.handler(args) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_deadletter_cli__list_retry_discard(
    sqlite_engine: Engine, tenant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with unit_of_work(sqlite_engine) as uow:
        emit_many(
            uow.conn,
            [
                ("memory.committed", f"{tenant}:a", tenant, {"memory_id": "x"}),
                ("memory.committed", f"{tenant}:b", tenant, {"memory_id": "y"}),
            ],
        )
        uow.commit()
    with sqlite_engine.connect() as conn:
        envelopes = [
            {"id": r.id, "topic": r.topic, "key": r.event_key, "tenant_id": tenant, "payload": {}}
            for r in conn.execute(select(outbox).where(outbox.c.tenant_id == tenant))
        ]

    def broken(conn: Connection, envelopes: list[dict[str, Any]]) -> int:
        raise ValueError("no")

    consume("vector_sink", envelopes, broken, engine=sqlite_engine)
    listed = _cli(capsys, sqlite_engine, "deadletter", "list", "--stage", "vector_sink")
    assert listed["count"] == 2
    first, second = (d["id"] for d in listed["dead_letters"])
    status = _cli(capsys, sqlite_engine, "outbox", "status")
    assert status["dead_letters"] == 2 and status["overdue"] == 0
    assert _cli(capsys, sqlite_engine, "deadletter", "discard", str(first))["discarded"] == 1
    assert _cli(capsys, sqlite_engine, "deadletter", "retry", str(second))["retried"] == 1
    # embedded: the retried event ran again at once (the real sink, which finds nothing)
    assert _cli(capsys, sqlite_engine, "deadletter", "list")["count"] == 0
    with sqlite_engine.connect() as conn:
        unconsumed = conn.execute(
            select(outbox.c.event_key).where(
                outbox.c.tenant_id == tenant, outbox.c.consumed_at.is_(None)
            )
        ).all()
    assert unconsumed == []


def test_memory_state__a_revoked_version_is_never_overwritten_by_a_supersede(
    store: Engine, tenant: str
) -> None:
    _ingest_and_drain(store, tenant)
    with unit_of_work(store) as uow:
        conn = uow.conn
        [(memory_id, version)] = conn.execute(
            select(current_memories.c.memory_id, current_memories.c.version).where(
                current_memories.c.tenant_id == tenant
            )
        ).all()
        memory_state.take_out_of_recall(
            conn, tenant, memory_id, version, utcnow(), status=MemoryStatus.REVOKED, reason="t"
        )
        fact_row = memory_state.lock_memories(conn, [memory_id])[memory_id]
        item = memory_state.NewVersion(
            fact_row=fact_row,
            value="yarn",
            proposal_id="p" * 64,
            message_id="m1",
            message_revision=1,
            auto=False,
            valid_from=utcnow(),
            expires_at=None,
            supersedes=version,  # a stale caller that still thinks it is current
        )
        memory_state.commit_versions(conn, [item], utcnow())
        uow.commit()
    with store.connect() as conn:
        statuses = dict(
            conn.execute(
                select(memory_versions.c.version, memory_versions.c.status).where(
                    memory_versions.c.memory_id == memory_id
                )
            ).all()
        )
    assert statuses == {version: MemoryStatus.REVOKED, version + 1: MemoryStatus.COMMITTED}


def test_relay__a_broker_outage_logs_one_line_per_backoff_step_and_no_traceback(
    sqlite_engine: Engine, tenant: str, caplog: pytest.LogCaptureFixture, monkeypatch: Any
) -> None:
    monkeypatch.setenv("MEMWARDEN_BACKOFF_BASE_SECONDS", "0.01")
    monkeypatch.setenv("MEMWARDEN_BACKOFF_MAX_SECONDS", "0.02")
    from memwarden_shared.config import get_settings

    get_settings.cache_clear()
    with unit_of_work(sqlite_engine) as uow:
        emit_many(uow.conn, [("turn.received", f"{tenant}:x", tenant, {})])
        uow.commit()
    stop = threading.Event()
    attempts: list[int] = []

    def down(task: str, queue: str, envelopes: list[dict[str, Any]]) -> None:
        attempts.append(1)
        if len(attempts) >= 4:
            stop.set()
        raise KombuOperationalError("Error 111 connecting to redis. Connection refused.")

    caplog.set_level(logging.INFO, logger="memwarden.relay")
    try:
        run_relay(
            sqlite_engine,
            down,
            limit=10,
            poll_seconds=0.01,
            stop=stop,
            timings=RelayTimings(lease_seconds=30, redeliver_seconds=30),
        )
    finally:
        get_settings.cache_clear()
    failures = [r for r in caplog.records if "relay round failed" in r.getMessage()]
    assert len(failures) == len(attempts) == 4
    assert all(r.exc_info is None for r in caplog.records)
    assert all("transient" in r.getMessage() for r in failures)
