"""The gate reads one shape (issue 20): every carrier becomes a body, every body a Verified
proposal or a Refusal, before any decision code runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select

from memwarden_gate.inputs import admit, bodies_of
from memwarden_gate.io import decide_batch, decide_many
from memwarden_gate.records import GateContext, Refusal, Verified
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Decision, MemoryProposal, Topic, Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.state.candidates import queue_candidates
from memwarden_shared.store.db import Batch, unit_of_work
from memwarden_shared.store.schema import proposal_candidates
from tests.conftest import turn_dict

TEXT = "I prefer pnpm for all my JavaScript projects."

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=12,
)


def _registry(_tenant: str) -> Any:
    return default_registry()


@given(_JSON)
def test_admit__any_json_body_is_refused_as_schema_invalid_never_raised(body: Any) -> None:
    admitted = admit(3, body, _registry)
    assert isinstance(admitted, Refusal)
    assert admitted.index == 3
    assert admitted.reasons[-1] == "schema_invalid"
    assert admitted.tenant_id == "unknown" or admitted.tenant_id == body.get("tenant_id")
    assert admitted.claimed_id is None and admitted.payload_hash is None
    assert len(admitted.submission_hash) == 64  # the audit keeps a hash, never the body


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # a pure factory
@given(value=st.sampled_from(["npm", "pnpm", "yarn", "bun"]), confidence=st.floats(0, 1))
def test_admit__a_well_formed_body_is_the_verified_proposal_it_describes(
    make_proposal: Callable[..., dict[str, Any]], value: str, confidence: float
) -> None:
    body = make_proposal("t-in", "m1", TEXT, value=value, confidence=confidence)
    admitted = admit(0, body, _registry)
    assert isinstance(admitted, Verified)
    assert admitted.p == MemoryProposal.model_validate(body)
    forged = admit(1, {**body, "proposal_id": "0" * 64}, _registry)
    assert isinstance(forged, Refusal)
    assert (forged.reasons, forged.claimed_id, forged.tenant_id) == (
        ("proposal_id_mismatch",),
        "0" * 64,
        "t-in",
    )


def _event(tenant: str, payload: dict[str, Any], seq: int) -> dict[str, Any]:
    return {
        "id": seq,
        "topic": Topic.PROPOSAL_SUBMITTED.value,
        "key": f"{tenant}:{payload['proposal_id']}",
        "tenant_id": tenant,
        "payload": payload,
        "order": [f"{tenant}:u1", seq],
    }


def test_bodies_of__each_carrier_yields_the_body_in_subject_order(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    stored = make_proposal(tenant, "m1", TEXT, value="pnpm")
    inline = make_proposal(tenant, "m1", TEXT, value="pnpm", stable_candidate_ordinal=1)
    raw = make_proposal(tenant, "m1", TEXT, value="pnpm", stable_candidate_ordinal=2)
    with unit_of_work(store) as uow:
        batch = Batch(uow.conn)
        queue_candidates(batch, [stored])
        batch.send()
        envelopes = [
            raw,  # sent as it is (send_task): after the events
            _event(tenant, inline, seq=2),  # the body inline, an event from before candidates
            _event(tenant, {"proposal_id": stored["proposal_id"], "message_id": "m1"}, seq=1),
        ]
        assert bodies_of(uow.conn, envelopes) == [stored, inline, raw]
        left = uow.conn.execute(
            select(proposal_candidates).where(proposal_candidates.c.tenant_id == tenant)
        ).all()
        assert left == []  # taken in the caller's transaction


def test_decide__one_proposal_by_any_carrier_gets_the_same_receipt(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    ingest_turns([Turn.model_validate(turn_dict(tenant, TEXT, message_id="m1"))], engine=store)
    body = make_proposal(tenant, "m1", TEXT, value="pnpm")
    [direct] = decide_batch([body], engine=store)
    assert direct.decision == Decision.COMMIT
    with unit_of_work(store) as uow:
        batch = Batch(uow.conn)
        queue_candidates(batch, [body])
        batch.send()
        named = _event(tenant, {"proposal_id": body["proposal_id"], "message_id": "m1"}, seq=1)
        carriers = [named, _event(tenant, body, seq=2), body]
        receipts = decide_many(uow.conn, bodies_of(uow.conn, carriers), GateContext())
        uow.commit()
    assert receipts == [direct, direct, direct]  # an exact replay, whatever carried it
