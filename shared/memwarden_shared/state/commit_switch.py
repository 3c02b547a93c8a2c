"""The commit switch (seed 000, hard rollback): the one owner of its state.

While a tenant's switch (or the global one, tenant ``*``) is closed, the gate commits
nothing for that tenant: it decides as usual, records the would-be decision in
``switch_quarantine`` and answers QUARANTINE ``commit_switch_closed``. Recall keeps serving
what was committed before the switch closed (the last good state); revocations still apply.

Closing needs no operator: a cross-tenant write, a stored secret or revocation residue found
by the audit, and a canary whose refusal rates jump each call :func:`trip`. Opening needs
``memory:admin`` and a reason (checked by the use case). Each change goes on the feed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, select

from memwarden_shared.contract.models import Topic
from memwarden_shared.delivery.outbox import emit_many
from memwarden_shared.store.db import dumps
from memwarden_shared.store.dialect import in_list, upsert
from memwarden_shared.store.schema import commit_switches

GLOBAL = "*"  # the switch that holds every tenant


class SwitchState(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


class Trigger(StrEnum):
    """What closed a switch without an operator."""

    CROSS_TENANT_WRITE = "cross_tenant_write"
    STORED_SECRET = "stored_secret"
    REVOCATION_RESIDUE = "revocation_residue"
    CANARY_REFUSAL_JUMP = "canary_refusal_jump"


@dataclass(frozen=True)
class Switch:
    tenant_id: str
    state: SwitchState
    reason: str
    detail: dict[str, Any]
    changed_by: str
    changed_at: datetime | None

    @property
    def closed(self) -> bool:
        return self.state == SwitchState.CLOSED

    def as_json(self) -> dict[str, Any]:
        return {
            "tenant_id": self.tenant_id,
            "state": self.state.value,
            "reason": self.reason,
            "detail": self.detail,
            "changed_by": self.changed_by,
            "changed_at": self.changed_at.isoformat() if self.changed_at else None,
        }


def _switch(row: Any) -> Switch:
    return Switch(
        row.tenant_id,
        SwitchState(row.state),
        row.reason,
        json.loads(row.detail or "{}"),
        row.changed_by,
        row.changed_at,
    )


def never_changed(tenant_id: str) -> Switch:
    return Switch(tenant_id, SwitchState.OPEN, "never_closed", {}, "", None)


def switches(conn: Connection, tenant_ids: set[str]) -> dict[str, Switch]:
    """The stored switches of ``tenant_ids`` and the global one (absent: never changed)."""
    wanted = set(tenant_ids) | {GLOBAL}
    rows = conn.execute(
        select(commit_switches).where(in_list(conn, commit_switches.c.tenant_id, wanted))
    )
    return {r.tenant_id: _switch(r) for r in rows}


def closed_for(conn: Connection, tenant_ids: set[str]) -> dict[str, Switch]:
    """For each tenant whose commits are held: the closed switch holding it (its own first,
    else the global one). One query for a whole batch."""
    found = switches(conn, tenant_ids)
    out: dict[str, Switch] = {}
    for tenant in tenant_ids:
        own, everyone = found.get(tenant), found.get(GLOBAL)
        holding = own if own and own.closed else everyone if everyone and everyone.closed else None
        if holding is not None:
            out[tenant] = holding
    return out


def _set(
    conn: Connection,
    tenant_id: str,
    state: SwitchState,
    reason: str,
    detail: dict[str, Any],
    by: str,
    now: datetime,
) -> bool:
    """Move the switch to ``state``; False when it was already there.

    ``ON CONFLICT … DO UPDATE … WHERE state <> new RETURNING``: two triggers closing at once
    both reach here and exactly one gets a row back, so exactly one event is announced."""
    values = {
        "tenant_id": tenant_id,
        "state": state.value,
        "reason": reason,
        "detail": dumps(detail),
        "changed_by": by,
        "changed_at": now,
    }
    stmt = upsert(
        conn,
        commit_switches,
        ["tenant_id"],
        lambda new: {k: new[k] for k in ("state", "reason", "detail", "changed_by", "changed_at")},
        where=commit_switches.c.state != state.value,
    )
    changed = conn.execute(stmt.values(values).returning(commit_switches.c.tenant_id)).first()
    if changed is None:
        return False
    topic = (
        Topic.COMMIT_SWITCH_CLOSED if state == SwitchState.CLOSED else Topic.COMMIT_SWITCH_OPENED
    )
    emit_many(
        conn,
        [
            (
                topic,
                f"{tenant_id}:{state.value}:{now.isoformat()}",
                tenant_id,
                {"tenant_id": tenant_id, "reason": reason, "by": by, **detail},
            )
        ],
    )
    return True


def close(
    conn: Connection, tenant_id: str, reason: str, *, by: str, now: datetime, detail: Any = None
) -> bool:
    """Close ``tenant_id``'s switch (``*``: every tenant's); False when already closed."""
    return _set(conn, tenant_id, SwitchState.CLOSED, reason, dict(detail or {}), by, now)


def open_(conn: Connection, tenant_id: str, reason: str, *, by: str, now: datetime) -> bool:
    """Open ``tenant_id``'s switch; False when it was not closed."""
    return _set(conn, tenant_id, SwitchState.OPEN, reason, {}, by, now)


def trip(
    conn: Connection,
    tenant_id: str,
    trigger: Trigger,
    detail: dict[str, Any],
    *,
    scope: str,
    now: datetime,
) -> bool:
    """Close without an operator: the tenant's switch, or the global one when ``scope`` (the
    ``commit_switch_scope`` setting) is ``global`` or the tenant is unknown."""
    target = GLOBAL if scope == "global" or not tenant_id else tenant_id
    return close(conn, target, trigger.value, by=f"trigger:{trigger.value}", now=now, detail=detail)
