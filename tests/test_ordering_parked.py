"""Ordering that never spins (issue 26 item 1, SPEC §8.1): an event held behind an older
unconsumed event of its subject is parked (no relay republishes it, it is not overdue) and
is woken by the consumer of that older event; a shuffled backlog settles with each outbox
row published at most a bounded number of times."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, select

from bench.shuffled_ingest import run_shuffled
from memwarden_extractor.io import extract_batch
from memwarden_gate.io import run_gate_stage
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Topic, Turn
from memwarden_shared.delivery.events import event_of_row
from memwarden_shared.delivery.outbox import claim_batch, delivery_health, is_parked
from memwarden_shared.store.db import engine_for, unit_of_work
from memwarden_shared.store.schema import outbox
from tests.conftest import turn_dict
from tests.faults.workload import EDITORS, PACKAGE_MANAGERS, build

# a relay may publish a row: once, once more when it is woken, once more after a lost
# message (the brief's bound; without faults the bench measures at most two)
MAX_PUBLISHES_PER_ROW = 3


@pytest.fixture
def fresh_pg(fresh_pg_url: str) -> Iterator[Engine]:
    """A database of its own: the relay claims every tenant's rows."""
    engine = engine_for(fresh_pg_url)
    yield engine
    engine.dispose()


def _unconsumed(engine: Engine, tenant: str) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(outbox)
            .where(outbox.c.tenant_id == tenant, outbox.c.consumed_at.is_(None))
            .order_by(outbox.c.id)
        ).all()
    return [event_of_row(r._mapping).envelope() for r in rows]


def _parked_ids(engine: Engine, tenant: str) -> set[int]:
    with engine.connect() as conn:
        return set(
            conn.execute(
                select(outbox.c.id).where(outbox.c.tenant_id == tenant, is_parked())
            ).scalars()
        )


def _random_text(rng: random.Random) -> str:
    """A preference statement the extractor proposes from (the fault suite's timelines)."""
    return rng.choice([*PACKAGE_MANAGERS, *EDITORS])


@pytest.mark.spans_tenants
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_park__a_held_event_is_parked_not_overdue_and_wakes_when_its_predecessor_is_consumed(
    store: Engine, seed: int
) -> None:
    rng = random.Random(seed)
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    # a subject's turns, said an hour apart; the newest ones are extracted first
    said = [
        turn_dict(
            tenant,
            _random_text(rng),
            message_id=f"m{i}",
            created_at=f"2026-05-01T{8 + i:02d}:00:00Z",
        )
        for i in range(rng.randint(2, 5))
    ]
    ingest_turns([Turn.model_validate(t) for t in said], engine=store)
    turns = {e["payload"]["message_id"]: e for e in _unconsumed(store, tenant)}
    newest = f"m{len(said) - 1}"
    extract_batch([turns[newest]], engine=store)
    late = [e for e in _unconsumed(store, tenant) if e["topic"] == Topic.PROPOSAL_SUBMITTED]
    assert late, "the extractor proposed nothing from a preference statement"
    assert run_gate_stage(late, engine=store).held == len(late)

    parked = _parked_ids(store, tenant)
    assert parked == {e["id"] for e in late}
    with unit_of_work(store) as uow:
        # past any redelivery deadline: a parked row is still not claimable
        claimed = claim_batch(uow.conn, 1000, redeliver_seconds=0)
        uow.commit()
    assert not parked & {e.id for e in claimed}
    # the claim marked the subject's other rows (the older turns) published: with a deadline
    # of 0 they are overdue at once; the parked ones are not
    published = [e for e in claimed if e.tenant_id == tenant]
    with store.connect() as conn:
        health = delivery_health(conn, redeliver_seconds=0, tenant_id=tenant)
    assert (health.parked, health.overdue) == (len(parked), len(published))

    # the older turns are extracted, oldest last: still parked until all are consumed
    older = sorted((m for m in turns if m != newest), reverse=True)
    for message_id in older[:-1]:
        extract_batch([turns[message_id]], engine=store)
        assert _parked_ids(store, tenant) == parked
    extract_batch([turns[older[-1]]], engine=store)
    # the older proposals are unconsumed now: the newest still waits behind them
    assert _parked_ids(store, tenant) == parked
    gate = [e for e in _unconsumed(store, tenant) if e["id"] not in parked]
    run_gate_stage([e for e in gate if e["topic"] == Topic.PROPOSAL_SUBMITTED], engine=store)
    # every predecessor decided: woken, pending again (the next relay round publishes it)
    assert _parked_ids(store, tenant) == set()
    with store.connect() as conn:
        woken = conn.execute(
            select(outbox.c.sent_at, outbox.c.consumed_at).where(outbox.c.id.in_(parked))
        ).all()
    assert all(r.sent_at is None and r.consumed_at is None for r in woken)


def _shuffled_settles(engine: Engine, turns: list[dict[str, Any]], seed: int) -> None:
    figures = run_shuffled(engine, turns, seed, chunk=max(len(turns) // 8, 1))
    print(f"\nshuffled ingest: {figures.line()}")
    assert figures.unconsumed == 0, f"did not settle: {figures.line()}"
    assert figures.max_publishes <= MAX_PUBLISHES_PER_ROW, figures.line()
    assert figures.overdue_peak == 0, figures.line()


@pytest.mark.postgres
@pytest.mark.spans_tenants
@pytest.mark.parametrize("seed", [5, 6])
def test_shuffled_ingest__settles_with_bounded_relay_work(fresh_pg: Engine, seed: int) -> None:
    rng = random.Random(seed)
    workload = build(subjects=rng.randint(8, 20), turns_per_subject=rng.randint(5, 15), seed=seed)
    _shuffled_settles(fresh_pg, workload.turns, seed)


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.spans_tenants
def test_shuffled_ingest__two_thousand_turns_settle_with_bounded_relay_work(
    fresh_pg: Engine,
) -> None:
    workload = build(subjects=100, turns_per_subject=20, seed=26)
    _shuffled_settles(fresh_pg, workload.turns, 26)
