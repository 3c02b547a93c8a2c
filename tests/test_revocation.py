"""Taking knowledge back (SPEC §9): revoke, supersede, reject, forget, in any event order."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, select

from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall, recall_as_of
from memwarden_revalidation.commands import (
    forget_message,
    reject_memory,
    revoke_message,
    supersede_message,
)
from memwarden_shared.contract.models import Turn
from memwarden_shared.delivery.outbox import claim_batch, mark_published
from memwarden_shared.delivery.publish import group_by_route
from memwarden_shared.store.db import engine_scope, unit_of_work
from memwarden_shared.store.schema import memory_versions, proposals, suppressions, vector_index
from memwarden_usecases.audit import audit
from memwarden_usecases.pipeline import drain, run_task_locally
from tests.conftest import turn_dict


def say(
    engine: Engine,
    tenant: str,
    message_id: str,
    text: str,
    *,
    session: str = "s1",
    minute: int = 0,
    drain_now: bool = True,
) -> None:
    ingest_turns(
        [
            Turn.model_validate(
                turn_dict(
                    tenant,
                    text,
                    message_id=message_id,
                    session=session,
                    created_at=f"2026-05-01T09:{minute:02d}:00Z",
                )
            )
        ],
        engine=engine,
    )
    if drain_now:
        drain(engine)


def values(engine: Engine, tenant: str) -> list[Any]:
    return sorted(str(m.value) for m in recall(tenant, "u1", engine=engine))


def vectors(engine: Engine, tenant: str) -> int:
    with engine.connect() as conn:
        return len(
            conn.execute(select(vector_index).where(vector_index.c.tenant_id == tenant)).all()
        )


def test_revoke__recall_is_empty_at_once_and_after_the_drain_with_no_residue(
    store: Engine, tenant: str
) -> None:
    say(store, tenant, "m1", "Remember that I deploy only on Tuesdays.")
    assert values(store, tenant) == ["I deploy only on Tuesdays"]
    assert vectors(store, tenant) == 1
    revoke_message(tenant, "m1", engine=store)
    assert values(store, tenant) == []  # protected empty: no worker has run yet
    assert not audit(tenant, engine=store).clean  # the index still holds it, and says so
    drain(store)
    assert values(store, tenant) == []
    assert vectors(store, tenant) == 0
    assert audit(tenant, engine=store).clean


def test_revoke__a_memory_supported_by_two_messages_survives_one_revocation(
    store: Engine, tenant: str
) -> None:
    say(store, tenant, "m1", "I prefer pnpm.", minute=1)
    say(store, tenant, "m2", "I prefer pnpm.", session="s2", minute=2)
    revoke_message(tenant, "m1", engine=store)
    drain(store)
    assert values(store, tenant) == ["pnpm"]
    revoke_message(tenant, "m2", engine=store)
    drain(store)
    assert values(store, tenant) == []
    assert audit(tenant, engine=store).clean


def test_supersede__an_exact_successor_keeps_recall_a_changed_claim_does_not(
    store: Engine, tenant: str
) -> None:
    say(store, tenant, "m1", "I prefer pnpm. Thanks for the help.")
    supersede_message(tenant, "m1", "Thanks for all the help! I prefer pnpm.", engine=store)
    assert values(store, tenant) == []  # stops at once, before revalidation
    drain(store)
    assert values(store, tenant) == ["pnpm"]  # the same sentence stands in the new revision
    supersede_message(tenant, "m1", "Thanks for all the help!", engine=store)
    drain(store)
    assert values(store, tenant) == []
    with store.connect() as conn:
        statuses = (
            conn.execute(
                select(memory_versions.c.status).where(memory_versions.c.tenant_id == tenant)
            )
            .scalars()
            .all()
        )
    assert statuses == ["revoked"]  # history stays; nothing was deleted
    assert audit(tenant, engine=store).clean


def test_reject_memory__the_owner_takes_a_committed_memory_back(store: Engine, tenant: str) -> None:
    say(store, tenant, "m1", "I prefer bun.")
    [memory] = recall(tenant, "u1", engine=store)
    reject_memory(tenant, memory.memory_id, engine=store)
    assert values(store, tenant) == []
    drain(store)
    assert vectors(store, tenant) == 0 and audit(tenant, engine=store).clean


def test_forget__replaying_the_session_or_a_copy_brings_nothing_back(
    store: Engine, tenant: str
) -> None:
    text = "Remember that my favourite test runner is pytest."
    say(store, tenant, "m1", text)
    forget_message(tenant, "m1", engine=store)
    drain(store)
    say(store, tenant, "m1", text)  # the same session replayed: a duplicate, nothing new
    say(store, tenant, "old-7", text, session="2025-archive")  # a copy from an old session
    say(
        store,
        tenant,
        "old-8",
        "remember that my FAVOURITE test runner is pytest!!",
        session="2025-archive",
    )
    assert values(store, tenant) == []
    with store.connect() as conn:
        hashes = (
            conn.execute(
                select(suppressions.c.content_hash).where(suppressions.c.tenant_id == tenant)
            )
            .scalars()
            .all()
        )
        forgotten = (
            conn.execute(
                select(memory_versions.c.value_json).where(memory_versions.c.tenant_id == tenant)
            )
            .scalars()
            .all()
        )
        kept = (
            conn.execute(
                select(proposals.c.value_json).where(
                    proposals.c.tenant_id == tenant, proposals.c.message_id == "m1"
                )
            )
            .scalars()
            .all()
        )
        refused = (
            conn.execute(
                select(proposals.c.reasons).where(
                    proposals.c.tenant_id == tenant, proposals.c.message_id.like("old-%")
                )
            )
            .scalars()
            .all()
        )
    assert hashes and all(len(h) == 64 and "pytest" not in h for h in hashes)
    assert forgotten == ["null"] and kept == [None]
    assert refused and all("suppressed" in r for r in refused)
    assert audit(tenant, engine=store).clean


def test_forget__a_paraphrase_is_not_caught_by_the_hash(store: Engine, tenant: str) -> None:
    say(store, tenant, "m1", "Remember that my favourite test runner is pytest.")
    forget_message(tenant, "m1", engine=store)
    drain(store)
    say(store, tenant, "m2", "Remember that pytest is the test runner I like best.")
    assert values(store, tenant) != []  # documented limit: paraphrases pass the hash


def test_order__a_revoke_before_the_index_event_leaves_nothing_indexed(
    store: Engine, tenant: str
) -> None:
    say(store, tenant, "m1", "I prefer yarn.", drain_now=False)
    # run only the extractor and the gate, then revoke before the sink sees memory.committed
    for _ in range(2):
        _run_topics(store, {"turn.received", "proposal.submitted"})
    revoke_message(tenant, "m1", engine=store)
    drain(store)
    assert values(store, tenant) == [] and vectors(store, tenant) == 0
    assert audit(tenant, engine=store).clean


def test_order__duplicated_and_shuffled_events_converge(store: Engine, tenant: str) -> None:
    say(store, tenant, "m1", "I prefer yarn.", drain_now=False)
    say(store, tenant, "m2", "我更喜欢深色主题。", minute=1, drain_now=False)
    _run_topics(store, {"turn.received"})
    _run_topics(store, {"proposal.submitted"})
    revoke_message(tenant, "m1", engine=store)
    with unit_of_work(store) as uow:
        events = [e for e in claim_batch(uow.conn, 10_000) if e.tenant_id == tenant]
    batches = group_by_route(events, 1) * 2  # every event delivered twice...
    random.Random(7).shuffle(batches)  # ...in any order
    with engine_scope(store):
        for task, queue, envelopes in batches:
            run_task_locally(task, queue, envelopes)
    with unit_of_work(store) as uow:
        mark_published(uow.conn, [e.id for e in events])
        uow.commit()
    drain(store)
    assert values(store, tenant) == ["dark"]
    assert vectors(store, tenant) == 1
    assert audit(tenant, engine=store).clean


def _run_topics(engine: Engine, topics: set[str]) -> None:
    with unit_of_work(engine) as uow:
        events = [e for e in claim_batch(uow.conn, 10_000) if e.topic in topics]
    with engine_scope(engine):
        for task, queue, envelopes in group_by_route(events, 200):
            run_task_locally(task, queue, envelopes)
    with unit_of_work(engine) as uow:
        mark_published(uow.conn, [e.id for e in events])
        uow.commit()


def test_as_of__history_answers_what_was_known_when(store: Engine, tenant: str) -> None:
    say(store, tenant, "m1", "I prefer pnpm.")
    before_revoke = datetime.now(UTC)
    revoke_message(tenant, "m1", engine=store)
    drain(store)
    valid_at = datetime(2026, 5, 2, tzinfo=UTC)
    then = recall_as_of(tenant, "u1", valid_at=valid_at, known_at=before_revoke, engine=store)
    now = recall_as_of(
        tenant,
        "u1",
        valid_at=valid_at,
        known_at=datetime.now(UTC) + timedelta(seconds=1),
        engine=store,
    )
    assert [r["value"] for r in then] == ["pnpm"]
    assert now == []
