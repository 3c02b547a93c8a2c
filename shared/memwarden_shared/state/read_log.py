"""Who saw what (seed 002): which memory version was visible to which consumer, and when.

Append-only: one row per memory version a recall or an action read, sharing a ``read_id``;
ids and versions only, never a value or a query. Written with one multi-row INSERT per read
after the read itself, so a recall's own statements are unchanged. Pruned past the retention
window (``read_log_retention_seconds``) by :func:`prune`."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, delete, func, select

from memwarden_shared.store.dialect import relax_commit_durability
from memwarden_shared.store.schema import read_log


class Surface(StrEnum):
    RECALL = "recall"
    ACTION = "action"


def rows_for(
    tenant_id: str,
    subject_id: str,
    principal_id: str,
    surface: Surface,
    versions: Iterable[tuple[str, int]],
    now: datetime,
) -> list[dict[str, Any]]:
    """The rows of one read (one per distinct version, one shared ``read_id``). Pure."""
    read_id = uuid.uuid4().hex
    return [
        {
            "tenant_id": tenant_id,
            "read_id": read_id,
            "surface": surface.value,
            "principal_id": principal_id,
            "subject_id": subject_id,
            "memory_id": memory_id,
            "version": version,
            "read_at": now,
        }
        for memory_id, version in dict.fromkeys(versions)
    ]


def record(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Append one read's rows (executemany: one statement however many versions), in a
    transaction of their own whose commit does not wait for the disk: the reader must not
    pay an fsync per read (bench/read_log_cost.py); a crash may drop the last instant's rows
    (docs/decisions.md)."""
    if rows:
        relax_commit_durability(conn)
        conn.execute(read_log.insert(), rows)


def reads_of(
    conn: Connection, tenant_id: str, memory_id: str, *, limit: int, before_id: int | None = None
) -> list[dict[str, Any]]:
    """Reads of ``memory_id`` in ``tenant_id``, newest first; ``before_id`` pages on."""
    stmt = select(read_log).where(
        read_log.c.tenant_id == tenant_id, read_log.c.memory_id == memory_id
    )
    if before_id is not None:
        stmt = stmt.where(read_log.c.id < before_id)
    rows = conn.execute(stmt.order_by(read_log.c.id.desc()).limit(limit))
    return [
        {
            "id": r.id,
            "read_id": r.read_id,
            "surface": r.surface,
            "principal_id": r.principal_id,
            "subject_id": r.subject_id,
            "memory": f"{r.memory_id}:{r.version}",
            "read_at": r.read_at.isoformat(),
        }
        for r in rows
    ]


def prune(conn: Connection, now: datetime, retention_seconds: float) -> int:
    """Delete rows older than the retention window; returns how many went."""
    cutoff = now - timedelta(seconds=retention_seconds)
    gone = conn.execute(
        select(func.count()).select_from(read_log).where(read_log.c.read_at < cutoff)
    ).scalar_one()
    if gone:
        conn.execute(delete(read_log).where(read_log.c.read_at < cutoff))
    return int(gone)
