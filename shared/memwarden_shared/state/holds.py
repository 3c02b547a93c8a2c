"""Review holds: scopes whose new proposals go to review instead of auto-commit.

Two things place a hold: the write-rate anomaly detector (``shared.anomaly``: a subject,
session or extractor version writing far above its baseline) and a canary rollback
(``shared.rollout``: a rolled-back extractor version, held for every tenant). The gate reads
the holds of a batch's scopes with one query and adds the hold's reason to the review
reasons of each proposal inside one; an owner or reviewer clears a hold from the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, select, update

from memwarden_shared.store.db import dumps
from memwarden_shared.store.dialect import in_list, upsert
from memwarden_shared.store.schema import review_holds

# The tenant of a hold that applies to every tenant (a rolled-back extractor version).
ALL_TENANTS = "*"


class HoldReason(StrEnum):
    """The receipt reason a held proposal carries."""

    WRITE_RATE_ANOMALY = "write_rate_anomaly"
    EXTRACTOR_ROLLED_BACK = "extractor_rolled_back"


class ScopeKind(StrEnum):
    SUBJECT = "subject"
    SESSION = "session"
    PRODUCER = "producer"  # an extractor version


def scope_name(kind: ScopeKind, key: str) -> str:
    """``"<kind>:<key>"``: one column holds every kind of scope."""
    return f"{kind.value}:{key}"


@dataclass(frozen=True)
class Hold:
    tenant_id: str
    scope: str
    reason: str
    detail: dict[str, Any]
    created_at: datetime
    cleared_at: datetime | None
    cleared_by: str | None

    @property
    def active(self) -> bool:
        return self.cleared_at is None

    def as_json(self) -> dict[str, Any]:
        return {
            "tenant_id": self.tenant_id,
            "scope": self.scope,
            "reason": self.reason,
            "detail": self.detail,
            "created_at": self.created_at.isoformat(),
            "cleared_at": self.cleared_at.isoformat() if self.cleared_at else None,
            "cleared_by": self.cleared_by,
        }


def hold_from(row: Mapping[str, Any]) -> Hold:
    """A hold from its ``review_holds`` row (a mapping)."""
    return Hold(
        row["tenant_id"],
        row["scope"],
        row["reason"],
        json.loads(row["detail"] or "{}"),
        row["created_at"],
        row["cleared_at"],
        row["cleared_by"],
    )


def _hold(row: Any) -> Hold:
    return hold_from(row._mapping)


def holds_for(conn: Connection, tenants: set[str], scopes: set[str]) -> list[Hold]:
    """The holds (active and cleared) of ``scopes`` in ``tenants`` and in every tenant: one
    query however many scopes a batch names."""
    if not scopes:
        return []
    rows = conn.execute(
        select(review_holds).where(
            in_list(conn, review_holds.c.tenant_id, tenants | {ALL_TENANTS}),
            in_list(conn, review_holds.c.scope, scopes),
        )
    )
    wanted = tenants | {ALL_TENANTS}
    return [_hold(r) for r in rows if r.tenant_id in wanted]


def list_holds(conn: Connection, tenant_id: str | None, *, active_only: bool) -> list[Hold]:
    stmt = select(review_holds).order_by(review_holds.c.created_at)
    if tenant_id is not None:
        stmt = stmt.where(review_holds.c.tenant_id == tenant_id)
    if active_only:
        stmt = stmt.where(review_holds.c.cleared_at.is_(None))
    return [_hold(r) for r in conn.execute(stmt)]


def arm(
    conn: Connection,
    tenant_id: str,
    scope: str,
    reason: HoldReason,
    detail: dict[str, Any],
    now: datetime,
) -> bool:
    """Place a hold (or re-place a cleared one); False when it is already active.

    ``ON CONFLICT … DO UPDATE … WHERE cleared_at IS NOT NULL RETURNING``: two batches that
    trip the same scope at once both reach here; exactly one gets a row back, so exactly one
    announces the hold."""
    values = {
        "tenant_id": tenant_id,
        "scope": scope,
        "reason": reason.value,
        "detail": dumps(detail),
        "created_at": now,
        "cleared_at": None,
        "cleared_by": None,
    }
    stmt = upsert(
        conn,
        review_holds,
        ["tenant_id", "scope"],
        lambda new: (
            {k: new[k] for k in ("reason", "detail", "created_at", "cleared_at")}
            | {"cleared_by": None}
        ),
        where=review_holds.c.cleared_at.is_not(None),
    )
    return conn.execute(stmt.values(values).returning(review_holds.c.scope)).first() is not None


def clear(conn: Connection, tenant_id: str, scope: str, *, by: str, now: datetime) -> Hold | None:
    """Clear an active hold; returns it as it was, or None when there was none to clear."""
    row = conn.execute(
        select(review_holds).where(
            review_holds.c.tenant_id == tenant_id,
            review_holds.c.scope == scope,
            review_holds.c.cleared_at.is_(None),
        )
    ).first()
    if row is None:
        return None
    conn.execute(
        update(review_holds)
        .where(review_holds.c.tenant_id == tenant_id, review_holds.c.scope == scope)
        .values(cleared_at=now, cleared_by=by)
    )
    return _hold(row)
