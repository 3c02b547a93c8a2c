"""Transactional outbox (SPEC §8): events are rows written in the same transaction as the
state change they announce; a relay claims, publishes and marks them sent."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select, update

from shared.db import dumps, utcnow
from shared.models import Topic
from shared.schema import outbox

NOTIFY_CHANNEL = "memwarden_outbox"


@dataclass(frozen=True, slots=True)
class OutboxEvent:
    id: int
    topic: str
    event_key: str
    tenant_id: str
    payload: dict[str, Any]

    def envelope(self) -> dict[str, Any]:
        """The JSON form a task receives: small, keyed, no conversation text."""
        return {
            "id": self.id,
            "topic": self.topic,
            "key": self.event_key,
            "tenant_id": self.tenant_id,
            "payload": self.payload,
        }


def emit(
    conn: Connection, topic: Topic, event_key: str, tenant_id: str, payload: dict[str, Any]
) -> None:
    """Append one event; it becomes visible to relays only when the caller commits."""
    emit_many(conn, [(topic, event_key, tenant_id, payload)])


def emit_many(conn: Connection, events: list[tuple[Topic, str, str, dict[str, Any]]]) -> None:
    if not events:
        return
    now = utcnow()
    conn.execute(
        outbox.insert(),
        [
            {
                "topic": str(topic),
                "event_key": key,
                "tenant_id": tenant,
                "payload": dumps(payload),
                "created_at": now,
            }
            for topic, key, tenant, payload in events
        ],
    )
    if conn.dialect.name == "postgresql":
        # Delivered at commit (and dropped on rollback): relays waiting in LISTEN wake at once
        # instead of at their next poll. Polling stays the guarantee.
        conn.exec_driver_sql(f"NOTIFY {NOTIFY_CHANNEL}")


def claim_batch(conn: Connection, limit: int) -> list[OutboxEvent]:
    """Unsent events, oldest first, locked for this transaction.

    ``FOR UPDATE SKIP LOCKED`` lets several relays run at once: each claims rows the others
    do not hold. On SQLite the transaction already holds the database write lock.
    """
    stmt = select(outbox).where(outbox.c.sent_at.is_(None)).order_by(outbox.c.id).limit(limit)
    if conn.dialect.name == "postgresql":
        stmt = stmt.with_for_update(skip_locked=True)
    return [
        OutboxEvent(r.id, r.topic, r.event_key, r.tenant_id, json.loads(r.payload))
        for r in conn.execute(stmt)
    ]


def mark_sent(conn: Connection, ids: list[int]) -> None:
    if ids:
        conn.execute(update(outbox).where(outbox.c.id.in_(ids)).values(sent_at=utcnow()))


def backlog(conn: Connection) -> int:
    from sqlalchemy import func

    return int(
        conn.execute(
            select(func.count()).select_from(outbox).where(outbox.c.sent_at.is_(None))
        ).scalar_one()
    )


def oldest_unsent_at(conn: Connection) -> datetime | None:
    """``created_at`` of the oldest unsent row; ids grow with time, so the partial index on
    unsent ids finds it without a scan."""
    stmt = select(outbox.c.created_at).where(outbox.c.sent_at.is_(None))
    return conn.execute(stmt.order_by(outbox.c.id).limit(1)).scalar()


def mark_unsent(
    conn: Connection,
    since: datetime,
    until: datetime | None = None,
    topics: list[str] | None = None,
) -> int:
    """Mark rows sent at or after ``since`` (and before ``until``, of ``topics``) unsent, so
    relays publish them again: the recovery when a broker lost messages it had accepted.
    Consumers are idempotent, so a row published twice is harmless."""
    stmt = update(outbox).where(outbox.c.sent_at.is_not(None), outbox.c.sent_at >= since)
    if until is not None:
        stmt = stmt.where(outbox.c.sent_at < until)
    if topics:
        stmt = stmt.where(outbox.c.topic.in_(topics))
    return conn.execute(stmt.values(sent_at=None)).rowcount or 0
