"""Direct handoff: a committing stage publishes its own new events (SPEC §8.1, issue 14).

Through the relay every hop costs a wake-up, a claim, a publish and a mark: three
transactions and tens of milliseconds per stage. With a broker configured, an event whose
topic routes to a stage is instead written already *published* (``sent_at`` = now,
``publish_count`` 1) and, once the writer's unit of work has committed, handed to the broker
by the writer itself, one task per destination. Only while the destination's queue is
empty, though: a queue that still holds a message means the stage is behind, and its rows
are left to the relay, which sends them later as one bigger batch (back-pressure). Nothing
else changes: the row is the truth,
the consumer marks it consumed in its own transaction, and a relay republishes any row that
is not consumed within ``MEMWARDEN_REDELIVER_SECONDS``. So a writer that dies between its
commit and its publish, or a publish the broker refuses, costs what a lost broker message
already costs: one redelivery deadline, never the event.
"""

from __future__ import annotations

import logging
import time

from celery import Celery
from sqlalchemy import Connection

from memwarden_shared.config import get_settings
from memwarden_shared.delivery.celery_app import app, make_app
from memwarden_shared.delivery.events import OutboxEvent
from memwarden_shared.delivery.publish import celery_publisher, send_events
from memwarden_shared.delivery.queues import BusyQueues, redis_busy_queues
from memwarden_shared.delivery.retry import redacted
from memwarden_shared.store.dialect import is_embedded_store

log = logging.getLogger("memwarden.handoff")


def enabled(conn: Connection) -> bool:
    """Hand off on this connection: PostgreSQL (the distributed store), a broker, and the
    setting on."""
    settings = get_settings()
    return not is_embedded_store(conn) and bool(settings.broker_url) and settings.direct_handoff


_busy_reader: tuple[str, BusyQueues | None] | None = None  # (broker URL, its reader)
_apps: dict[str, Celery] = {}  # broker URL -> Celery app


def _app() -> Celery:
    """The process's Celery app when it talks to the configured broker (a worker's), else
    one made for that broker once."""
    url = get_settings().broker_url
    if app.conf.broker_url == url:
        return app
    if url not in _apps:
        _apps[url] = make_app()
    return _apps[url]


# A writer asks Redis inside its transaction, so the question must be quick, and after a
# failure it is not asked again for a while: a hung broker must not slow every commit.
QUEUE_CHECK_TIMEOUT_SECONDS = 0.25
RETRY_AFTER_FAILURE_SECONDS = 5.0
_quiet_until = 0.0


def busy_stages() -> set[str] | None:
    """The stage queues that hold a message now; None when that cannot be known (a broker
    other than Redis, or Redis unreachable): then nothing is handed off."""
    global _busy_reader, _quiet_until
    url = get_settings().broker_url
    if _busy_reader is None or _busy_reader[0] != url:
        _busy_reader = (url, redis_busy_queues(url, QUEUE_CHECK_TIMEOUT_SECONDS))
        _quiet_until = 0.0
    reader = _busy_reader[1]
    if reader is None or time.monotonic() < _quiet_until:
        return None
    try:
        return set(reader())
    except Exception as exc:  # Redis down: the relay path still works once it is back
        _quiet_until = time.monotonic() + RETRY_AFTER_FAILURE_SECONDS
        log.info("queue lengths unavailable (%s); events go by the relay", type(exc).__name__)
        return None


def publish(events: list[OutboxEvent]) -> None:
    """Send committed events to their stages, one task per destination and chunk of
    ``MEMWARDEN_MAX_BATCH``. A failure is logged, not raised: the rows are committed as
    published and a relay republishes them after the deadline."""
    sent: list[int] = []
    try:
        send_events(events, celery_publisher(_app()), get_settings().max_batch, sent)
    except Exception as exc:  # the broker is down: the relay's redelivery takes over
        log.warning(
            "handoff of %d events failed after %d (%s); a relay redelivers them",
            len(events),
            len(sent),
            redacted(exc),
        )
        return
    log.info("handoff published rows=%d", len(sent))
