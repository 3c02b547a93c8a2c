"""Dead letters (SPEC §8.1): events a consumer cannot process for a permanent reason.

A dead letter holds keys, the error class and a redacted description, never values or
message text. Its outbox row counts as consumed (dead), so it is not redelivered; ``retry``
puts the row back in the outbox and forgets the consumer's inbox entry, ``discard``
deletes the dead letter and leaves the event consumed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, func, select, update

from memwarden_shared.delivery.retry import error_class, redacted
from memwarden_shared.observe import metrics
from memwarden_shared.store.db import utcnow
from memwarden_shared.store.dialect import in_list, insert_ignore
from memwarden_shared.store.schema import dead_letters, outbox, processed_events

log = logging.getLogger("memwarden.deadletter")


def dead_letter(conn: Connection, stage: str, envelope: dict[str, Any], exc: BaseException) -> None:
    """Record ``envelope`` as dead for ``stage``; one row per (stage, event key)."""
    topic = str(envelope.get("topic") or "raw")
    key = str(envelope.get("key") or envelope.get("proposal_id") or "?")[:300]
    tenant = str(envelope.get("tenant_id") or "unknown")[:200]
    outbox_id = envelope.get("id") if isinstance(envelope.get("id"), int) else None
    insert_ignore(
        conn,
        dead_letters,
        {
            "stage": stage,
            "outbox_id": outbox_id,
            "event_key": key,
            "topic": topic[:40],
            "tenant_id": tenant,
            "error_class": error_class(exc),
            "error_message": redacted(exc),
            "created_at": utcnow(),
        },
        ["stage", "event_key"],
    )
    log.warning(
        "dead letter stage=%s outbox_id=%s topic=%s error=%s",
        stage,
        outbox_id,
        topic,
        redacted(exc),
    )
    metrics.DEAD_LETTERS.labels(stage).inc()


@dataclass(frozen=True)
class DeadLetter:
    id: int
    stage: str
    outbox_id: int | None
    event_key: str
    topic: str
    tenant_id: str
    error_class: str
    error_message: str
    created_at: datetime

    def as_json(self) -> dict[str, Any]:
        return {**self.__dict__, "created_at": self.created_at.isoformat()}


def list_dead_letters(
    conn: Connection, *, stage: str | None = None, tenant_id: str | None = None, limit: int = 100
) -> list[DeadLetter]:
    stmt = select(dead_letters).order_by(dead_letters.c.id).limit(limit)
    if stage:
        stmt = stmt.where(dead_letters.c.stage == stage)
    if tenant_id:
        stmt = stmt.where(dead_letters.c.tenant_id == tenant_id)
    return [
        DeadLetter(
            r.id,
            r.stage,
            r.outbox_id,
            r.event_key,
            r.topic,
            r.tenant_id,
            r.error_class,
            r.error_message,
            r.created_at,
        )
        for r in conn.execute(stmt)
    ]


def count_dead_letters(conn: Connection, tenant_id: str | None = None) -> int:
    stmt = select(func.count()).select_from(dead_letters)
    if tenant_id:
        stmt = stmt.where(dead_letters.c.tenant_id == tenant_id)
    return int(conn.execute(stmt).scalar_one())


def retry_dead_letters(conn: Connection, ids: list[int], consumer_of: dict[str, str]) -> int:
    """Put the dead letters' outbox rows back to pending and drop the consumer's inbox row,
    so the stage sees the event as new; returns how many were requeued. Dead letters
    without an outbox row (a raw task argument) cannot be replayed and stay."""
    rows = conn.execute(select(dead_letters).where(in_list(conn, dead_letters.c.id, ids))).all()
    retried = [r for r in rows if r.outbox_id is not None]
    for r in retried:
        consumer = consumer_of.get(r.stage, r.stage)
        conn.execute(
            delete(processed_events).where(
                processed_events.c.consumer == consumer,
                processed_events.c.event_key == r.event_key,
            )
        )
        conn.execute(
            update(outbox)
            .where(outbox.c.id == r.outbox_id)
            .values(sent_at=None, consumed_at=None, claimed_until=None)
        )
    if retried:
        conn.execute(
            delete(dead_letters).where(in_list(conn, dead_letters.c.id, [r.id for r in retried]))
        )
    return len(retried)


def discard_dead_letters(conn: Connection, ids: list[int]) -> int:
    """Delete the dead letters; their events stay consumed."""
    return (
        conn.execute(delete(dead_letters).where(in_list(conn, dead_letters.c.id, ids))).rowcount
        or 0
    )
