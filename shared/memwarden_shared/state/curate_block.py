"""The read block a curate publish holds (SPEC §15.6): while it stands, recall for the
blocked subjects (``*`` = the whole tenant) is protected empty with reason
``curate_publishing``, so no reader ever sees a half-switched memory base.

Written by the curate service, read by recall; both are services, so it lives here.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, exists, or_, select

from memwarden_shared.store.dialect import insert_ignore
from memwarden_shared.store.schema import curate_blocks

CURATE_PUBLISHING = "curate_publishing"
WHOLE_TENANT = "*"


def blocked(tenant_id: Any, subject_id: Any) -> Any:
    """``EXISTS`` a publish block on this tenant + subject (or the whole tenant). A SQL
    expression, so recall evaluates it in the same statement (one snapshot) as its rows."""
    return exists().where(
        curate_blocks.c.tenant_id == tenant_id,
        or_(curate_blocks.c.subject_id == subject_id, curate_blocks.c.subject_id == WHOLE_TENANT),
    )


def block_reason(conn: Connection, tenant_id: str, subject_id: str) -> str | None:
    """The reason recall is blocked for this subject now, or None."""
    return conn.execute(
        select(curate_blocks.c.reason)
        .where(
            curate_blocks.c.tenant_id == tenant_id,
            curate_blocks.c.subject_id.in_([subject_id, WHOLE_TENANT]),
        )
        .limit(1)
    ).scalar()


def set_blocks(
    conn: Connection, tenant_id: str, subjects: Iterable[str], run_id: str, now: datetime
) -> None:
    """Block recall for ``subjects`` (``["*"]`` for the tenant). ON CONFLICT DO NOTHING:
    a second publish of the same scope finds the first one's block and is refused by the
    caller, which checks who holds it."""
    insert_ignore(
        conn,
        curate_blocks,
        [
            {
                "tenant_id": tenant_id,
                "subject_id": s,
                "run_id": run_id,
                "reason": CURATE_PUBLISHING,
                "created_at": now,
            }
            for s in sorted(set(subjects))
        ],
        ["tenant_id", "subject_id"],
    )


def holders(conn: Connection, tenant_id: str, subjects: Iterable[str]) -> set[str]:
    """Runs holding a block that overlaps ``subjects`` (``["*"]`` overlaps every block)."""
    subjects = set(subjects)
    stmt = select(curate_blocks.c.run_id).where(curate_blocks.c.tenant_id == tenant_id)
    if WHOLE_TENANT not in subjects:
        stmt = stmt.where(curate_blocks.c.subject_id.in_(sorted(subjects | {WHOLE_TENANT})))
    return {r.run_id for r in conn.execute(stmt)}


def lift_blocks(conn: Connection, tenant_id: str, run_id: str) -> None:
    """Lift the blocks of run ``run_id`` of ``tenant_id`` (run ids are unique per tenant)."""
    conn.execute(
        delete(curate_blocks).where(
            curate_blocks.c.tenant_id == tenant_id, curate_blocks.c.run_id == run_id
        )
    )
