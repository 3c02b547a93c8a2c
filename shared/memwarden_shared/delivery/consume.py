"""The consumer runner every stage's task uses (SPEC §8.1).

One transaction per batch holds, per event: the inbox row ``(stage, event key)``, the
stage's effects, and ``consumed_at`` on the event's outbox row. So an event is either
fully applied and consumed, or not at all and redelivered by a relay after the deadline.

- events already in the inbox are skipped (and marked consumed: their first run was);
- an ordered stage holds events back while an older event of the same subject is
  unconsumed (``outbox.held_back``): they are *parked*, and whichever consumer consumes
  that older event wakes them in its own transaction (``outbox.queue_wake``), so a held
  event is published again once, when it can go, and never polled for;
- every batch whose events carry a subject order takes that subject's lock first
  (``dialect.lock_names``): a park and the wake that must follow it never interleave;
- a permanent error is isolated: if the batch fails, it is rolled back and run again with
  a savepoint per event; the one that fails again becomes a dead letter and
  counts as consumed, the rest commit;
- a transient error (see ``delivery.retry``) rolls the whole batch back and retries it with
  exponential backoff and jitter; after ``consumer_attempts`` tries it gives up with
  :class:`RetriesExhausted`, and the outbox redelivers the events later.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine

from memwarden_shared.config import get_settings
from memwarden_shared.delivery.dead_letters import dead_letter
from memwarden_shared.delivery.inbox import new_keys, queue_first_deliveries
from memwarden_shared.delivery.outbox import (
    held_back,
    queue_mark_consumed,
    queue_park,
    queue_wake,
)
from memwarden_shared.delivery.retry import backoff_delays, is_transient, redacted
from memwarden_shared.observe import metrics
from memwarden_shared.store.db import Batch, get_engine, unit_of_work
from memwarden_shared.store.dialect import lock_names
from memwarden_shared.store.tenant_scope import all_tenants

log = logging.getLogger("memwarden.consume")

# (the caller's connection, fresh envelopes) -> anything; runs inside the runner's transaction
Handler = Callable[[Connection, list[dict[str, Any]]], Any]


class RetriesExhausted(RuntimeError):
    """A batch kept failing transiently; nothing was committed and the outbox redelivers."""


@dataclass
class ConsumeResult:
    processed: int = 0  # fresh events handed to the stage (dead letters included)
    duplicates: int = 0  # already in the inbox
    held: int = 0  # waiting for an older event of their subject
    dead: int = 0
    results: list[Any] = field(default_factory=list)  # what the handler returned, per call


@all_tenants("a consumer's batch holds events of many tenants")
def consume(
    stage: str,
    envelopes: list[dict[str, Any]],
    handler: Handler,
    *,
    engine: Engine | None = None,
    ordered: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> ConsumeResult:
    """Apply ``handler`` to the fresh events of ``envelopes`` for ``stage`` (see module doc).

    ``ordered`` turns on holding back events whose envelope carries an ``order`` pair."""
    settings = get_settings()
    engine = engine or get_engine()
    delays: Iterator[float] = backoff_delays(
        settings.backoff_base_seconds, settings.backoff_max_seconds
    )
    started = time.monotonic()
    for attempt in range(1, settings.consumer_attempts + 1):
        try:
            result = _consume_once(stage, envelopes, handler, engine, ordered)
        except Exception as exc:
            if not is_transient(exc):
                raise
            metrics.CONSUMER_RETRIES.labels(stage).inc()
            if attempt == settings.consumer_attempts:
                log.warning(
                    "stage=%s gave up a batch of %d after %d tries (%s); the outbox redelivers it",
                    stage,
                    len(envelopes),
                    attempt,
                    redacted(exc),
                )
                raise RetriesExhausted(stage) from exc
            delay = next(delays)
            log.warning(
                "stage=%s transient failure (%s); retry %d/%d in %.2fs",
                stage,
                redacted(exc),
                attempt,
                settings.consumer_attempts - 1,
                delay,
            )
            sleep(delay)
            continue
        duration = time.monotonic() - started
        metrics.observe_batch(stage, result, duration)
        log.info(
            "stage=%s batch events=%d fresh=%d duplicates=%d held=%d dead=%d duration=%.3fs",
            stage,
            len(envelopes),
            result.processed,
            result.duplicates,
            result.held,
            result.dead,
            duration,
        )
        return result
    raise AssertionError("unreachable")  # pragma: no cover


class _BatchFailed(Exception):
    """The handler failed a whole batch for a permanent reason; its transaction is aborted."""


def _consume_once(
    stage: str, envelopes: list[dict[str, Any]], handler: Handler, engine: Engine, ordered: bool
) -> ConsumeResult:
    """The batch in one transaction. The usual batch runs without savepoints (two round
    trips each); one that fails is rolled back and run again with a savepoint per event,
    so only the poison event is set aside."""
    try:
        return _consume_in_transaction(stage, envelopes, handler, engine, ordered, False)
    except _BatchFailed as failed:
        log.warning(
            "stage=%s batch of %d failed (%s); isolating the event that causes it",
            stage,
            len(envelopes),
            redacted(failed.__cause__ or failed),
        )
    return _consume_in_transaction(stage, envelopes, handler, engine, ordered, True)


def _consume_in_transaction(
    stage: str,
    envelopes: list[dict[str, Any]],
    handler: Handler,
    engine: Engine,
    ordered: bool,
    isolate: bool,
) -> ConsumeResult:
    out = ConsumeResult()
    with unit_of_work(engine) as uow:
        conn = uow.conn
        lock_names(conn, _orders(envelopes))
        held = _held(conn, envelopes) if ordered else set()
        active = [e for e in envelopes if e.get("id") not in held]
        keys = sorted({e["key"] for e in active if e.get("key")})
        fresh = _fresh(active, _book(conn, stage, sorted(held), active, keys))
        out.held = len(held)
        out.duplicates = len(active) - len(fresh)
        out.processed = len(fresh)
        if fresh:
            _apply(conn, stage, handler, fresh, out, isolate)
        # after the effects: an event the handler emitted may now be first in its order
        wake = Batch(conn)
        queue_wake(wake, _orders(active))
        wake.send()
        uow.commit()
    return out


def _orders(envelopes: list[dict[str, Any]]) -> set[str]:
    """The subject orders (``ordering_key``) the envelopes take part in."""
    return {str(e["order"][0]) for e in envelopes if e.get("order") and e["order"][0]}


def _held(conn: Connection, envelopes: list[dict[str, Any]]) -> set[int]:
    """The ids to hold back: an older event of their subject is still unconsumed."""
    return held_back(
        conn,
        [
            (e["id"], e["order"][0], int(e["order"][1]))
            for e in envelopes
            if isinstance(e.get("id"), int) and e.get("order") and e["order"][0]
        ],
    )


def _fresh(active: list[dict[str, Any]], first: set[str]) -> list[dict[str, Any]]:
    """The events to apply: those whose key the inbox saw for the first time (``first``),
    each key once, and raw task arguments (no key: no outbox row, no inbox entry)."""
    unseen = set(first)
    fresh = []
    for env in active:
        key = env.get("key")
        if not key:
            fresh.append(env)
        elif key in unseen:
            fresh.append(env)
            unseen.discard(key)  # the same key twice in one batch runs once
    return fresh


def _apply(
    conn: Connection,
    stage: str,
    handler: Handler,
    fresh: list[dict[str, Any]],
    out: ConsumeResult,
    isolate: bool,
) -> None:
    """The handler on the whole batch; or, isolating, one savepoint per event."""
    if isolate:
        _apply_one_by_one(conn, stage, handler, fresh, out)
        return
    try:
        out.results.append(handler(conn, fresh))
    except Exception as exc:
        if is_transient(exc):
            raise
        raise _BatchFailed(stage) from exc


def _book(
    conn: Connection, stage: str, held: list[int], active: list[dict[str, Any]], keys: list[str]
) -> set[str]:
    """The batch's bookkeeping before its effects: held events parked, the inbox (returns
    the keys seen for the first time), and ``consumed_at`` on every active event.
    Marking before the effects is safe: it is the same transaction, so it commits with them
    or not at all. One round trip on PostgreSQL (SQLite runs the three one by one)."""
    ids = [e["id"] for e in active if isinstance(e.get("id"), int)]
    batch = Batch(conn)
    queue_park(batch, held)
    step = queue_first_deliveries(batch, stage, keys)
    queue_mark_consumed(batch, ids)
    batch.send()
    return new_keys(step)


def _apply_one_by_one(
    conn: Connection,
    stage: str,
    handler: Handler,
    fresh: list[dict[str, Any]],
    out: ConsumeResult,
) -> None:
    for env in fresh:  # one savepoint per event: only the poison one is set aside
        try:
            with conn.begin_nested():
                out.results.append(handler(conn, [env]))
        except Exception as exc:
            if is_transient(exc):
                raise
            dead_letter(conn, stage, env, exc)
            out.dead += 1
