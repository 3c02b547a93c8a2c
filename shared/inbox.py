"""Consumer idempotency: `(consumer, event_key)` recorded in the transaction of the effect."""

from __future__ import annotations

from sqlalchemy import Connection, select

from shared.db import insert_ignore, utcnow
from shared.schema import processed_events


def first_delivery(conn: Connection, consumer: str, event_key: str) -> bool:
    """True the first time; False for a duplicate delivery (no row inserted)."""
    return bool(first_deliveries(conn, consumer, [event_key]))


def first_deliveries(conn: Connection, consumer: str, event_keys: list[str]) -> set[str]:
    """The subset of ``event_keys`` never processed by ``consumer``; records them all.

    ON CONFLICT DO NOTHING rather than a read-then-insert, so two workers handling the same
    redelivered batch cannot both see a key as new: the second blocks on the first's row.
    """
    keys = list(dict.fromkeys(event_keys))
    if not keys:
        return set()
    seen = set(
        conn.execute(
            select(processed_events.c.event_key).where(
                processed_events.c.consumer == consumer,
                processed_events.c.event_key.in_(keys),
            )
        ).scalars()
    )
    fresh = [k for k in keys if k not in seen]
    now = utcnow()
    inserted: set[str] = set()
    for key in fresh:
        if insert_ignore(
            conn,
            processed_events,
            {"consumer": consumer, "event_key": key, "processed_at": now},
            ["consumer", "event_key"],
        ):
            inserted.add(key)
    return inserted
