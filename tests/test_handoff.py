"""Direct handoff (delivery.handoff): a committing writer publishes its new events to
the broker, written as published; the relay stays the guarantee. Real PostgreSQL and Redis."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from sqlalchemy import Engine, select

from memwarden_shared.config import get_settings
from memwarden_shared.contract.models import Topic
from memwarden_shared.delivery.outbox import emit_many
from memwarden_shared.delivery.relay import relay_once
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import outbox
from tests.conftest import REDIS_URL

pytestmark = [pytest.mark.postgres, pytest.mark.redis]
QUEUES = ["extractor", "gate", "revalidation", "vector_sink"]


@pytest.fixture
def broker(monkeypatch: pytest.MonkeyPatch) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(REDIS_URL)
    client.delete(*QUEUES)
    monkeypatch.setenv("MEMWARDEN_BROKER_URL", REDIS_URL)
    monkeypatch.setenv("MEMWARDEN_DIRECT_HANDOFF", "true")
    get_settings.cache_clear()
    yield client
    client.delete(*QUEUES)
    get_settings.cache_clear()


def _turns(tenant: str, names: list[str]) -> list[tuple[Any, ...]]:
    return [
        (Topic.TURN_RECEIVED, f"{tenant}:{n}", tenant, {"message_id": n, "revision": 1})
        for n in names
    ]


def _queued(client: redis.Redis, queue: str) -> list[list[dict[str, Any]]]:
    """The envelope lists of the tasks waiting in ``queue`` (kombu's JSON messages)."""
    out = []
    for raw in client.lrange(queue, 0, -1):
        message = json.loads(raw)
        args, _kwargs, _embed = json.loads(base64.b64decode(message["body"]))
        out.append(args[0])
    return out


def _rows(engine: Engine, tenant: str) -> dict[str, Any]:
    with unit_of_work(engine) as uow:
        rows = uow.conn.execute(select(outbox).where(outbox.c.tenant_id == tenant)).all()
    return {r.event_key: r for r in rows}


def test_committed_events__are_written_published_and_sent_as_one_task(
    pg_engine: Engine, tenant: str, broker: redis.Redis
) -> None:
    with unit_of_work(pg_engine) as uow:
        emit_many(uow.conn, _turns(tenant, ["a", "b", "c"]))
        assert broker.llen("extractor") == 0  # nothing leaves before the commit
        uow.commit()
    tasks = _queued(broker, "extractor")
    assert len(tasks) == 1
    assert [e["key"] for e in tasks[0]] == [f"{tenant}:{n}" for n in "abc"]
    rows = _rows(pg_engine, tenant)
    assert {e["id"] for e in tasks[0]} == {r.id for r in rows.values()}
    assert all(r.sent_at is not None and r.publish_count == 1 for r in rows.values())
    assert all(r.consumed_at is None for r in rows.values())  # the consumer marks it


def test_rolled_back_work__hands_off_nothing_and_a_failed_savepoint_drops_its_events(
    pg_engine: Engine, tenant: str, broker: redis.Redis
) -> None:
    with unit_of_work(pg_engine) as uow:
        emit_many(uow.conn, _turns(tenant, ["gone"]))  # never committed
    with unit_of_work(pg_engine) as uow:
        emit_many(uow.conn, _turns(tenant, ["kept"]))
        with pytest.raises(RuntimeError), uow.conn.begin_nested():
            emit_many(uow.conn, _turns(tenant, ["undone"]))
            raise RuntimeError("poison")
        uow.commit()
    assert [[e["key"] for e in t] for t in _queued(broker, "extractor")] == [[f"{tenant}:kept"]]
    assert set(_rows(pg_engine, tenant)) == {f"{tenant}:kept"}


def test_busy_queue__leaves_rows_to_the_relay_which_sends_them_as_one_batch(
    pg_engine: Engine, tenant: str, broker: redis.Redis
) -> None:
    broker.rpush("extractor", b"a message a worker has not taken yet")
    for name in ("x", "y"):
        with unit_of_work(pg_engine) as uow:
            emit_many(uow.conn, _turns(tenant, [name]))
            uow.commit()
    rows = _rows(pg_engine, tenant)
    assert all(r.sent_at is None for r in rows.values())  # back-pressure: left for the relay
    broker.delete("extractor")
    sent: list[tuple[str, list[dict[str, Any]]]] = []
    relay_once(pg_engine, lambda task, queue, envs: sent.append((queue, envs)), limit=100)
    mine = [[e["key"] for e in envs if e["tenant_id"] == tenant] for _q, envs in sent]
    assert [f"{tenant}:x", f"{tenant}:y"] in mine


def test_unreachable_broker__leaves_rows_unsent_for_the_relay(
    pg_engine: Engine, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMWARDEN_BROKER_URL", "redis://127.0.0.1:1/0")  # nothing listens
    monkeypatch.setenv("MEMWARDEN_DIRECT_HANDOFF", "true")
    get_settings.cache_clear()
    try:
        with unit_of_work(pg_engine) as uow:
            emit_many(uow.conn, _turns(tenant, ["q"]))
            uow.commit()
    finally:
        get_settings.cache_clear()
    (row,) = _rows(pg_engine, tenant).values()
    assert row.sent_at is None and row.publish_count == 0


def test_handoff_off_by_default__every_row_waits_for_a_relay(
    pg_engine: Engine, tenant: str, broker: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMWARDEN_DIRECT_HANDOFF")
    get_settings.cache_clear()
    with unit_of_work(pg_engine) as uow:
        emit_many(uow.conn, _turns(tenant, ["r"]))
        uow.commit()
    assert broker.llen("extractor") == 0
    (row,) = _rows(pg_engine, tenant).values()
    assert row.sent_at is None
