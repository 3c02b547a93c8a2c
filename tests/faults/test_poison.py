"""A poison event: one event of a batch fails for a permanent reason. The rest of the batch
commits, the bad one becomes a dead letter with its stage, event key and error class, and
the dead letter holds no value from the event (SPEC §8.1, issue 9 item 4).

Interface assumed from the issue: a ``dead_letters`` table with columns ``stage`` (the stage
name: extractor, revalidation, vector_sink), ``event_key`` (the outbox event key) and
``error_class`` (the exception's class name, possibly module-qualified).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import Engine, inspect, text

from memwarden_ingest.io import ingest_turns
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.contract.models import MemoryStatus, Topic, Turn
from memwarden_shared.delivery.outbox import emit
from memwarden_shared.store.db import unit_of_work
from tests.faults import oracle
from tests.faults.stages import deliver, outbox_envelopes, redeliver_held
from tests.faults.workload import build

# the test plays the stages, system processes over every tenant (row-level security)
pytestmark = [pytest.mark.faults, pytest.mark.spans_tenants, pytest.mark.postgres]

SENTINEL = "poison-sentinel-value-7c1f"  # must never reach the dead-letter table


def _stored(engine: Engine, tenant: str) -> None:
    workload = build(subjects=3, turns_per_subject=10, seed=5, tenant=tenant)
    ingest_turns([Turn.model_validate(t) for t in workload.turns], engine=engine)


def _decided(engine: Engine, tenant: str) -> None:
    _stored(engine, tenant)
    for topic in (Topic.TURN_RECEIVED, Topic.PROPOSAL_SUBMITTED):
        deliver(engine, outbox_envelopes(engine, tenant, {str(topic)}))
        redeliver_held(engine, tenant, {str(topic)})


def _revoked_one(engine: Engine, tenant: str) -> None:
    _decided(engine, tenant)
    with engine.connect() as conn:
        message = conn.execute(
            text(
                "SELECT e.message_id FROM memory_evidence e JOIN current_memories c "
                "ON c.memory_id = e.memory_id AND c.version = e.version "
                "WHERE c.tenant_id = :t ORDER BY e.message_id LIMIT 1"
            ),
            {"t": tenant},
        ).scalar_one()
    revoke_message(tenant, message, engine=engine)


# stage -> (topic of the batch, how the tenant is prepared, a payload the stage cannot use)
CASES: dict[str, tuple[Topic, Callable[[Engine, str], None], dict[str, str]]] = {
    "extractor": (Topic.TURN_RECEIVED, _stored, {"message_id": "m-x", "note": SENTINEL}),
    "revalidation": (Topic.EVIDENCE_REVOKED, _revoked_one, {"reason": SENTINEL}),
    "vector_sink": (Topic.MEMORY_COMMITTED, _decided, {"memory": SENTINEL}),
}


@pytest.mark.parametrize("stage", sorted(CASES))
def test_poison__one_bad_event_is_dead_lettered_and_the_rest_of_its_batch_commits(
    pg_engine: Engine, tenant: str, stage: str
) -> None:
    topic, prepare, bad_payload = CASES[stage]
    poisoned, clean = f"{tenant}-p", f"{tenant}-c"
    for t in (poisoned, clean):
        prepare(pg_engine, t)
    poison_key = f"{poisoned}:poison:{stage}"
    with unit_of_work(pg_engine) as uow:
        emit(uow.conn, topic, poison_key, poisoned, bad_payload)
        uow.commit()
    batch = outbox_envelopes(pg_engine, poisoned, {str(topic)})
    batch.sort(key=lambda e: e["key"] != poison_key)  # the bad one first: before the others
    assert len(batch) >= 2

    deliver(pg_engine, batch)  # a handled poison event is not the batch's failure
    deliver(pg_engine, outbox_envelopes(pg_engine, clean, {str(topic)}))

    # the rest of the batch committed: the same effects as the batch without the bad event
    got = oracle.snapshot(pg_engine, poisoned)
    want = oracle.snapshot(pg_engine, clean)
    assert got.comparable() == want.comparable()
    with pg_engine.connect() as conn:
        emitted = {
            t: conn.execute(
                text("SELECT topic, count(*) FROM outbox WHERE tenant_id = :t GROUP BY topic"),
                {"t": t},
            ).all()
            for t in (poisoned, clean)
        }
    assert sorted((k, n - (k == str(topic))) for k, n in emitted[poisoned]) == sorted(
        emitted[clean]
    )
    if stage == "revalidation":
        statuses = {f[3] for f in got.facts.values()}
        assert MemoryStatus.REVOKED in statuses

    with pg_engine.connect() as conn:
        assert inspect(conn).has_table("dead_letters"), "no dead_letters table (issue 9 item 4)"
        rows = [
            dict(r._mapping)
            for r in conn.execute(
                text("SELECT * FROM dead_letters WHERE event_key = :k"), {"k": poison_key}
            )
        ]
        others = conn.execute(
            text("SELECT count(*) FROM dead_letters WHERE event_key LIKE :t"),
            {"t": f"{tenant}%"},  # either tenant: only the poison event may be dead
        ).scalar_one()
    assert len(rows) == 1 and others == 1, rows
    assert rows[0]["stage"] == stage
    assert "KeyError" in rows[0]["error_class"]
    assert not any(SENTINEL in str(v) for v in rows[0].values()), "a dead letter kept a value"
