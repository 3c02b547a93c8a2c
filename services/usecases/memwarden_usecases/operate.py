"""Operating the delivery (SPEC §8.1): the outbox's health, re-publishing rows a broker lost,
and the dead letters a stage set aside (list, retry, discard)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from memwarden_shared.delivery.dead_letters import (
    discard_dead_letters,
    list_dead_letters,
    retry_dead_letters,
)
from memwarden_shared.delivery.outbox import delivery_health, mark_unsent
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.observe.health import unindexed_versions
from memwarden_shared.state.candidates import undecided_count
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.tenant_scope import all_tenants

__all__ = [
    "DEAD_LETTER_STAGES",
    "dead_letters",
    "delivery_gauges",
    "discard",
    "outbox_status",
    "requeue",
    "retry",
]

# the inbox consumer name of each stage is the stage's name (shared.consume)
CONSUMER_OF = {stage.value: stage.value for stage in Stage}
# where a dead letter comes from: a stage, or the relay that could not publish it
DEAD_LETTER_STAGES = (*(s.value for s in Stage), "relay")
EVERY = 1_000_000  # "--all": every dead letter, as one list


def outbox_status(engine: Engine, *, redeliver_seconds: float) -> dict[str, Any]:
    """Rows never published, in flight, overdue (published but not consumed past the
    redelivery deadline), dead letters, undecided candidates, current versions without a
    vector row, and the age of the oldest unsent row."""
    with unit_of_work(engine) as uow:
        health = delivery_health(uow.conn, redeliver_seconds=redeliver_seconds)
        undecided = undecided_count(uow.conn)
        unindexed = len(unindexed_versions(uow.conn))
    oldest = health.oldest_unsent_at
    age = None if oldest is None else round((utcnow() - oldest).total_seconds(), 3)
    return {
        **health.as_json(),
        "oldest_unsent_age_seconds": age,
        "undecided_candidates": undecided,
        "current_without_vector": unindexed,
    }


@all_tenants("the API's /metrics reports the outbox of every tenant, as a relay's gauges do")
def delivery_gauges(engine: Engine, *, redeliver_seconds: float) -> dict[str, float]:
    """Backlog and delivery health read from the store now: what a process that runs no
    relay exports instead of relay gauges it never sampled (issue 26.10)."""
    with unit_of_work(engine) as uow:
        health = delivery_health(uow.conn, redeliver_seconds=redeliver_seconds)
    oldest = health.oldest_unsent_at
    return {
        "unsent": health.unsent,
        "in_flight": health.in_flight,
        "overdue": health.overdue,
        "parked": health.parked,
        "dead_letters": health.dead_letters,
        "oldest_unsent_age_seconds": 0.0
        if oldest is None
        else max((utcnow() - oldest).total_seconds(), 0.0),
    }


def requeue(
    engine: Engine,
    since: datetime,
    until: datetime | None,
    topics: list[str] | None,
    *,
    dry_run: bool,
) -> int:
    """Mark rows sent in [since, until) unsent again, so relays publish them anew; returns
    how many matched (nothing changes on a dry run)."""
    with unit_of_work(engine) as uow:
        # One UPDATE: rows become visible to relays all at once, oldest id first.
        count = mark_unsent(uow.conn, since, until, topics)
        if not dry_run:
            uow.commit()
    return count


def dead_letters(
    engine: Engine, *, stage: str | None, tenant_id: str | None, limit: int
) -> list[dict[str, Any]]:
    """Dead letters as JSON: keys and error class, never values."""
    with unit_of_work(engine) as uow:
        rows = list_dead_letters(uow.conn, stage=stage, tenant_id=tenant_id, limit=limit)
    return [r.as_json() for r in rows]


def retry(engine: Engine, ids: list[int] | None, *, stage: str | None) -> tuple[int, int]:
    """Put the events back in the outbox so their stage runs them again; ``ids`` None means
    every dead letter (of ``stage``). Returns (retried, asked)."""
    with unit_of_work(engine) as uow:
        chosen = _chosen(uow.conn, ids, stage)
        count = retry_dead_letters(uow.conn, chosen, CONSUMER_OF)
        uow.commit()
    return count, len(chosen)


def discard(engine: Engine, ids: list[int] | None, *, stage: str | None) -> tuple[int, int]:
    """Delete dead letters (their events stay consumed). Returns (discarded, asked)."""
    with unit_of_work(engine) as uow:
        chosen = _chosen(uow.conn, ids, stage)
        count = discard_dead_letters(uow.conn, chosen)
        uow.commit()
    return count, len(chosen)


def _chosen(conn: Any, ids: list[int] | None, stage: str | None) -> list[int]:
    if ids is not None:
        return list(ids)
    return [r.id for r in list_dead_letters(conn, stage=stage, limit=EVERY)]
