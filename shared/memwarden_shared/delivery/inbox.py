"""Consumer idempotency: `(consumer, event_key)` recorded in the transaction of the effect."""

from __future__ import annotations

from sqlalchemy import text

from memwarden_shared.store.db import Batch, Step, utcnow
from memwarden_shared.store.dialect import binds_arrays, insert_ignore_stmt
from memwarden_shared.store.schema import processed_events

# One array parameter: a statement of fixed text whatever the batch size, where a multi-row
# VALUES is compiled anew (and parsed by the server) for every batch.
_FIRST_PG = (
    "INSERT INTO processed_events (consumer, event_key, processed_at) "
    "SELECT :consumer, key, :now FROM unnest(CAST(:keys AS text[])) AS key "
    "ON CONFLICT (consumer, event_key) DO NOTHING RETURNING event_key"
)


def queue_first_deliveries(batch: Batch, consumer: str, event_keys: list[str]) -> Step | None:
    """Record ``event_keys`` as processed by ``consumer``, queued on the caller's batch; after
    ``send()``, :func:`new_keys` gives the ones never processed before. None when there are
    no keys.

    ON CONFLICT DO NOTHING rather than a read-then-insert, so two workers handling the same
    redelivered batch cannot both see a key as new: the second blocks on the first's row.
    """
    keys = list(dict.fromkeys(event_keys))
    if not keys:
        return None
    now = utcnow()
    if binds_arrays(batch.conn):
        params = {"consumer": consumer, "now": now, "keys": keys}
        return batch.add("inbox.first", lambda _conn: text(_FIRST_PG), params)
    return batch.add(
        "inbox.first",
        lambda conn: insert_ignore_stmt(
            conn, processed_events, ["consumer", "event_key"]
        ).returning(processed_events.c.event_key),
        [{"consumer": consumer, "event_key": k, "processed_at": now} for k in keys],
    )


def new_keys(step: Step | None) -> set[str]:
    """The keys a sent :func:`queue_first_deliveries` recorded for the first time."""
    return set() if step is None else {r["event_key"] for r in step.rows}
