"""Two consumers handed overlapping batches at the same instant (a redelivered batch beside
its first delivery, or two relays publishing the same rows): both finish without error and
the result equals running the batches one after the other (SPEC §8.1), on PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine

from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Topic, Turn
from tests.faults import oracle
from tests.faults.stages import deliver, outbox_envelopes, redeliver_held, run_at_barrier
from tests.faults.workload import build

# the test plays the stages, system processes over every tenant (row-level security)
pytestmark = [pytest.mark.faults, pytest.mark.spans_tenants, pytest.mark.postgres]

PROPOSALS = {str(Topic.PROPOSAL_SUBMITTED)}
MEMORY_EVENTS = {str(Topic.MEMORY_COMMITTED), str(Topic.MEMORY_REVOKED)}


def _extracted(engine: Engine, tenant: str) -> None:
    """A small workload stored and extracted: proposal events wait in the outbox."""
    workload = build(subjects=8, turns_per_subject=12, seed=4, tenant=tenant)
    ingest_turns([Turn.model_validate(t) for t in workload.turns], engine=engine)
    deliver(engine, outbox_envelopes(engine, tenant, {str(Topic.TURN_RECEIVED)}))
    redeliver_held(engine, tenant, {str(Topic.TURN_RECEIVED)})


def _overlapping(envelopes: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """The first two thirds and the last two thirds: the middle third is in both."""
    third = len(envelopes) // 3
    return envelopes[: 2 * third], envelopes[third:]


def _concurrent_then_sequential(
    engine: Engine, tenant: str, topics: set[str], prepare: Any
) -> tuple[list[BaseException | None], dict[str, Any], dict[str, Any]]:
    concurrent, sequential = f"{tenant}-c", f"{tenant}-s"
    for t in (concurrent, sequential):
        prepare(engine, t)
    a, b = _overlapping(outbox_envelopes(engine, concurrent, topics))
    assert a and b and {e["key"] for e in a} & {e["key"] for e in b}
    errors = run_at_barrier([lambda: deliver(engine, a), lambda: deliver(engine, b)])
    for batch in _overlapping(outbox_envelopes(engine, sequential, topics)):
        deliver(engine, batch)
    # events a consumer held back (an older event of the subject was in the other batch)
    # are redelivered after the deadline, in both runs alike
    for t in (concurrent, sequential):
        redeliver_held(engine, t, topics)
    return (
        errors,
        oracle.snapshot(engine, concurrent).comparable(),
        oracle.snapshot(engine, sequential).comparable(),
    )


def test_barrier__two_gates_on_overlapping_batches_both_succeed_and_equal_sequential(
    pg_engine: Engine, tenant: str
) -> None:
    errors, concurrent, sequential = _concurrent_then_sequential(
        pg_engine, tenant, PROPOSALS, _extracted
    )
    assert errors == [None, None], [repr(e) for e in errors]
    assert concurrent["undecided"] == 0
    assert concurrent["twice_current"] == 0
    assert concurrent["decisions"] == sequential["decisions"]
    assert concurrent["facts"] == sequential["facts"]
    assert concurrent["pending"] == sequential["pending"]


def _decided(engine: Engine, tenant: str) -> None:
    """Extracted and decided one batch at a time: memory events wait in the outbox."""
    _extracted(engine, tenant)
    deliver(engine, outbox_envelopes(engine, tenant, PROPOSALS))
    redeliver_held(engine, tenant, PROPOSALS)


def test_barrier__two_vector_sinks_on_overlapping_batches_both_succeed_and_equal_sequential(
    pg_engine: Engine, tenant: str
) -> None:
    errors, concurrent, sequential = _concurrent_then_sequential(
        pg_engine, tenant, MEMORY_EVENTS, _decided
    )
    assert errors == [None, None], [repr(e) for e in errors]
    assert concurrent["index_mirrors_projection"]
    assert sequential["index_mirrors_projection"]
    assert concurrent["facts"] == sequential["facts"]


REVOCATIONS = {str(Topic.EVIDENCE_REVOKED)}


def _revoked(engine: Engine, tenant: str) -> None:
    """Decided and indexed, then every third message that taught a memory revoked: the
    revocation events wait in the outbox."""
    from memwarden_revalidation.commands import revoke_message

    _decided(engine, tenant)
    deliver(engine, outbox_envelopes(engine, tenant, MEMORY_EVENTS))
    snap = oracle.snapshot(engine, tenant)
    taught = sorted({m for m, _key, _value, decision in snap.decisions if decision == "COMMIT"})
    for message_id in taught[::3]:
        revoke_message(tenant, message_id, engine=engine)


def test_barrier__two_revalidations_on_overlapping_batches_both_succeed_and_equal_sequential(
    pg_engine: Engine, tenant: str
) -> None:
    errors, concurrent, sequential = _concurrent_then_sequential(
        pg_engine, tenant, REVOCATIONS, _revoked
    )
    assert errors == [None, None], [repr(e) for e in errors]
    assert concurrent["facts"] == sequential["facts"]
    assert any(f[3] == "revoked" for f in concurrent["facts"])
