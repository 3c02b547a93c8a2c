"""A forget or revoke that races its own message's undecided proposal wins (issue 22 item 5):
the command lands after the extractor proposed from the message and before the gate decided,
in any delivery order of the proposal events (before, after, repeated); nothing from that
message is committed afterwards, while the subject's other messages are decided as usual."""

from __future__ import annotations

import random
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select

from memwarden_ingest.io import ingest_turns
from memwarden_revalidation.commands import forget_message, revoke_message
from memwarden_shared.contract.models import MemoryStatus, Topic, Turn
from memwarden_shared.store.schema import memory_evidence, memory_versions
from memwarden_usecases.pipeline import drain
from tests.conftest import turn_dict
from tests.faults.stages import deliver, outbox_envelopes, redeliver_held
from tests.faults.workload import DURABLE, EDITORS, PACKAGE_MANAGERS

# the test plays the stages, system processes over every tenant (row-level security)
pytestmark = [pytest.mark.faults, pytest.mark.spans_tenants]

STATEMENTS = [*PACKAGE_MANAGERS, *EDITORS]


def _committed_from(engine: Engine, tenant: str, message_id: str) -> list[str]:
    """Memory ids with a committed version whose evidence is ``message_id``."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(memory_versions.c.memory_id)
                .join(
                    memory_evidence,
                    (memory_evidence.c.memory_id == memory_versions.c.memory_id)
                    & (memory_evidence.c.version == memory_versions.c.version),
                )
                .where(
                    memory_versions.c.tenant_id == tenant,
                    memory_evidence.c.message_id == message_id,
                    memory_versions.c.status == MemoryStatus.COMMITTED,
                )
            ).scalars()
        )


def _run(engine: Engine, rng: random.Random, command: str | None, delivery: str) -> list[str]:
    """One subject's turns through extractor and gate, ``command`` landing on one message
    between its proposal and the gate; returns what was committed from that message."""
    tenant = f"race-{uuid.uuid4().hex[:8]}"
    texts = rng.sample(STATEMENTS, rng.randint(1, 3))
    target = f"m{rng.randint(0, len(texts))}"
    # a durable note no other turn of the subject touches: in order, it is committed
    texts.insert(int(target[1:]), rng.choice(DURABLE))
    turns = [
        turn_dict(tenant, t, message_id=f"m{i}", created_at=f"2026-05-01T{8 + i:02d}:00:00Z")
        for i, t in enumerate(texts)
    ]
    ingest_turns([Turn.model_validate(t) for t in turns], engine=engine)
    deliver(engine, outbox_envelopes(engine, tenant, {str(Topic.TURN_RECEIVED)}))
    proposed = outbox_envelopes(engine, tenant, {str(Topic.PROPOSAL_SUBMITTED)})
    assert proposed, "the extractor proposed nothing"
    # the owner's command lands while every proposal is still undecided
    if command == "revoke":
        revoke_message(tenant, target, engine=engine)
    elif command == "forget":
        forget_message(tenant, target, engine=engine)
    if delivery == "reversed":
        proposed.reverse()
    deliver(engine, proposed)
    if delivery == "twice":
        deliver(engine, proposed)
    redeliver_held(engine, tenant, {str(Topic.PROPOSAL_SUBMITTED)})
    drain(engine)
    return _committed_from(engine, tenant, target)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 2**16),
    command=st.sampled_from(["revoke", "forget"]),
    delivery=st.sampled_from(["once", "twice", "reversed"]),
)
def test_a_command_racing_its_own_undecided_proposal_wins(
    sqlite_engine: Engine, seed: int, command: str, delivery: str
) -> None:
    # the control: with no command, the target message's statement is committed
    assert _run(sqlite_engine, random.Random(seed), None, delivery)
    assert _run(sqlite_engine, random.Random(seed), command, delivery) == []
