"""Gate decisions counted per scope and time bucket (``write_counts``), and the reads of a
gate batch's scopes: sessions, holds and windowed counts in one round trip.

Each gate process adds its counts to its own row of (scope, tenant, bucket, writer) with
``INSERT … ON CONFLICT DO UPDATE``: two processes never share a row, so neither waits on
the other, and a windowed sum reads at most buckets x processes rows per scope however
much traffic went through. A bucket is a twentieth of the anomaly window and counts in the
period it starts in: the recent window holds the buckets that start inside it (so it is
narrowed by less than one bucket; the bucket being written now is always in it).
"""

from __future__ import annotations

import hashlib
import os
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, bindparam, case, func, literal, select

from memwarden_shared.state.holds import ALL_TENANTS, Hold, hold_from
from memwarden_shared.store.db import Batch, Step
from memwarden_shared.store.dialect import in_param, in_param_or_select, upsert
from memwarden_shared.store.schema import messages, review_holds, write_counts

BUCKETS_PER_WINDOW = 20
COUNT_COLUMNS = (
    "proposals",
    "committed",
    "noop",
    "needs_confirmation",
    "confirm_replace",
    "quarantined",
    "conflicted",
    "rejected",
)
SESSION_PREFIX = "session:"

_writer: tuple[int, str] | None = None


def writer_name() -> str:
    """This process's rows: host and pid, hashed (a forked child gets its own)."""
    global _writer
    pid = os.getpid()
    if _writer is None or _writer[0] != pid:
        digest = hashlib.sha256(f"{socket.gethostname()}:{pid}".encode()).hexdigest()
        _writer = (pid, digest[:16])
    return _writer[1]


def bucket_start(at: datetime, width_seconds: float) -> datetime:
    """The start of the bucket of ``width_seconds`` that holds ``at`` (buckets are aligned
    on the epoch, so every process agrees)."""
    epoch = at.timestamp()
    return datetime.fromtimestamp(epoch - epoch % width_seconds, UTC)


def add_counts(
    conn: Connection, counted_at: datetime, tallies: Mapping[tuple[str, str], Mapping[str, int]]
) -> None:
    """Add each (tenant, scope)'s tallies to this process's row of the bucket
    ``counted_at``; one executemany, in key order (one lock order for every batch), its
    statement compiled once per process (``db.Batch``)."""
    writer = writer_name()
    batch = Batch(conn)
    batch.add(
        "anomaly.add_counts",
        _add_counts_stmt,
        [
            {"tenant_id": t, "scope": s, "counted_at": counted_at, "writer": writer}
            | {col: tally.get(col, 0) for col in COUNT_COLUMNS}
            for (t, s), tally in sorted(tallies.items())
        ],
    )
    batch.send()


def _add_counts_stmt(conn: Connection) -> Any:
    return upsert(
        conn,
        write_counts,
        ["scope", "tenant_id", "counted_at", "writer"],
        lambda new: {col: write_counts.c[col] + new[col] for col in COUNT_COLUMNS},
    )


@dataclass
class ScopeReads:
    """What a gate batch reads about its scopes, before deciding."""

    sessions: dict[tuple[str, str], str]  # (tenant, message_id) -> session_id
    holds: list[Hold]
    # (tenant, scope) -> (proposals recent, older, commits recent, older); empty when unread
    counts: dict[tuple[str, str], tuple[int, int, int, int]]


def read_scopes(
    conn: Connection,
    messages_of: Iterable[tuple[str, str]],
    scopes: set[str],
    *,
    window: tuple[datetime, datetime] | None,
) -> ScopeReads:
    """Sessions of the batch's messages, holds and (when ``window`` = (baseline start,
    recent start) is given) counts of ``scopes`` plus the messages' session scopes, in one
    round trip on PostgreSQL: the session scopes are named in SQL from the messages."""
    pairs = set(messages_of)
    tenants = sorted({t for t, _ in pairs})
    params = {
        "tenants": tenants,
        "hold_tenants": [*tenants, ALL_TENANTS],
        "message_ids": sorted({m for _, m in pairs}),
        "scopes": sorted(scopes),
    }
    batch = Batch(conn)
    sessions = batch.add("anomaly.sessions", _sessions_stmt, params)
    holds = batch.add("anomaly.holds", _holds_stmt, params)
    counts: Step | None = None
    if window is not None:
        since, recent = window
        counts = batch.add(
            "anomaly.counts", _counts_stmt, {**params, "since": since, "recent": recent}
        )
    batch.send()
    wanted = set(tenants) | {ALL_TENANTS}
    return ScopeReads(
        sessions={
            (r["tenant_id"], r["message_id"]): r["session_id"]
            for r in sessions.rows
            if (r["tenant_id"], r["message_id"]) in pairs  # the lists match a superset
        },
        holds=[hold_from(r) for r in holds.rows if r["tenant_id"] in wanted],
        counts={
            (r["tenant_id"], r["scope"]): (
                int(r["p_recent"] or 0),
                int(r["p_older"] or 0),
                int(r["c_recent"] or 0),
                int(r["c_older"] or 0),
            )
            for r in (counts.rows if counts is not None else [])
        },
    )


def _session_scopes(conn: Connection) -> Any:
    m = messages.c
    return select(literal(SESSION_PREFIX) + m.session_id).where(
        in_param(conn, m.tenant_id, "tenants"), in_param(conn, m.message_id, "message_ids")
    )


def _named(conn: Connection, column: Any) -> Any:
    """``column`` is one of the given scopes or a session scope of the batch's messages, as
    one condition the (scope, …) index serves (see ``in_param_or_select``)."""
    return in_param_or_select(conn, column, "scopes", _session_scopes(conn))


def _sessions_stmt(conn: Connection) -> Any:
    m = messages.c
    return select(m.tenant_id, m.message_id, m.session_id).where(
        in_param(conn, m.tenant_id, "tenants"), in_param(conn, m.message_id, "message_ids")
    )


def _holds_stmt(conn: Connection) -> Any:
    return select(review_holds).where(
        in_param(conn, review_holds.c.tenant_id, "hold_tenants"),
        _named(conn, review_holds.c.scope),
    )


def _counts_stmt(conn: Connection) -> Any:
    c = write_counts.c
    recent = c.counted_at >= _bind("recent")
    return (
        select(
            c.tenant_id,
            c.scope,
            func.sum(case((recent, c.proposals), else_=0)).label("p_recent"),
            func.sum(case((recent, 0), else_=c.proposals)).label("p_older"),
            func.sum(case((recent, c.committed), else_=0)).label("c_recent"),
            func.sum(case((recent, 0), else_=c.committed)).label("c_older"),
        )
        .where(
            in_param(conn, c.tenant_id, "tenants"),
            _named(conn, c.scope),
            c.counted_at >= _bind("since"),
        )
        .group_by(c.tenant_id, c.scope)
    )


def _bind(name: str) -> Any:
    return bindparam(name, type_=write_counts.c.counted_at.type)


def window_edges(now: datetime, window: float, baseline: float) -> tuple[datetime, datetime]:
    """(baseline start, recent start): a bucket belongs to the first period it starts in."""
    return now - timedelta(seconds=baseline), now - timedelta(seconds=window)
