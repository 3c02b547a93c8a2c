"""Delivery guarantees (SPEC §8.1): outbox lifecycle and leases, the consumer runner (inbox,
dead letters, transient retries), candidates carried by key, and order by subject."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, select, text
from sqlalchemy.exc import OperationalError

from memwarden_extractor.io import extract_batch
from memwarden_gate.io import run_gate_stage
from memwarden_ingest.io import ingest_turns
from memwarden_revalidation.commands import forget_message
from memwarden_shared.config import get_settings
from memwarden_shared.contract.models import Topic, Turn
from memwarden_shared.delivery.consume import RetriesExhausted, consume
from memwarden_shared.delivery.dead_letters import list_dead_letters, retry_dead_letters
from memwarden_shared.delivery.events import event_of_row
from memwarden_shared.delivery.outbox import claim_batch, emit_many, mark_consumed
from memwarden_shared.delivery.relay import Listener, RelayTimings, relay_once
from memwarden_shared.store.db import engine_for, unit_of_work, utcnow
from memwarden_shared.store.dialect import insert_ignore
from memwarden_shared.store.schema import (
    outbox,
    processed_events,
    proposal_candidates,
    proposals,
    suppressions,
)
from memwarden_shared.store.tenant_scope import all_tenants, tenant_scope
from memwarden_usecases.pipeline import drain
from tests.conftest import turn_dict

CANARY = "canary-value-7f3a"


@pytest.fixture
def fresh_pg(fresh_pg_url: str) -> Iterator[Engine]:
    """A database of its own: relays claim every tenant's rows, so these tests own theirs."""
    engine = engine_for(fresh_pg_url)
    yield engine
    engine.dispose()


def _emit(engine: Engine, tenant: str, n: int, topic: Topic = Topic.TURN_RECEIVED) -> None:
    with unit_of_work(engine) as uow:
        emit_many(
            uow.conn,
            [(topic, f"{tenant}:{i}", tenant, {"message_id": f"m{i}", "n": i}) for i in range(n)],
        )
        uow.commit()


def _envelopes(engine: Engine, tenant: str) -> list[dict[str, Any]]:
    """The tenant's unconsumed events as a relay would hand them to a stage."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(outbox)
            .where(outbox.c.tenant_id == tenant, outbox.c.consumed_at.is_(None))
            .order_by(outbox.c.id)
        ).all()
    return [event_of_row(r._mapping).envelope() for r in rows]


class Recorder:
    def __init__(self) -> None:
        self.published: list[str] = []

    def __call__(self, task: str, queue: str, envelopes: list[dict[str, Any]]) -> None:
        self.published.extend(e["key"] for e in envelopes)


# ---- relays -------------------------------------------------------------------------------


@pytest.mark.postgres
def test_relay__a_published_row_not_consumed_is_published_again_after_the_deadline(
    fresh_pg: Engine, tenant: str
) -> None:
    _emit(fresh_pg, tenant, 3)
    patient = RelayTimings(lease_seconds=30, redeliver_seconds=3600)
    first = Recorder()
    assert relay_once(fresh_pg, first, 100, patient) == 3
    assert relay_once(fresh_pg, first, 100, patient) == 0  # within the deadline: nothing
    with unit_of_work(fresh_pg) as uow:
        mark_consumed(uow.conn, [e["id"] for e in _envelopes(fresh_pg, tenant)][:1])
        uow.commit()
    again = Recorder()
    assert relay_once(fresh_pg, again, 100, RelayTimings(30, 0.0)) == 2
    assert sorted(again.published) == [f"{tenant}:1", f"{tenant}:2"]
    with fresh_pg.connect() as conn:
        counts = dict(conn.execute(select(outbox.c.event_key, outbox.c.publish_count)).all())
    assert counts == {f"{tenant}:0": 1, f"{tenant}:1": 2, f"{tenant}:2": 2}


@pytest.mark.postgres
def test_relay__a_lease_keeps_other_relays_off_until_it_ends(fresh_pg: Engine, tenant: str) -> None:
    _emit(fresh_pg, tenant, 2)
    with unit_of_work(fresh_pg) as uow:
        assert len(claim_batch(uow.conn, 10, lease_seconds=60)) == 2
        uow.commit()  # the claimer now publishes, holding no row lock
    with unit_of_work(fresh_pg) as uow:
        assert claim_batch(uow.conn, 10) == []
        later = utcnow() + timedelta(seconds=61)  # the claimer died; its lease ran out
        assert len(claim_batch(uow.conn, 10, now=later)) == 2


@pytest.mark.postgres
def test_relay__a_backed_up_queue_is_not_redelivered_into(fresh_pg: Engine, tenant: str) -> None:
    _emit(fresh_pg, tenant, 2)
    relay_once(fresh_pg, Recorder(), 100, RelayTimings(30, 3600))
    due = RelayTimings(30, 0.0)
    busy = Recorder()
    assert relay_once(fresh_pg, busy, 100, due, busy_queues=lambda: {"extractor"}) == 0
    idle = Recorder()
    assert relay_once(fresh_pg, idle, 100, due, busy_queues=lambda: {"gate"}) == 2


@pytest.mark.postgres
def test_relay__a_failed_publish_releases_the_lease_at_once(fresh_pg: Engine, tenant: str) -> None:
    _emit(fresh_pg, tenant, 1)

    def broken(task: str, queue: str, envelopes: list[dict[str, Any]]) -> None:
        raise ConnectionError("broker down")

    with pytest.raises(ConnectionError):
        relay_once(fresh_pg, broken, 100, RelayTimings(600, 3600))
    retry = Recorder()
    assert relay_once(fresh_pg, retry, 100, RelayTimings(600, 3600)) == 1


@pytest.mark.postgres
def test_relay_listener__subscribes_again_after_its_connection_is_killed(
    fresh_pg: Engine,
) -> None:
    import threading

    listener = Listener(fresh_pg, 0.05, threading.Event())
    try:
        listener.wait()
        old_pid = listener.conn.info.backend_pid
        # what a database restart does to the listener; as its own role (the application
        # role: a role may end its own backends), not the system login of the test's scope
        with tenant_scope("t-kill"), fresh_pg.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": old_pid})
            conn.commit()
        listener.wait()  # notices the loss, polls
        listener.wait()  # subscribes again
        assert listener.conn is not None
        assert listener.conn.info.backend_pid != old_pid
        with tenant_scope("t-kill"), fresh_pg.connect() as conn:  # sees its own role's query
            listening = conn.execute(
                text("SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN %'")
            ).scalar_one()
        assert listening >= 1
    finally:
        listener.close()


@pytest.mark.postgres
def test_relay__pooled_connections_never_leave_in_autocommit(fresh_pg: Engine) -> None:
    """The first build switched a pooled connection to autocommit for LISTEN; the claim
    then ran outside a transaction and FOR UPDATE locked nothing."""
    import threading

    listener = Listener(fresh_pg, 0.05, threading.Event())
    try:
        listener.wait()
        for _ in range(3):
            with fresh_pg.connect() as conn:
                assert conn.connection.driver_connection.autocommit is False  # type: ignore[union-attr]
    finally:
        listener.close()


# ---- the consumer runner ------------------------------------------------------------------


def _marking_handler(calls: list[str], poison: str | None = None) -> Any:
    """A stage that records each event as a suppression row (a table with a tenant)."""

    def handle(conn: Connection, envelopes: list[dict[str, Any]]) -> int:
        for env in envelopes:
            calls.append(env["key"])
            if env["key"] == poison:
                raise KeyError(CANARY)  # a bug whose message would echo a value
            insert_ignore(
                conn,
                suppressions,
                {
                    "tenant_id": env["tenant_id"],
                    "subject_id": "u1",
                    "content_hash": env["key"].rsplit(":", 1)[1].rjust(64, "0"),
                    "created_at": utcnow(),
                },
                ["tenant_id", "subject_id", "content_hash"],
            )
        return len(envelopes)

    return handle


def _effects(engine: Engine, tenant: str) -> list[str]:
    with engine.connect() as conn:
        return sorted(
            str(int(h))
            for h in conn.execute(
                select(suppressions.c.content_hash).where(suppressions.c.tenant_id == tenant)
            ).scalars()
        )


def _unconsumed(engine: Engine, tenant: str) -> int:
    return len(_envelopes(engine, tenant))


def test_consume__a_poison_event_is_dead_lettered_and_the_rest_commit(
    store: Engine, tenant: str
) -> None:
    _emit(store, tenant, 4)
    calls: list[str] = []
    result = consume(
        "gate", _envelopes(store, tenant), _marking_handler(calls, f"{tenant}:2"), engine=store
    )
    assert (result.processed, result.dead) == (4, 1)
    assert _effects(store, tenant) == ["0", "1", "3"]
    assert _unconsumed(store, tenant) == 0  # the poison one counts as consumed (dead)
    with unit_of_work(store) as uow:
        [dead] = list_dead_letters(uow.conn, tenant_id=tenant)
    assert (dead.stage, dead.event_key, dead.topic) == ("gate", f"{tenant}:2", "turn.received")
    assert dead.error_class == "builtins.KeyError"
    assert CANARY not in json.dumps(dead.as_json())  # keys and the error class, no values


def test_consume__a_redelivered_event_is_skipped(store: Engine, tenant: str) -> None:
    _emit(store, tenant, 3)
    envelopes = _envelopes(store, tenant)
    calls: list[str] = []
    consume("gate", envelopes, _marking_handler(calls), engine=store)
    again = consume("gate", envelopes + envelopes[:1], _marking_handler(calls), engine=store)
    assert sorted(calls) == sorted(e["key"] for e in envelopes)
    assert (again.processed, again.duplicates) == (0, 4)


def test_consume__a_transient_error_is_retried_and_applied_once(store: Engine, tenant: str) -> None:
    _emit(store, tenant, 2)
    calls: list[str] = []
    inner = _marking_handler(calls)
    failures = [OperationalError("SELECT 1", {}, ConnectionError("server closed"))]

    def flaky(conn: Connection, envelopes: list[dict[str, Any]]) -> int:
        n = inner(conn, envelopes)  # effects written, then the connection "drops"
        if failures:
            raise failures.pop()
        return int(n)

    slept: list[float] = []
    consume("gate", _envelopes(store, tenant), flaky, engine=store, sleep=slept.append)
    assert len(slept) == 1
    assert _effects(store, tenant) == ["0", "1"]
    assert _unconsumed(store, tenant) == 0
    with unit_of_work(store) as uow:
        assert list_dead_letters(uow.conn, tenant_id=tenant) == []


def test_consume__persistent_transient_errors_give_the_batch_back_to_the_outbox(
    store: Engine, tenant: str
) -> None:
    _emit(store, tenant, 2)

    def down(conn: Connection, envelopes: list[dict[str, Any]]) -> int:
        raise OperationalError("SELECT 1", {}, ConnectionError("server closed"))

    slept: list[float] = []
    with pytest.raises(RetriesExhausted):
        consume("gate", _envelopes(store, tenant), down, engine=store, sleep=slept.append)
    assert len(slept) == get_settings().consumer_attempts - 1
    assert _unconsumed(store, tenant) == 2  # a relay redelivers them after the deadline
    with store.connect() as conn:
        keys = conn.execute(
            select(processed_events.c.event_key).where(processed_events.c.consumer == "gate")
        ).scalars()
        assert not [k for k in keys if k.startswith(tenant)]


def test_deadletter_retry__the_event_runs_again_once_fixed(store: Engine, tenant: str) -> None:
    _emit(store, tenant, 2)
    calls: list[str] = []
    consume("gate", _envelopes(store, tenant), _marking_handler(calls, f"{tenant}:1"), engine=store)
    # an operator tool (`memwarden deadletter retry`): it spans tenants, as the system login
    with all_tenants("test: dead-letter retry"), unit_of_work(store) as uow:
        [dead] = list_dead_letters(uow.conn, tenant_id=tenant)
        assert retry_dead_letters(uow.conn, [dead.id], {"gate": "gate"}) == 1
        uow.commit()
    assert [e["key"] for e in _envelopes(store, tenant)] == [f"{tenant}:1"]
    consume("gate", _envelopes(store, tenant), _marking_handler(calls), engine=store)
    assert _effects(store, tenant) == ["0", "1"]
    with unit_of_work(store) as uow:
        assert list_dead_letters(uow.conn, tenant_id=tenant) == []


# ---- candidates travel by key -------------------------------------------------------------


def test_extractor__the_gate_event_carries_keys_and_the_value_stays_in_candidates(
    store: Engine, tenant: str
) -> None:
    turn = turn_dict(tenant, "I prefer pnpm for all my JavaScript projects.", message_id="m1")
    ingest_turns([Turn.model_validate(turn)], engine=store)
    assert extract_batch(_envelopes(store, tenant), engine=store) == 1
    [event] = [e for e in _envelopes(store, tenant) if e["topic"] == Topic.PROPOSAL_SUBMITTED]
    assert set(event["payload"]) == {"proposal_id", "message_id"}
    assert "pnpm" not in json.dumps(event)
    with store.connect() as conn:
        [body] = conn.execute(
            select(proposal_candidates.c.body_json).where(proposal_candidates.c.tenant_id == tenant)
        ).scalars()
    assert json.loads(body)["value"] == "pnpm"
    drain(store)
    with store.connect() as conn:
        assert conn.execute(
            select(proposals.c.decision).where(proposals.c.tenant_id == tenant)
        ).scalars().all() == ["COMMIT"]
        left = conn.execute(
            select(proposal_candidates.c.proposal_id).where(
                proposal_candidates.c.tenant_id == tenant
            )
        ).all()
    assert left == []  # a decided candidate is not kept twice


def test_forget__erases_undecided_candidates_and_the_gate_finds_nothing_to_decide(
    store: Engine, tenant: str
) -> None:
    turn = turn_dict(tenant, "I prefer pnpm for all my JavaScript projects.", message_id="m1")
    ingest_turns([Turn.model_validate(turn)], engine=store)
    extract_batch(_envelopes(store, tenant), engine=store)
    forget_message(tenant, "m1", engine=store)
    with store.connect() as conn:
        assert (
            conn.execute(
                select(proposal_candidates).where(proposal_candidates.c.tenant_id == tenant)
            ).all()
            == []
        )
    drain(store)
    with store.connect() as conn:
        decided = conn.execute(
            select(proposals.c.proposal_id).where(proposals.c.tenant_id == tenant)
        ).all()
        hashes = conn.execute(
            select(suppressions.c.content_hash).where(suppressions.c.tenant_id == tenant)
        ).all()
    assert decided == []
    assert len(hashes) >= 1  # the candidate's value was hashed before it was erased


# ---- a subject's order --------------------------------------------------------------------


def test_gate__a_proposal_waits_while_an_older_turn_of_its_subject_is_not_extracted(
    store: Engine, tenant: str
) -> None:
    older = turn_dict(tenant, "I prefer pnpm.", message_id="m1", created_at="2026-05-01T09:00:00Z")
    newer = turn_dict(tenant, "I prefer yarn.", message_id="m2", created_at="2026-05-01T10:00:00Z")
    ingest_turns([Turn.model_validate(older), Turn.model_validate(newer)], engine=store)
    turns = {e["payload"]["message_id"]: e for e in _envelopes(store, tenant)}
    extract_batch([turns["m2"]], engine=store)  # the newer turn overtook the older one
    [late] = [e for e in _envelopes(store, tenant) if e["topic"] == Topic.PROPOSAL_SUBMITTED]
    held = run_gate_stage([late], engine=store)
    assert (held.held, held.processed) == (1, 0)
    extract_batch([turns["m1"]], engine=store)
    gate_events = [e for e in _envelopes(store, tenant) if e["topic"] == Topic.PROPOSAL_SUBMITTED]
    assert run_gate_stage(gate_events, engine=store).processed == 2
    with store.connect() as conn:
        decided = dict(
            conn.execute(
                select(proposals.c.message_id, proposals.c.decision).where(
                    proposals.c.tenant_id == tenant
                )
            ).all()
        )
    # as in order: the first statement commits, the later one asks to replace it
    assert decided == {"m1": "COMMIT", "m2": "CONFIRM_REPLACE"}


def test_gate__a_late_older_statement_is_history_not_a_pending_replacement(
    store: Engine, tenant: str
) -> None:
    older = turn_dict(tenant, "I use yarn.", message_id="m1", created_at="2026-05-01T09:00:00Z")
    newer = turn_dict(tenant, "I use npm.", message_id="m2", created_at="2026-05-01T10:00:00Z")
    ingest_turns([Turn.model_validate(newer)], engine=store)
    drain(store)
    ingest_turns([Turn.model_validate(older)], engine=store)  # arrives after, said before
    drain(store)
    with store.connect() as conn:
        decided = dict(
            conn.execute(
                select(proposals.c.message_id, proposals.c.decision).where(
                    proposals.c.tenant_id == tenant
                )
            ).all()
        )
    # never CONFIRM_REPLACE: approving it would bring the older value back
    assert decided == {"m2": "COMMIT", "m1": "CONFLICT"}


def test_drain__a_round_of_held_events_widens_and_decides_in_the_order_said(
    store: Engine, tenant: str
) -> None:
    from memwarden_shared.delivery.relay import drain_in_process
    from memwarden_shared.store.db import engine_scope
    from memwarden_usecases.pipeline import run_task_locally

    newer = turn_dict(tenant, "I prefer yarn.", message_id="m2", created_at="2026-05-01T10:00:00Z")
    older = turn_dict(tenant, "I prefer pnpm.", message_id="m1", created_at="2026-05-01T09:00:00Z")
    ingest_turns([Turn.model_validate(newer)], engine=store)
    ingest_turns([Turn.model_validate(older)], engine=store)  # received second, said first
    with engine_scope(store):
        # one event per round: the newer proposal comes up while the older one is unconsumed
        drain_in_process(store, run_task_locally, limit=1)
    with store.connect() as conn:
        decided = dict(
            conn.execute(
                select(proposals.c.message_id, proposals.c.decision).where(
                    proposals.c.tenant_id == tenant
                )
            ).all()
        )
    assert decided == {"m1": "COMMIT", "m2": "CONFIRM_REPLACE"}


@pytest.mark.postgres
def test_relay__new_rows_wait_in_the_outbox_while_their_queue_holds_a_message(
    fresh_pg: Engine, tenant: str
) -> None:
    """Back-pressure: a busy stage gets its next rows as one batch once its queue is empty."""
    _emit(fresh_pg, tenant, 3)
    busy = Recorder()
    assert relay_once(fresh_pg, busy, 100, busy_queues=lambda: {"extractor"}) == 0
    assert busy.published == []
    messages: list[int] = []
    assert (
        relay_once(
            fresh_pg,
            lambda _t, _q, envs: messages.append(len(envs)),
            100,
            busy_queues=lambda: {"gate"},
        )
        == 3
    )
    assert messages == [3]  # one message carries the three rows that waited
