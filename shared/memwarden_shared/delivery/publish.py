"""One way to send outbox events to their stages, over any carrier (SPEC §8.1).

A :class:`Publisher` carries one task's batch of envelopes to a stage; it raises when the
batch was not accepted. Two carriers implement it: :func:`celery_publisher` (the broker)
and :func:`in_process_publisher` (the embedded mode: the stage's handler runs here). Three
paths feed events to a publisher, all through :func:`send_events`, and differ only in which
rows they take and when: the relay (claimed rows, ``relay.relay_once``), the direct handoff
(a writer's own rows after its commit, ``handoff.publish``) and the embedded drain (every
unconsumed row, ``relay.drain_in_process``). Routes come from the one table,
``delivery.pipeline``.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from celery import Celery

from memwarden_shared.contract.models import FEED_ONLY_TOPICS
from memwarden_shared.delivery.events import OutboxEvent
from memwarden_shared.delivery.pipeline import ROUTES

log = logging.getLogger("memwarden.relay")

Envelopes = list[dict[str, Any]]


class Publisher(Protocol):
    """Carries one batch to a stage: (task name, queue, envelopes); raises if refused."""

    def __call__(self, task: str, queue: str, envelopes: Envelopes, /) -> None: ...


def group_by_route(events: list[OutboxEvent], max_batch: int) -> list[tuple[str, str, Envelopes]]:
    """One task per destination and chunk: a task carries a batch of keys, not one event.
    Feed-only events have no destination and are left out; so is an unknown topic (logged)."""
    grouped: dict[tuple[str, str], Envelopes] = defaultdict(list)
    for event in events:
        route = ROUTES.get(event.topic)
        if route is None:
            if event.topic not in FEED_ONLY_TOPICS:  # those are read by the event feed
                log.error("outbox row %s has unknown topic %s; not routed", event.id, event.topic)
            continue
        grouped[(route.task, route.queue)].append(event.envelope())
    batches = []
    for (task, queue), envelopes in grouped.items():
        for i in range(0, len(envelopes), max_batch):
            batches.append((task, queue, envelopes[i : i + max_batch]))
    return batches


def send_events(
    events: list[OutboxEvent], publish: Publisher, max_batch: int, sent: list[int]
) -> int:
    """Publish ``events`` grouped by route; returns how many tasks were sent. The ids of the
    events sent are appended to ``sent`` as each batch is accepted, so after a failure the
    caller knows which ones went (the publisher's error is raised)."""
    tasks = 0
    for task, queue, envelopes in group_by_route(events, max_batch):
        publish(task, queue, envelopes)
        sent.extend(env["id"] for env in envelopes)
        tasks += 1
    return tasks


def celery_publisher(app: Celery) -> Publisher:
    """The broker carrier: one Celery message per batch, on the stage's queue."""

    def publish(task: str, queue: str, envelopes: Envelopes, /) -> None:
        # argsrepr is what Flower, task events and `celery inspect` show: counts, not payloads.
        app.send_task(
            task, args=[envelopes], queue=queue, argsrepr=f"[<{len(envelopes)} outbox events>]"
        )

    return publish


class NoHandler(LookupError):
    """The embedded drain met a task no handler was registered for in this process."""


def in_process_publisher(handlers: Mapping[str, Callable[[Envelopes], object]]) -> Publisher:
    """The embedded carrier: run the handler registered under the task's name, here and now.
    ``handlers`` comes from the layer that imports the stages (``memwarden_usecases``)."""

    def publish(task: str, _queue: str, envelopes: Envelopes, /) -> None:
        handler = handlers.get(task)
        if handler is None:
            raise NoHandler(f"no handler for task {task} in this process")
        handler(envelopes)

    return publish
