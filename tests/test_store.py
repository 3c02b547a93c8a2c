"""Store behaviour on both backends: ingest, the commit transaction, replay, outbox, inbox."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, func, select, text
from sqlalchemy.exc import OperationalError

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import IngestRefused, ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.delivery.inbox import new_keys, queue_first_deliveries
from memwarden_shared.delivery.outbox import claim_batch, emit, mark_published
from memwarden_shared.store.db import Batch, unit_of_work
from memwarden_shared.store.schema import metadata, outbox
from memwarden_shared.store.tenant_scope import all_tenants
from tests.conftest import turn_dict

TEXT = "I prefer pnpm for all my JavaScript projects."


def row_counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            t.name: conn.execute(select(func.count()).select_from(t)).scalar_one()
            for t in metadata.sorted_tables
        }


def ingest(engine: Engine, tenant: str, text: str = TEXT, **kw: Any) -> Turn:
    turn = Turn.model_validate(turn_dict(tenant, text, **kw))
    ingest_turns([turn], engine=engine, extract=False)
    return turn


def test_ingest__same_id_same_content_is_a_noop(store: Engine, tenant: str) -> None:
    turn = Turn.model_validate(turn_dict(tenant, TEXT, message_id="m1"))
    first = ingest_turns([turn], engine=store)
    before = row_counts(store)
    again = ingest_turns([turn], engine=store)
    assert (first.stored, again.stored, again.duplicates) == (1, 0, 1)
    assert row_counts(store) == before


def test_ingest__same_id_other_content_is_refused_and_changes_nothing(
    store: Engine, tenant: str
) -> None:
    ingest_turns([Turn.model_validate(turn_dict(tenant, TEXT, message_id="m1"))], engine=store)
    before = row_counts(store)
    other = Turn.model_validate(turn_dict(tenant, "I prefer yarn.", message_id="m1"))
    fresh = Turn.model_validate(turn_dict(tenant, "I prefer bun.", message_id="m2"))
    with pytest.raises(IngestRefused, match="different content"):
        ingest_turns([fresh, other], engine=store)
    assert row_counts(store) == before  # the whole batch, m2 included, was refused


def test_ingest__oversize_text_is_refused(store: Engine, tenant: str) -> None:
    turn = Turn.model_validate(turn_dict(tenant, "x" * 50))
    with pytest.raises(IngestRefused, match="limit 10"):
        ingest_turns([turn], engine=store, max_text_chars=10)


def test_gate__commits_an_explicit_proposal_with_receipt_version_and_outbox(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    turn = ingest(store, tenant)
    [receipt] = decide_batch([make_proposal(tenant, turn.message_id, TEXT)], engine=store)
    assert receipt.decision == "COMMIT", receipt.reasons
    assert receipt.memory_version == 1
    assert {"evidence_hash", "complete_utterance", "grounding", "fact_key_locked"} <= set(
        receipt.checks_passed
    )
    with store.connect() as conn:
        events = conn.execute(
            select(outbox.c.topic, outbox.c.event_key).where(outbox.c.tenant_id == tenant)
        ).all()
    assert [(e.topic, e.event_key) for e in events] == [
        ("memory.committed", f"{receipt.memory_id}:1")
    ]


def test_gate__exact_replay_returns_the_stored_receipt_and_writes_nothing(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    turn = ingest(store, tenant)
    proposal = make_proposal(tenant, turn.message_id, TEXT)
    [first] = decide_batch([proposal], engine=store)
    before = row_counts(store)
    [again] = decide_batch([proposal], engine=store)
    assert again == first
    assert row_counts(store) == before


def test_gate__same_id_different_payload_is_payload_conflict(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    turn = ingest(store, tenant)
    proposal = make_proposal(tenant, turn.message_id, TEXT)
    [first] = decide_batch([proposal], engine=store)
    [second] = decide_batch([{**proposal, "expires_at": "2027-01-01T00:00:00Z"}], engine=store)
    assert (first.decision, second.decision, second.reasons) == (
        "COMMIT",
        "REJECT",
        ["payload_conflict"],
    )
    [replayed] = decide_batch([proposal], engine=store)
    assert replayed == first  # the first receipt stands


def test_gate__forged_id_is_rejected_without_taking_the_honest_slot(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    turn = ingest(store, tenant)
    honest = make_proposal(tenant, turn.message_id, TEXT)
    forged = {**honest, "value": "yarn"}
    forged["proposal_id"] = "f" * 64
    [refused] = decide_batch([forged], engine=store)
    [ok] = decide_batch([honest], engine=store)
    assert (refused.decision, refused.reasons, ok.decision) == (
        "REJECT",
        ["proposal_id_mismatch"],
        "COMMIT",
    )


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"evidence_sha256": "0" * 64}, "evidence_mismatch"),
        ({"end_past_text": True}, "evidence_mismatch"),
        ({"tenant_id": "other-tenant"}, "message_not_found"),
        ({"subject_id": "someone-else"}, "cross_subject"),
        ({"normalized_key": "preference.system_prompt_override"}, "unknown_key"),
        ({"value": "yarn"}, "value_not_grounded"),
        ({"malformed": True}, "schema_invalid"),
    ],
)
def test_gate__rejects_what_it_can_recompute_as_wrong(
    store: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    change: dict[str, Any],
    reason: str,
) -> None:
    turn = ingest(store, tenant)
    overrides: dict[str, Any] = {}
    if "evidence_sha256" in change:
        overrides["evidence"] = {
            "message_id": turn.message_id,
            "start": 0,
            "end": len(TEXT),
            "sha256": change["evidence_sha256"],
        }
    elif "end_past_text" in change:
        overrides["evidence"] = {
            "message_id": turn.message_id,
            "start": 0,
            "end": len(TEXT) + 40,
            "sha256": "1" * 64,
        }
    elif "malformed" not in change:
        overrides.update(change)
    proposal = make_proposal(tenant, turn.message_id, TEXT, **overrides)
    if "malformed" in change:
        proposal["unexpected_field"] = True
    # As the gate stage runs it: a consumer's batch may hold any tenant's proposals.
    with all_tenants("the gate stage"):
        [receipt] = decide_batch([proposal], engine=store)
    assert receipt.decision == "REJECT"
    assert reason in receipt.reasons


def test_outbox__claim_then_mark_sent_hands_each_row_out_once(store: Engine, tenant: str) -> None:
    from memwarden_shared.contract.models import Topic

    with unit_of_work(store) as uow:
        for i in range(3):
            emit(uow.conn, Topic.TURN_RECEIVED, f"{tenant}:k{i}", tenant, {"i": i})
        uow.commit()
    with unit_of_work(store) as uow:
        mine = [e for e in claim_batch(uow.conn, 10_000) if e.tenant_id == tenant]
        mark_published(uow.conn, [e.id for e in mine])
        uow.commit()
    with unit_of_work(store) as uow:
        again = [e for e in claim_batch(uow.conn, 10_000) if e.tenant_id == tenant]
    assert [e.payload["i"] for e in mine] == [0, 1, 2]
    assert again == []


def test_outbox__rolled_back_emit_is_never_seen(store: Engine, tenant: str) -> None:
    from memwarden_shared.contract.models import Topic

    with unit_of_work(store) as uow:
        emit(uow.conn, Topic.TURN_RECEIVED, f"{tenant}:lost", tenant, {})
        # no commit: the unit of work rolls back by default
    with unit_of_work(store) as uow:
        assert not [e for e in claim_batch(uow.conn, 10_000) if e.tenant_id == tenant]


def first_deliveries(conn: Connection, consumer: str, event_keys: list[str]) -> set[str]:
    """The keys ``consumer`` sees for the first time, all recorded (a batch of one step)."""
    batch = Batch(conn)
    step = queue_first_deliveries(batch, consumer, event_keys)
    batch.send()
    return new_keys(step)


@pytest.mark.spans_tenants  # plays a consumer: the inbox is a system table
def test_inbox__a_key_is_new_exactly_once(store: Engine, tenant: str) -> None:
    with unit_of_work(store) as uow:
        assert first_deliveries(uow.conn, "test", [f"{tenant}:a", f"{tenant}:b"]) == {
            f"{tenant}:a",
            f"{tenant}:b",
        }
        uow.commit()
    with unit_of_work(store) as uow:
        assert first_deliveries(uow.conn, "test", [f"{tenant}:a", f"{tenant}:c"]) == {f"{tenant}:c"}


@pytest.mark.postgres
def test_unit_of_work__a_connection_the_server_drops_raises_the_retryable_error(
    pg_engine: Engine,
) -> None:
    """The server ends the session mid-transaction (as a restart does): the caller sees the
    OperationalError it retries on, not a PendingRollbackError from the cleanup."""
    with pytest.raises(OperationalError), unit_of_work(pg_engine) as uow:
        uow.conn.execute(text("select pg_terminate_backend(pg_backend_pid())"))
    with unit_of_work(pg_engine) as uow:  # the pool hands out a live connection again
        assert uow.conn.execute(text("select 1")).scalar_one() == 1
