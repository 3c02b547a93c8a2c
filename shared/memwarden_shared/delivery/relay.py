"""The outbox relay: claim due rows (the claim marks them published), publish them batched
per destination (SPEC §8.1).

Polling is the guarantee. Rows published but not consumed within the redelivery deadline
are claimed and published again by any relay; consumers are idempotent, so at-least-once
is enough and a lost broker message costs at most that deadline.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
from sqlalchemy import Connection, Engine, func, select

from memwarden_shared.config import get_settings
from memwarden_shared.delivery.dead_letters import dead_letter
from memwarden_shared.delivery.events import OutboxEvent
from memwarden_shared.delivery.outbox import (
    NOTIFY_CHANNEL,
    claim_batch,
    mark_consumed,
    mark_published,
    pending_events,
    release,
    wake_stranded,
)
from memwarden_shared.delivery.pipeline import ROUTES, busy_topics, idle_topics
from memwarden_shared.delivery.publish import Publisher, send_events
from memwarden_shared.delivery.queues import BusyQueues
from memwarden_shared.delivery.retry import backoff_delays, is_transient, redacted
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.dialect import has_notify, in_list
from memwarden_shared.store.schema import outbox
from memwarden_shared.store.tenant_scope import all_tenants

log = logging.getLogger("memwarden.relay")


@dataclass(frozen=True)
class RelayTimings:
    """How a relay claims: its lease, and when an unconsumed published row is due again."""

    lease_seconds: float = 30.0
    redeliver_seconds: float = 30.0

    @classmethod
    def from_settings(cls) -> RelayTimings:
        s = get_settings()
        return cls(s.relay_lease_seconds, s.redeliver_seconds)


@all_tenants("the relay claims outbox rows of every tenant")
def relay_once(
    engine: Engine,
    publish: Publisher,
    limit: int,
    timings: RelayTimings | None = None,
    busy_queues: BusyQueues | None = None,
) -> int:
    """Claim up to ``limit`` rows, publish them; returns how many were claimed.

    The claim marks the rows published and commits before publishing, so no row lock is
    held while the broker is slow, and a usual round writes each row once (no mark after
    the broker took them). Their ``sent_at`` keeps other relays off meanwhile. A crash
    after the claim, before or after the broker took the rows, republishes them once the
    redelivery deadline passes (consumers are idempotent); rows the broker refused are
    released at once."""
    events = _claim(engine, limit, timings or RelayTimings.from_settings(), busy_queues)
    if not events:
        return 0
    _log_claim(events)
    sent: list[int] = []
    try:
        tasks = send_events(events, publish, limit, sent)
    except BaseException:
        with single_statements(engine) as conn:
            release(conn, sorted({e.id for e in events} - set(sent)))
        raise
    unroutable = [e for e in events if e.topic not in ROUTES]
    if unroutable:  # the usual round writes nothing more
        with unit_of_work(engine) as uow:
            _retire_unroutable(uow.conn, unroutable)
            uow.commit()
    log.info("relay published rows=%d tasks=%d", len(sent), tasks)
    return len(events)


def _claim(
    engine: Engine, limit: int, timings: RelayTimings, busy_queues: BusyQueues | None
) -> list[OutboxEvent]:
    busy = None if busy_queues is None else busy_queues()
    with single_statements(engine) as conn:
        return claim_batch(
            conn,
            limit,
            lease_seconds=timings.lease_seconds,
            redeliver_seconds=timings.redeliver_seconds,
            redeliver_topics=None if busy is None else idle_topics(busy),
            # Back-pressure: while a stage still has a message waiting, its new rows stay
            # in the outbox and go later as one bigger batch. A slow stage then receives
            # fewer, larger messages and catches up, instead of working through a queue
            # of one-event messages at its per-message cost.
            waiting_topics=() if busy is None else busy_topics(busy),
        )


def _log_claim(events: list[OutboxEvent]) -> None:
    again = [e for e in events if e.publish_count > 0]
    log.info("relay claimed rows=%d redeliveries=%d", len(events), len(again))
    if again:  # one line per round, not per row: a held-back batch comes round every second
        log.info(
            "redelivery rows=%d topics=%s outbox_ids=%s%s",
            len(again),
            ",".join(sorted({e.topic for e in again})),
            [e.id for e in again[:10]],
            "…" if len(again) > 10 else "",
        )


def _retire_unroutable(conn: Connection, unroutable: list[OutboxEvent]) -> None:
    """Nobody will ever consume these: dead letters, consumed, not a redelivery loop."""
    for e in unroutable:
        dead_letter(conn, "relay", e.envelope(), UnknownTopic(e.topic))
    mark_consumed(conn, [e.id for e in unroutable])


@all_tenants("the relay's safety net wakes parked rows of every tenant")
def sweep_parked(engine: Engine) -> int:
    """Wake parked rows whose older events are all consumed (``outbox.wake_stranded``).
    Consumers wake what they unblock; this covers whatever consumed an event without
    waking (a dead letter discarded by hand, rows parked by an older release)."""
    with single_statements(engine) as conn:
        woke = wake_stranded(conn)
    if woke:
        log.warning("relay woke %d stranded parked rows", woke)
    return woke


@contextlib.contextmanager
def single_statements(engine: Engine) -> Iterator[Connection]:
    """A connection for work that is one statement (a claim, a release), in a unit of work
    of its own.

    Not autocommit, though it would save the BEGIN and COMMIT round trips: row-level
    security scopes a transaction (``set_config(..., is_local => true)`` at BEGIN, see
    ``store.db``), and in autocommit that setting would end with its own statement, so
    the claim would see no tenant's rows. A session-level setting would outlive the
    statement on a pooled connection."""
    with unit_of_work(engine) as uow:
        yield uow.conn
        uow.commit()


class UnknownTopic(ValueError):
    """An outbox row whose topic routes to no stage."""


def run_relay(
    engine: Engine,
    publish: Publisher,
    *,
    limit: int,
    poll_seconds: float,
    stop: threading.Event | None = None,
    after_round: Callable[[int], None] | None = None,
    timings: RelayTimings | None = None,
    busy_queues: BusyQueues | None = None,
) -> None:
    """Relay until ``stop`` is set; when the outbox is empty it waits ``poll_seconds``, or less
    on PostgreSQL, where a NOTIFY from a committing writer wakes it at once.

    A failed round (broker or database down) logs one line and backs off exponentially with
    jitter; the rows stay in the outbox. ``after_round(moved)`` runs after each successful
    round (metrics) and must not raise."""
    stop = stop or threading.Event()
    settings = get_settings()
    timings = timings or RelayTimings.from_settings()
    listener = Listener(engine, poll_seconds, stop)
    delays = None
    swept = 0.0  # the safety-net sweep runs once per redelivery deadline
    try:
        while not stop.is_set():
            try:
                # Wake-ups already queued are answered by the claim below; a NOTIFY that
                # arrives after this point wakes the next wait at once.
                listener.take_pending()
                if time.monotonic() - swept >= timings.redeliver_seconds:
                    sweep_parked(engine)
                    swept = time.monotonic()
                moved = relay_once(engine, publish, limit, timings, busy_queues)
            except Exception as exc:  # a broker or database outage must not kill the relay
                delays = delays or backoff_delays(
                    settings.backoff_base_seconds, settings.backoff_max_seconds
                )
                delay = max(next(delays), poll_seconds)
                kind = "transient" if is_transient(exc) else "unexpected"
                log.warning(
                    "relay round failed (%s %s); rows stay in the outbox; retrying in %.1fs",
                    kind,
                    redacted(exc),
                    delay,
                )
                stop.wait(delay)
                continue
            if delays is not None:
                log.info("relay recovered")
                delays = None
            if after_round is not None:
                after_round(moved)
            # A short round emptied what was claimable: with LISTEN, wait for the next
            # commit rather than spend a round trip on a claim that finds nothing.
            if not moved or (listener.enabled and moved < limit):
                listener.wait()
    finally:
        listener.close()


class Listener:
    """Waits for a NOTIFY on PostgreSQL, on a dedicated connection outside the pool (LISTEN
    needs autocommit, which must never leak into a pooled connection that later runs a
    claim). After a lost connection (database restart) it subscribes again on the next
    wait; until then it sleeps ``poll_seconds``, and polling stays the guarantee."""

    def __init__(self, engine: Engine, poll_seconds: float, stop: threading.Event) -> None:
        self.engine = engine
        self.poll_seconds = poll_seconds
        self.stop = stop
        self.conn: Any = None
        self.enabled = has_notify(engine)
        self._failing = False

    def _subscribe(self) -> Any:
        url = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        conn = psycopg.connect(url, autocommit=True, connect_timeout=5)
        conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
        return conn

    def wait(self) -> None:
        if not self.enabled:
            self.stop.wait(self.poll_seconds)
            return
        if not self._listen(self.poll_seconds, stop_after=1):
            self.stop.wait(self.poll_seconds)

    def take_pending(self) -> None:
        """Consume the notifications already received, without waiting: the caller is about
        to read the outbox, which answers all of them. Subscribes first if needed, so no
        commit after this call goes unnoticed."""
        if self.enabled and not self._failing:  # after a loss, ``wait`` subscribes again
            self._listen(0, stop_after=None)

    def _listen(self, timeout: float, stop_after: int | None) -> bool:
        """False when the connection is lost (the caller falls back to polling)."""
        try:
            if self.conn is None:
                self.conn = self._subscribe()
                if self._failing:
                    log.info("LISTEN subscribed again")
                self._failing = False
            for _ in self.conn.notifies(timeout=timeout, stop_after=stop_after):
                pass
            return True
        except Exception as exc:  # a dropped listener only costs latency; polling goes on
            if not self._failing:
                log.warning("LISTEN connection lost (%s); polling until it is back", redacted(exc))
            self._failing = True
            self.close()
            return False

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):  # already broken
                self.conn.close()
            self.conn = None


@all_tenants("embedded drain: the outbox of every tenant")
def drain_in_process(
    engine: Engine, run_task: Publisher, *, limit: int = 200, max_rounds: int = 10_000
) -> int:
    """Embedded mode: run every unconsumed event's task in this process until none is left.

    Nothing is in flight in another process, so every row not consumed is work to do. The
    read is released before the tasks run (on SQLite they need the write lock); each
    consumer marks its rows consumed in its own transaction, so a crash re-runs them.

    A round that consumes nothing (every event held back for an older event of its subject
    outside the round, or taken by a concurrent drainer) is retried wider and after a short
    pause; after a few such rounds it raises: embedded mode fails loudly.
    """
    total = 0
    size, stalls = limit, 0
    for _ in range(max_rounds):
        with unit_of_work(engine) as uow:
            events = pending_events(uow.conn, size)
        if not events:
            return total
        send_events(events, run_task, limit, [])
        ids = [e.id for e in events]
        with unit_of_work(engine) as uow:
            mark_published(uow.conn, ids)
            _retire_unroutable(uow.conn, [e for e in events if e.topic not in ROUTES])
            left = uow.conn.execute(
                select(func.count())
                .select_from(outbox)
                .where(in_list(uow.conn, outbox.c.id, ids), outbox.c.consumed_at.is_(None))
            ).scalar_one()
            uow.commit()
        total += len(ids) - left
        if left < len(ids):
            size, stalls = limit, 0
            continue
        stalls += 1
        if stalls > DRAIN_STALLS:
            raise RuntimeError(f"{left} outbox events were not consumed; see the log")
        size *= 4
        time.sleep(min(0.05 * 2**stalls, 2.0))
    raise RuntimeError("outbox did not drain; a task keeps emitting events")


# rounds without progress before an embedded drain gives up (about 6 s of pauses)
DRAIN_STALLS = 6
