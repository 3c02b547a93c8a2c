"""Stage handlers called in process, fed with envelopes built from real outbox rows: the
same task entry points the Celery workers run (as the embedded drain calls them), without a
broker, so a test decides exactly which events arrive, in which order and how often."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, column, inspect, select

from memwarden_shared.delivery.celery_app import app
from memwarden_shared.delivery.pipeline import ROUTES
from memwarden_shared.store.db import engine_scope
from memwarden_shared.store.schema import outbox
from memwarden_usecases import pipeline  # noqa: F401  (registers every stage's task)


def envelope_of(row: Any) -> dict[str, Any]:
    """An outbox row as a relay would publish it (with its subject order where the schema
    records one, SPEC §8.1)."""
    m = row._mapping
    env: dict[str, Any] = {
        "id": m["id"],
        "topic": m["topic"],
        "key": m["event_key"],
        "tenant_id": m["tenant_id"],
        "payload": json.loads(m["payload"]),
    }
    if m.get("ordering_key") is not None:
        env["order"] = [m["ordering_key"], m["ordering_seq"]]
    return env


def outbox_envelopes(
    engine: Engine, tenant: str, topics: set[str] | None = None, after_id: int = 0
) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        stmt = (
            select(outbox)
            .where(outbox.c.tenant_id == tenant, outbox.c.id > after_id)
            .order_by(outbox.c.id)
        )
        if topics:
            stmt = stmt.where(outbox.c.topic.in_(sorted(topics)))
        return [envelope_of(r) for r in conn.execute(stmt)]


def unconsumed_envelopes(engine: Engine, tenant: str, topics: set[str]) -> list[dict[str, Any]]:
    """Events of ``topics`` no consumer has consumed yet; empty on a schema without the
    consumed state (there every delivered event counts as done)."""
    with engine.connect() as conn:
        if "consumed_at" not in {c["name"] for c in inspect(conn).get_columns("outbox")}:
            return []
        stmt = (
            select(outbox)
            .where(
                outbox.c.tenant_id == tenant,
                outbox.c.topic.in_(sorted(topics)),
                column("consumed_at").is_(None),
            )
            .order_by(outbox.c.id)
        )
        return [envelope_of(r) for r in conn.execute(stmt)]


def redeliver_held(engine: Engine, tenant: str, topics: set[str], rounds: int = 20) -> None:
    """What a relay does after the deadline, in process: deliver again every event a
    consumer left unconsumed (held back behind an older event of its subject, SPEC §8.1)."""
    for _ in range(rounds):
        waiting = unconsumed_envelopes(engine, tenant, topics)
        if not waiting:
            return
        deliver(engine, waiting)


def deliver(engine: Engine, envelopes: list[dict[str, Any]]) -> None:
    """Run each destination's task on its share of ``envelopes``, in this thread."""
    by_task: dict[str, list[dict[str, Any]]] = {}
    for env in envelopes:
        task, _stage = ROUTES[env["topic"]]
        by_task.setdefault(task, []).append(env)
    with engine_scope(engine):
        for task, batch in by_task.items():
            app.tasks[task].apply(args=(batch,), throw=True)


def run_at_barrier(jobs: list[Callable[[], Any]]) -> list[BaseException | None]:
    """Start every job at the same instant (threading.Barrier); each one's exception or None."""
    barrier = threading.Barrier(len(jobs))
    errors: list[BaseException | None] = [None] * len(jobs)

    def worker(i: int) -> None:
        barrier.wait()
        try:
            jobs[i]()
        except BaseException as exc:  # collected and asserted on by the caller
            errors[i] = exc

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return errors
