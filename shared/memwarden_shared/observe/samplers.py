"""Gauges set by reading the store and the broker: the relay samples them after its rounds.

Above delivery and state (it reads the outbox, the candidates and the vector index);
``observe.metrics`` below it only defines the metrics.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from sqlalchemy import Engine

from memwarden_shared.config import get_settings
from memwarden_shared.delivery.outbox import backlog, delivery_health, oldest_unsent_at
from memwarden_shared.delivery.pipeline import queues
from memwarden_shared.delivery.queues import ListLengths
from memwarden_shared.observe.health import unindexed_versions
from memwarden_shared.observe.metrics import relay_gauges
from memwarden_shared.state.candidates import undecided_count
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.tenant_scope import all_tenants

log = logging.getLogger("memwarden.metrics")

# Relays poll every 0.2 s; counting the outbox that often would cost more than it tells.
SAMPLE_SECONDS = 5.0
SLOW_SAMPLE_SECONDS = 60.0
UNINDEXED_CAP = 10_000  # the gauge saturates here; the audit lists them all


@all_tenants("backlog gauges count the outbox of every tenant")
def sample_outbox(engine: Engine) -> None:
    """Set the backlog gauges from the outbox table (an index-only read on Postgres)."""
    with unit_of_work(engine) as uow:
        pending = backlog(uow.conn)
        oldest = oldest_unsent_at(uow.conn)
        health = delivery_health(uow.conn, redeliver_seconds=get_settings().redeliver_seconds)
    gauges = relay_gauges()
    for state in ("unsent", "in_flight", "overdue", "parked", "dead_letters"):
        gauges.delivery.labels(state).set(getattr(health, state))
    gauges.backlog.set(pending)
    gauges.oldest_age.set(0.0 if oldest is None else max((utcnow() - oldest).total_seconds(), 0))


@all_tenants("stuck-work gauges count every tenant")
def sample_stuck_work(engine: Engine) -> None:
    """Set the gauges of work that looks done but is not (the audit's checks, counted)."""
    with unit_of_work(engine) as uow:
        gauges = relay_gauges()
        gauges.stuck_work.labels("undecided_candidates").set(undecided_count(uow.conn))
        gauges.stuck_work.labels("current_without_vector").set(
            len(unindexed_versions(uow.conn, limit=UNINDEXED_CAP))
        )


def sample_queue_depths(llen: ListLengths) -> None:
    """Set one depth gauge per stage queue (``delivery.queues`` says what a length counts)."""
    names = queues()
    for queue, depth in zip(names, llen(names), strict=True):
        relay_gauges().queue_depth.labels(queue).set(depth)


class RelaySampler:
    """Called by the relay after each successful round; samples gauges every few seconds."""

    def __init__(
        self,
        engine: Engine,
        llen: ListLengths | None,
        *,
        every: float = SAMPLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.llen = llen
        self.every = every
        self.clock = clock
        self._next = 0.0
        # the stuck-work counts join whole tables: once a minute, not every few seconds
        self.slow_every = max(every, SLOW_SAMPLE_SECONDS)
        self._next_slow = 0.0

    def __call__(self, moved: int) -> None:
        gauges = relay_gauges()
        gauges.events.inc(moved)
        gauges.last_round.set_to_current_time()
        now = self.clock()
        if now < self._next:
            return
        self._next = now + self.every
        try:
            sample_outbox(self.engine)
            if self.llen is not None:
                sample_queue_depths(self.llen)
            if now >= self._next_slow:
                self._next_slow = now + self.slow_every
                sample_stuck_work(self.engine)
        except Exception:  # a gauge must never stop the relay; the next sample retries
            log.warning("metrics sample failed", exc_info=True)
