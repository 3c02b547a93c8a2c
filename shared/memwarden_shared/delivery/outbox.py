"""Transactional outbox (SPEC §8, §8.1): events are rows written in the same transaction as
the state change they announce.

Lifecycle: *pending* (``sent_at`` NULL) -> *published* (a relay claimed it to hand it to the
broker, ``sent_at`` set) -> *consumed* (``consumed_at`` set by the consumer in the
transaction of its effects). The claim is the publish mark (one write per claim, not two): a
row published but not consumed within ``MEMWARDEN_REDELIVER_SECONDS`` is claimable again,
so the outbox, not the broker, is the source of truth, and the redelivery deadline is the
claimer's lease (longer with ``lease_seconds``; see ``claim_batch``).

A published event whose consumer must wait for an older event of the same subject is
*parked* (``queue_park``): no relay touches it until a consumer of that older event wakes
it (``queue_wake``), and it goes out once more as pending. See docs/architecture.md,
"Ordering per subject".
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, bindparam, case, func, or_, select, text, update

from memwarden_shared.contract.models import FEED_ONLY_TOPICS, Topic
from memwarden_shared.delivery import handoff
from memwarden_shared.delivery.events import OutboxEvent, event_of_row
from memwarden_shared.delivery.pipeline import idle_topics
from memwarden_shared.store.db import AFTER_COMMIT, Batch, after_commit, dumps, utcnow
from memwarden_shared.store.dialect import (
    binds_arrays,
    has_notify,
    in_list,
    in_param,
    lock_rows,
)
from memwarden_shared.store.schema import dead_letters, outbox

NOTIFY_CHANNEL = "memwarden_outbox"


# (topic, event key, tenant, payload) or the same plus (ordering key, ordering seq)
Event = tuple[Any, ...]


def emit(
    conn: Connection,
    topic: Topic,
    event_key: str,
    tenant_id: str,
    payload: dict[str, Any],
    *,
    order: tuple[str, int] | None = None,
) -> None:
    """Append one event; it becomes visible to relays only when the caller commits."""
    emit_many(conn, [(topic, event_key, tenant_id, payload, *(order or ()))])


def emit_many(conn: Connection, events: list[Event]) -> None:
    """Append events ``(topic, key, tenant, payload[, ordering_key, ordering_seq])``.

    The ordering pair places an event in its subject's order (see ``held_back``)."""
    batch = Batch(conn)
    queue_events(batch, events)
    batch.send()


def queue_events(batch: Batch, events: list[Event]) -> None:
    """``emit_many`` queued on the caller's batch (sent with its other statements).

    With direct handoff (``delivery.handoff``) the events bound for an idle stage are written
    as published and handed to the broker after the caller's unit of work commits; the rest
    (feed-only, unknown topics, busy stages, embedded mode) wait for a relay as before."""
    if not events:
        return
    now = utcnow()
    rows = _queue_handoff(batch, [_row(e, now) for e in events], now)
    if not rows:
        return
    if binds_arrays(batch.conn):
        arrays = {param: [r[column] for r in rows] for param, column in _EMIT_ARRAYS.items()}
        feed = [r["consumed_at"] is not None for r in rows]
        batch.add(
            "outbox.emit_set", lambda _conn: text(_EMIT_SQL), {"now": now, **arrays, "feed": feed}
        )
    else:
        batch.add("outbox.emit", lambda _conn: outbox.insert(), rows)
    if has_notify(batch.conn):
        # Delivered at commit (and dropped on rollback): relays waiting in LISTEN wake at once
        # instead of at their next poll. Polling stays the guarantee.
        batch.add("outbox.notify", lambda _conn: text(f"NOTIFY {NOTIFY_CHANNEL}"))


def _row(e: Event, now: datetime) -> dict[str, Any]:
    return {
        "topic": str(e[0]),
        "event_key": e[1],
        "tenant_id": e[2],
        "payload": dumps(e[3]),
        "created_at": now,
        "ordering_key": e[4] if len(e) > 4 else None,
        "ordering_seq": e[5] if len(e) > 5 else None,
        # feed-only events have no consumer stage: born consumed, never relayed
        "consumed_at": now if str(e[0]) in FEED_ONLY_TOPICS else None,
    }


# New rows in the order given (ids follow it), as one set-based statement whatever the number
# of rows: a statement of fixed text, compiled and prepared once, where executemany sends one
# execution per row (issue 23: unnest measured 2.4x the rows/s at 2.9x less client CPU).
# Feed-only events are born consumed.
_EMIT_SQL = """
INSERT INTO outbox (topic, event_key, tenant_id, payload, created_at, consumed_at,
    ordering_key, ordering_seq)
SELECT t.topic, t.event_key, t.tenant_id, t.payload, :now, CASE WHEN t.feed THEN :now END,
    t.ordering_key, t.ordering_seq
FROM unnest(CAST(:topics AS text[]), CAST(:keys AS text[]), CAST(:tenants AS text[]),
    CAST(:payloads AS text[]), CAST(:ordering_keys AS text[]), CAST(:ordering_seqs AS bigint[]),
    CAST(:feed AS boolean[]))
    WITH ORDINALITY AS t(topic, event_key, tenant_id, payload, ordering_key, ordering_seq, feed, n)
ORDER BY t.n
"""

# Rows written as published, in the order given, returning what their envelopes need: one
# statement (and one compiled, prepared form) whatever the number of rows.
_HANDOFF_SQL = """
INSERT INTO outbox (topic, event_key, tenant_id, payload, created_at, sent_at, publish_count,
    ordering_key, ordering_seq)
SELECT t.topic, t.event_key, t.tenant_id, t.payload, :now, :now, 1, t.ordering_key,
    t.ordering_seq
FROM unnest(CAST(:topics AS text[]), CAST(:keys AS text[]), CAST(:tenants AS text[]),
    CAST(:payloads AS text[]), CAST(:ordering_keys AS text[]), CAST(:ordering_seqs AS bigint[]))
    WITH ORDINALITY AS t(topic, event_key, tenant_id, payload, ordering_key, ordering_seq, n)
ORDER BY t.n
RETURNING id, topic, event_key, tenant_id, payload, publish_count, ordering_key, ordering_seq
"""
# the statements' array parameters, each a column of the rows
_EMIT_ARRAYS = _HANDOFF_ARRAYS = {
    "topics": "topic",
    "keys": "event_key",
    "tenants": "tenant_id",
    "payloads": "payload",
    "ordering_keys": "ordering_key",
    "ordering_seqs": "ordering_seq",
}


def _queue_handoff(batch: Batch, rows: list[dict[str, Any]], now: datetime) -> list[dict[str, Any]]:
    """Queue the rows bound for an idle stage as published, to be handed to the broker once
    the caller commits; returns the other rows. Only inside a unit of work (which runs the
    after-commit callbacks) and only while the queue lengths can be read."""
    if not (handoff.enabled(batch.conn) and AFTER_COMMIT in batch.conn.info):
        return rows
    busy = handoff.busy_stages()
    if busy is None:
        return rows
    idle = idle_topics(busy)
    going = [r for r in rows if r["topic"] in idle]
    if not going:
        return rows
    arrays = {param: [r[column] for r in going] for param, column in _HANDOFF_ARRAYS.items()}
    step = batch.add("outbox.handoff", lambda _conn: text(_HANDOFF_SQL), {"now": now, **arrays})
    # step.rows is filled when the batch is sent, which is before the commit
    after_commit(batch.conn, lambda: handoff.publish([event_of_row(r) for r in step.rows]))
    return [r for r in rows if r["topic"] not in idle]


def order_seq(said_at: datetime) -> int:
    """A subject's order position of an event: when its message was said, in microseconds
    since the epoch (the order the extractor's debounce and the gate decide in)."""
    return int(said_at.timestamp() * 1_000_000)


def in_flight_heads(
    conn: Connection, ordering_keys: Collection[str], topics: Collection[str]
) -> dict[str, int]:
    """The newest sequence number among the unconsumed events of ``topics`` per ordering
    key."""
    if not ordering_keys:
        return {}
    rows = conn.execute(
        select(outbox.c.ordering_key, func.max(outbox.c.ordering_seq))
        .where(
            in_list(conn, outbox.c.ordering_key, sorted(ordering_keys)),
            outbox.c.topic.in_(sorted(topics)),
            outbox.c.consumed_at.is_(None),
        )
        .group_by(outbox.c.ordering_key)
    ).all()
    return {str(k): int(seq) for k, seq in rows if seq is not None}


def resequence(events: list[tuple[str, int]], heads: dict[str, int]) -> list[int]:
    """Sequence numbers for new ``(ordering key, said-at sequence)`` events, given the
    ``heads`` of their subjects' events already waiting at an ordered consumer (the gate:
    ``in_flight_heads`` of its topic).

    An event said before one already waiting there arrived too late to go in front: it goes
    after them, in the order said among the late ones. In front, it would park the waiting
    events once more (and again for each later arrival); after them it is decided as a late
    statement (SPEC §8.1: an older value that arrives late is history,
    ``older_than_current``). Events not at the gate yet (a turn not extracted) do not count:
    a late turn still goes in front of those, as in order. So a parked event wakes once.
    """
    late = sorted(
        (seq, n) for n, (key, seq) in enumerate(events) if key in heads and seq <= heads[key]
    )
    out = [seq for _, seq in events]
    for rank, (_, n) in enumerate(late, start=1):
        out[n] = heads[events[n][0]] + rank
    return out


def _event(r: Any) -> OutboxEvent:
    return event_of_row(r._mapping)


def claim_batch(
    conn: Connection,
    limit: int,
    *,
    lease_seconds: float = 30.0,
    redeliver_seconds: float = 30.0,
    now: datetime | None = None,
    redeliver_topics: Collection[str] | None = None,
    waiting_topics: Collection[str] = (),
) -> list[OutboxEvent]:
    """Claim up to ``limit`` rows for publishing, oldest first, and mark them published.

    Claimable: not consumed, no live lease, and either never published or published more
    than ``redeliver_seconds`` ago. ``FOR UPDATE SKIP LOCKED`` (the caller's transaction
    must be a real one) keeps two relays off the same rows while they claim.

    The claim writes what the publish mark used to write after the broker took the rows
    (``sent_at``, ``publish_count``), so a claimed row costs one update, not two. Its
    ``sent_at`` keeps other relays off while the claimer publishes: the row is due again
    only after ``redeliver_seconds``, the deadline a lost broker message already waits. A
    ``lease_seconds`` longer than that deadline also writes ``claimed_until``, which holds
    the row for the longer time. The claimer calls ``release`` for rows the broker refused.
    A crash between this claim and the broker costs one redelivery deadline, as a lost
    message does (before: the lease, 30 s by default, the same).

    ``redeliver_topics`` limits redelivery to those topics (None: all). A relay passes the
    topics whose queue is empty: an overdue row of a backed-up queue is most likely still
    waiting in it, and republishing the whole backlog every deadline would only grow it.

    ``waiting_topics`` are not claimed at all, new rows included: their queue still holds a
    message, so their rows wait here and leave later as one batch (back-pressure).

    The events carry the ``publish_count`` before this claim (above 0: a redelivery).
    """
    now = now or utcnow()
    overdue = now - timedelta(seconds=redeliver_seconds)
    # the deadline holds the row already; only a longer lease needs a column of its own
    until = now + timedelta(seconds=lease_seconds) if lease_seconds > redeliver_seconds else None
    if binds_arrays(conn):
        return _claim_in_one_statement(
            conn, limit, now, overdue, until, redeliver_topics, sorted(waiting_topics)
        )
    free = or_(outbox.c.claimed_until.is_(None), outbox.c.claimed_until < now)
    found: list[OutboxEvent] = []
    # Two index-friendly scans rather than one OR: never-published rows (ix_outbox_unsent),
    # then overdue published rows (ix_outbox_unconsumed).
    scans = [and_(outbox.c.sent_at.is_(None), outbox.c.consumed_at.is_(None))]
    if redeliver_topics is None or redeliver_topics:
        due = and_(outbox.c.consumed_at.is_(None), outbox.c.sent_at < overdue)
        if redeliver_topics is not None:
            due = and_(due, outbox.c.topic.in_(sorted(redeliver_topics)))
        scans.append(due)
    for where in scans:
        room = limit - len(found)
        if room <= 0:
            break
        stmt = select(outbox).where(where, free).order_by(outbox.c.id).limit(room)
        if waiting_topics:
            stmt = stmt.where(outbox.c.topic.not_in(sorted(waiting_topics)))
        found.extend(_event(r) for r in conn.execute(lock_rows(conn, stmt, skip_locked=True)))
    if found:
        conn.execute(
            update(outbox)
            .where(in_list(conn, outbox.c.id, [e.id for e in found]))
            .values(sent_at=now, claimed_until=until, publish_count=outbox.c.publish_count + 1)
        )
    return found


# One round trip instead of four (two scans, the mark, and a transaction around them): the
# relay claims on every wake-up, so its round trips are a floor under every hop's latency.
# The row locks of FOR UPDATE SKIP LOCKED last as long as the statement, which also writes
# the publish mark, so the statement is safe in autocommit; ``sent_at`` (and a lease longer
# than the redelivery deadline) keeps other relays off after. RETURNING shows the row after
# the update: the count before this claim is one less.
_CLAIM_SQL = """
WITH unsent AS (
    SELECT id, 0 AS scan FROM outbox
    WHERE sent_at IS NULL AND consumed_at IS NULL
      AND (claimed_until IS NULL OR claimed_until < :now)
      AND NOT (topic = ANY(CAST(:waiting AS text[])))
    ORDER BY id LIMIT :limit FOR UPDATE SKIP LOCKED
), overdue AS (
    SELECT id, 1 AS scan FROM outbox
    WHERE :redeliver AND consumed_at IS NULL AND sent_at < :overdue
      AND (claimed_until IS NULL OR claimed_until < :now)
      AND (CAST(:topics AS text[]) IS NULL OR topic = ANY(CAST(:topics AS text[])))
    ORDER BY id LIMIT :limit FOR UPDATE SKIP LOCKED
), picked AS (
    SELECT id, scan FROM (SELECT * FROM unsent UNION ALL SELECT * FROM overdue) AS due
    ORDER BY scan, id LIMIT :limit
)
UPDATE outbox SET sent_at = :now, claimed_until = :until,
    publish_count = outbox.publish_count + 1
FROM picked WHERE outbox.id = picked.id
RETURNING picked.scan, outbox.id, outbox.topic, outbox.event_key, outbox.tenant_id,
    outbox.payload, outbox.publish_count - 1 AS publish_count, outbox.ordering_key,
    outbox.ordering_seq
"""


def _claim_in_one_statement(
    conn: Connection,
    limit: int,
    now: datetime,
    overdue: datetime,
    until: datetime | None,
    redeliver_topics: Collection[str] | None,
    waiting: list[str],
) -> list[OutboxEvent]:
    """``claim_batch`` on PostgreSQL: never-published rows first, then overdue ones, each
    oldest first (the order the two scans of the portable path give)."""
    topics = None if redeliver_topics is None else sorted(redeliver_topics)
    rows = conn.execute(
        text(_CLAIM_SQL),
        {
            "now": now,
            "limit": limit,
            "overdue": overdue,
            "until": until,
            "redeliver": topics is None or bool(topics),
            "topics": topics,
            "waiting": waiting,
        },
    ).all()
    return [_event(r) for r in sorted(rows, key=lambda r: (r.scan, r.id))]


def pending_events(conn: Connection, limit: int) -> list[OutboxEvent]:
    """Unconsumed rows, oldest first, whatever their publish state (embedded drain: no other
    process is in flight, so everything not consumed is work to do)."""
    stmt = select(outbox).where(outbox.c.consumed_at.is_(None)).order_by(outbox.c.id).limit(limit)
    return [_event(r) for r in conn.execute(stmt)]


def mark_published(conn: Connection, ids: list[int], now: datetime | None = None) -> None:
    """The rows went to the broker without a claim (the embedded drain): start their
    redelivery clock and end any lease (not a parking: see ``PARKED_UNTIL``). A relay's
    claim marks its rows itself."""
    if ids:
        conn.execute(
            update(outbox)
            .where(in_list(conn, outbox.c.id, ids))
            .values(
                sent_at=now or utcnow(),
                # a consumer may have parked the row already (it beat this mark): keep it so
                claimed_until=case((is_parked(), outbox.c.claimed_until), else_=None),
                publish_count=outbox.c.publish_count + 1,
            )
        )


def release(conn: Connection, ids: list[int]) -> None:
    """Undo the claim of rows the broker refused: pending again (``sent_at`` NULL, the
    count as before the claim), so any relay claims them at once, redeliveries included.
    A row consumed or parked meanwhile is not a refused one's business: left alone."""
    if ids:
        conn.execute(
            update(outbox)
            .where(
                in_list(conn, outbox.c.id, ids),
                outbox.c.consumed_at.is_(None),
                or_(outbox.c.claimed_until.is_(None), ~is_parked()),
            )
            .values(
                sent_at=None,
                claimed_until=None,
                publish_count=outbox.c.publish_count - 1,
            )
        )


def mark_consumed(conn: Connection, ids: list[int], now: datetime | None = None) -> None:
    """Called by a consumer inside the transaction of its effects (SPEC §8.1)."""
    batch = Batch(conn)
    queue_mark_consumed(batch, ids, now)
    batch.send()


def queue_mark_consumed(batch: Batch, ids: list[int], now: datetime | None = None) -> None:
    """``mark_consumed`` queued on the caller's batch."""
    if ids:
        batch.add(
            "outbox.consumed",
            lambda conn: (
                update(outbox)
                .where(in_param(conn, outbox.c.id, "ids"), outbox.c.consumed_at.is_(None))
                .values(consumed_at=bindparam("now", type_=outbox.c.consumed_at.type))
            ),
            {"ids": sorted(ids), "now": now or utcnow()},
        )


# A parked row's lease: "held by nobody until its predecessor is consumed". No relay claims
# it (the lease never runs out), and it is neither in flight nor overdue; waking it is
# ``wake_parked``'s job. A sentinel in ``claimed_until`` rather than a column of its own,
# so parking needs no migration (decisions.md, "parked events").
PARKED_UNTIL = datetime(9999, 1, 1, tzinfo=UTC)
# the test of parked rows: at or after this (robust to how a store renders the sentinel)
_PARKED_FROM = datetime(9000, 1, 1, tzinfo=UTC)


def is_parked() -> Any:
    """The condition of a parked row (see ``PARKED_UNTIL``)."""
    return outbox.c.claimed_until >= _PARKED_FROM


def queue_park(batch: Batch, ids: list[int]) -> None:
    """Park events that wait for an older event of their subject (``held_back``): no relay
    publishes them again until that event is consumed and ``wake_parked`` frees them, so a
    held event costs nothing while it waits (issue 26: no redelivery loop, not overdue)."""
    if ids:
        batch.add(
            "outbox.park",
            lambda conn: (
                update(outbox)
                .where(in_param(conn, outbox.c.id, "ids"), outbox.c.consumed_at.is_(None))
                .values(claimed_until=bindparam("parked", type_=outbox.c.claimed_until.type))
            ),
            {"ids": sorted(ids), "parked": PARKED_UNTIL},
        )


_older = outbox.alias("older")


def _wake_statement(conn: Connection, by_key: bool) -> Any:
    """Parked rows that no unconsumed older event of their subject holds any more: back to
    pending (``sent_at`` NULL), so the next relay round publishes them once."""
    blocked = (
        select(_older.c.id)
        .where(
            _older.c.ordering_key == outbox.c.ordering_key,
            _older.c.consumed_at.is_(None),
            _older.c.ordering_seq < outbox.c.ordering_seq,
        )
        .exists()
    )
    stmt = update(outbox).where(is_parked(), outbox.c.consumed_at.is_(None), ~blocked)
    if by_key:
        stmt = stmt.where(in_param(conn, outbox.c.ordering_key, "keys"))
    return stmt.values(sent_at=None, claimed_until=None)


def queue_wake(batch: Batch, ordering_keys: Collection[str]) -> None:
    """Wake the parked events of ``ordering_keys`` that are now first in their subject's
    order. Queued by a consumer after its effects (an event it emitted may be the new
    first), under the subjects' locks (``lock_orders``), so a concurrent park cannot slip
    between the two and sleep for ever."""
    if ordering_keys:
        batch.add(
            "outbox.wake",
            lambda conn: _wake_statement(conn, by_key=True),
            {"keys": sorted(ordering_keys)},
        )


def wake_stranded(conn: Connection) -> int:
    """Wake every parked row whose predecessors are all consumed, whatever consumed them:
    the relay's safety net for a consume path that does not wake (a dead letter discarded
    by hand, a row written by an older release). Returns how many woke."""
    return conn.execute(_wake_statement(conn, by_key=False)).rowcount or 0


def held_back(conn: Connection, events: list[tuple[int, str, int]]) -> set[int]:
    """Of ``(id, ordering_key, ordering_seq)``, the ids that must wait: another unconsumed
    event of the same ordering key (subject) has a smaller sequence number and is not
    among ``events``. Waiting for it keeps a subject's decisions in the order its messages
    were received, however the broker reordered, delayed or repeated them."""
    if not events:
        return set()
    keys = {k for _, k, _ in events}
    ours = {i for i, _, _ in events}
    rows = conn.execute(
        select(outbox.c.id, outbox.c.ordering_key, outbox.c.ordering_seq).where(
            in_list(conn, outbox.c.ordering_key, keys), outbox.c.consumed_at.is_(None)
        )
    ).all()
    oldest: dict[str, int] = {}
    for r in rows:
        if r.id in ours or r.ordering_seq is None:
            continue
        if r.ordering_key not in oldest or r.ordering_seq < oldest[r.ordering_key]:
            oldest[r.ordering_key] = int(r.ordering_seq)
    return {i for i, k, seq in events if k in oldest and oldest[k] < seq}


def backlog(conn: Connection) -> int:
    """Rows never published and not consumed (pending)."""
    return int(
        conn.execute(
            select(func.count())
            .select_from(outbox)
            .where(outbox.c.sent_at.is_(None), outbox.c.consumed_at.is_(None))
        ).scalar_one()
    )


def oldest_unsent_at(conn: Connection) -> datetime | None:
    """``created_at`` of the oldest unsent row; ids grow with time, so the partial index on
    unsent ids finds it without a scan."""
    stmt = select(outbox.c.created_at).where(
        outbox.c.sent_at.is_(None), outbox.c.consumed_at.is_(None)
    )
    return conn.execute(stmt.order_by(outbox.c.id).limit(1)).scalar()


@dataclass(frozen=True)
class DeliveryHealth:
    """What ``outbox status``, the audit and the metrics report about delivery."""

    unsent: int  # pending: never published
    in_flight: int  # published, not consumed, within the redelivery deadline
    overdue: int  # published, not consumed, past the deadline (a relay will republish)
    dead_letters: int
    oldest_unsent_at: datetime | None
    parked: int = 0  # waiting for an older event of their subject; neither of the above

    def as_json(self) -> dict[str, Any]:
        return {
            "unsent": self.unsent,
            "in_flight": self.in_flight,
            "overdue": self.overdue,
            "dead_letters": self.dead_letters,
            "parked": self.parked,
            "oldest_unsent_at": (
                self.oldest_unsent_at.isoformat() if self.oldest_unsent_at else None
            ),
        }


def delivery_health(
    conn: Connection, *, redeliver_seconds: float, tenant_id: str | None = None
) -> DeliveryHealth:
    overdue_at = utcnow() - timedelta(seconds=redeliver_seconds)

    def count(table: Any, *where: Any) -> int:
        stmt = select(func.count()).select_from(table).where(*where)
        if tenant_id is not None:
            stmt = stmt.where(table.c.tenant_id == tenant_id)
        return int(conn.execute(stmt).scalar_one())

    unconsumed = outbox.c.consumed_at.is_(None)
    awake = or_(outbox.c.claimed_until.is_(None), ~is_parked())
    return DeliveryHealth(
        unsent=count(outbox, outbox.c.sent_at.is_(None), unconsumed),
        in_flight=count(outbox, unconsumed, outbox.c.sent_at >= overdue_at, awake),
        overdue=count(outbox, unconsumed, outbox.c.sent_at < overdue_at, awake),
        dead_letters=count(dead_letters),
        oldest_unsent_at=oldest_unsent_at(conn),
        parked=count(outbox, unconsumed, is_parked()),
    )


def mark_unsent(
    conn: Connection,
    since: datetime,
    until: datetime | None = None,
    topics: list[str] | None = None,
) -> int:
    """Mark rows sent at or after ``since`` (and before ``until``, of ``topics``) unsent and
    unconsumed, so relays publish them again and consumers look at them again (their inbox
    skips what they already did). Redelivery makes this unnecessary for lost messages; it
    stays for reprocessing by hand."""
    stmt = update(outbox).where(outbox.c.sent_at.is_not(None), outbox.c.sent_at >= since)
    if until is not None:
        stmt = stmt.where(outbox.c.sent_at < until)
    if topics:
        stmt = stmt.where(outbox.c.topic.in_(topics))
    return (
        conn.execute(stmt.values(sent_at=None, consumed_at=None, claimed_until=None)).rowcount or 0
    )
