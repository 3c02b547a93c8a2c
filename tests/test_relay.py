"""The outbox relay: batching per destination, and several relays at once on PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from memwarden_shared.contract.models import Topic
from memwarden_shared.delivery.events import OutboxEvent
from memwarden_shared.delivery.outbox import emit_many
from memwarden_shared.delivery.pipeline import TASK_EXTRACT, TASK_SYNC_INDEX
from memwarden_shared.delivery.publish import group_by_route
from memwarden_shared.delivery.relay import relay_once
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import outbox


def test_group_by_route__one_task_per_destination_and_chunk() -> None:
    events = [
        OutboxEvent(
            i,
            Topic.TURN_RECEIVED if i % 2 else Topic.MEMORY_COMMITTED,
            f"k{i}",
            "t",
            {"memory_id": f"m{i}"},
        )
        for i in range(10)
    ]
    batches = group_by_route(events, max_batch=3)
    sizes = Counter((task, len(envs)) for task, _queue, envs in batches)
    assert sizes == Counter(
        {
            (TASK_EXTRACT, 3): 1,
            (TASK_EXTRACT, 2): 1,
            (TASK_SYNC_INDEX, 3): 1,
            (TASK_SYNC_INDEX, 2): 1,
        }
    )


@pytest.mark.postgres
def test_relay__several_relays_publish_every_row_exactly_once(
    pg_engine: Engine, tenant: str
) -> None:
    rows = 600
    with unit_of_work(pg_engine) as uow:
        emit_many(
            uow.conn,
            [
                (
                    Topic.TURN_RECEIVED,
                    f"{tenant}:{i}",
                    tenant,
                    {"message_id": str(i), "revision": 1},
                )
                for i in range(rows)
            ],
        )
        uow.commit()
    published: list[str] = []
    calls: list[int] = []
    lock = threading.Lock()

    def publish(task: str, queue: str, envelopes: list[dict[str, Any]]) -> None:
        with lock:
            published.extend(e["key"] for e in envelopes if e["tenant_id"] == tenant)
            calls.append(len(envelopes))

    def relay() -> None:
        while relay_once(pg_engine, publish, limit=50):
            pass

    threads = [threading.Thread(target=relay) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(published) == sorted(f"{tenant}:{i}" for i in range(rows))
    assert max(calls) <= 50
    with pg_engine.connect() as conn:
        unsent = conn.execute(
            select(func.count())
            .select_from(outbox)
            .where(outbox.c.tenant_id == tenant, outbox.c.sent_at.is_(None))
        ).scalar_one()
    assert unsent == 0


@pytest.mark.postgres
def test_relay__a_failed_publish_leaves_rows_unsent_for_the_next_round(
    pg_engine: Engine, tenant: str
) -> None:
    with unit_of_work(pg_engine) as uow:
        emit_many(uow.conn, [(Topic.TURN_RECEIVED, f"{tenant}:x", tenant, {})])
        uow.commit()

    def broken(task: str, queue: str, envelopes: list[dict[str, Any]]) -> None:
        raise ConnectionError("broker down")

    with pytest.raises(ConnectionError):
        while relay_once(pg_engine, broken, limit=10_000):
            pass
    seen: list[str] = []
    while relay_once(
        pg_engine, lambda t, q, envs: seen.extend(e["key"] for e in envs), limit=10_000
    ):
        pass
    assert f"{tenant}:x" in seen
