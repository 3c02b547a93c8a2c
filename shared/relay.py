"""The outbox relay: claim unsent rows, publish them batched per destination, mark them sent.

Polling is the guarantee. A relay that publishes and then fails to commit publishes again
later; consumers are idempotent, so at-least-once is enough.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from celery import Celery
from sqlalchemy import Engine

from shared.celery_app import FEED_ONLY_TOPICS, ROUTES
from shared.db import unit_of_work
from shared.outbox import NOTIFY_CHANNEL, OutboxEvent, claim_batch, mark_sent

log = logging.getLogger("memwarden.relay")

# (task name, queue, envelopes) -> None; raises if the broker refused the message
Publisher = Callable[[str, str, list[dict[str, Any]]], None]


def group_by_route(
    events: list[OutboxEvent], max_batch: int
) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """One task per destination and chunk: a task carries a batch of keys, not one event."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        route = ROUTES.get(event.topic)
        if route is None:
            if event.topic in FEED_ONLY_TOPICS:
                continue  # read from the outbox by the event feed; nothing to publish
            log.error("outbox row %s has unknown topic %s; not routed", event.id, event.topic)
            continue
        task, stage = route
        grouped[(task, stage.value)].append(event.envelope())
    batches = []
    for (task, queue), envelopes in grouped.items():
        for i in range(0, len(envelopes), max_batch):
            batches.append((task, queue, envelopes[i : i + max_batch]))
    return batches


def relay_once(engine: Engine, publish: Publisher, limit: int) -> int:
    """Claim up to ``limit`` rows, publish them, mark them sent; returns how many."""
    with unit_of_work(engine) as uow:
        events = claim_batch(uow.conn, limit)
        if not events:
            return 0
        for task, queue, envelopes in group_by_route(events, limit):
            publish(task, queue, envelopes)
        mark_sent(uow.conn, [e.id for e in events])
        uow.commit()
    return len(events)


def celery_publisher(app: Celery) -> Publisher:
    def publish(task: str, queue: str, envelopes: list[dict[str, Any]]) -> None:
        # argsrepr is what Flower, task events and `celery inspect` show: counts, not payloads.
        app.send_task(
            task, args=[envelopes], queue=queue, argsrepr=f"[<{len(envelopes)} outbox events>]"
        )

    return publish


def run_relay(
    engine: Engine,
    publish: Publisher,
    *,
    limit: int,
    poll_seconds: float,
    stop: threading.Event | None = None,
    after_round: Callable[[int], None] | None = None,
) -> None:
    """Relay until ``stop`` is set; when the outbox is empty it waits ``poll_seconds``, or less
    on PostgreSQL, where a NOTIFY from a committing writer wakes it at once.

    ``after_round(moved)`` runs after each successful round (metrics) and must not raise."""
    stop = stop or threading.Event()
    wait = _listener(engine, poll_seconds, stop)
    while not stop.is_set():
        try:
            moved = relay_once(engine, publish, limit)
        except Exception:  # a broker or database hiccup must not kill the relay
            log.exception("relay round failed; rows stay unsent and are retried")
            stop.wait(max(poll_seconds, 1.0))
            continue
        if after_round is not None:
            after_round(moved)
        if not moved:
            wait()


def _listener(engine: Engine, poll_seconds: float, stop: threading.Event) -> Callable[[], None]:
    """A wait function: LISTEN on PostgreSQL (falls back to sleeping if that fails)."""

    def sleep() -> None:
        stop.wait(poll_seconds)

    if engine.dialect.name != "postgresql":
        return sleep
    try:
        raw = engine.raw_connection()
        conn = raw.driver_connection
        conn.autocommit = True  # type: ignore[union-attr]
        conn.execute(f"LISTEN {NOTIFY_CHANNEL}")  # type: ignore[union-attr]
    except Exception:
        log.warning("LISTEN unavailable; relying on polling every %.2fs", poll_seconds)
        return sleep

    def listen() -> None:
        try:
            for _ in conn.notifies(timeout=poll_seconds, stop_after=1):  # type: ignore[union-attr]
                pass
        except Exception:  # a dropped listener only costs latency; polling goes on
            log.warning("LISTEN connection lost; polling")
            sleep()

    return listen


def drain_in_process(
    engine: Engine, run_task: Publisher, *, limit: int = 200, max_rounds: int = 10_000
) -> int:
    """Embedded mode: run every pending event's task in this process until the outbox is empty.

    The claim is released before the tasks run (on SQLite they need the write lock), and
    rows are marked sent only after their tasks returned, so a crash re-runs them.
    """
    total = 0
    for _ in range(max_rounds):
        with unit_of_work(engine) as uow:
            events = claim_batch(uow.conn, limit)
        if not events:
            return total
        for task, queue, envelopes in group_by_route(events, limit):
            run_task(task, queue, envelopes)
        with unit_of_work(engine) as uow:
            mark_sent(uow.conn, [e.id for e in events])
            uow.commit()
        total += len(events)
    raise RuntimeError("outbox did not drain; a task keeps emitting events")
