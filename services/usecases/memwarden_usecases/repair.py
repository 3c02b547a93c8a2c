"""Repair that closes (seed 002, retraction as repair steps 5-7): the open repairs of a
tenant, recording what cannot be undone, and closing a repair (by whom, when)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine

from memwarden_shared.state.action_repair import (
    ActionState,
    RepairRefused,
    mark_repair,
    open_repairs,
)
from memwarden_shared.state.auth import Principal, Scope, authorize
from memwarden_shared.store.db import as_utc, unit_of_work, utcnow

__all__ = ["RepairRefused", "close", "irreversible", "repairs"]


def _iso(value: Any) -> str | None:
    moment = as_utc(value)
    return moment.isoformat() if moment else None


def _repair(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "action_id": row["action_id"],
        "subject_id": row["subject_id"],
        "intent": row["intent"],
        "state": str(row["state"]),
        "state_reason": row["state_reason"],
        "external_ref": row["external_ref"],
        "memory_versions": json.loads(row["uses_json"]),
        "requested_by": row["requested_by"],
        "needs_repair_since": _iso(row.get("needs_repair_at")),
        "note": row.get("repair_note"),
        "recorded_by": row.get("repaired_by"),
        "repaired_at": _iso(row.get("repaired_at")),
    }


def repairs(engine: Engine, tenant_id: str) -> list[dict[str, Any]]:
    """Open repairs, oldest first: executed actions whose memory was retracted
    (``needs_repair``) and effects recorded as ``irreversible``, until someone closes them."""
    with unit_of_work(engine) as uow:
        return [_repair(r) for r in open_repairs(uow.conn, tenant_id)]


def _mark(
    engine: Engine,
    principal: Principal,
    tenant_id: str,
    action_id: str,
    target: ActionState,
    note: str,
) -> dict[str, Any]:
    authorize(principal, Scope.REVIEW, tenant_id)
    if not note.strip():
        raise RepairRefused("a repair record needs a note: what was done or why it cannot be")
    with unit_of_work(engine) as uow:
        row = mark_repair(
            uow.conn,
            tenant_id,
            action_id,
            target,
            by=principal.principal_id,
            note=note.strip(),
            now=utcnow(),
        )
        uow.commit()
    return _repair(row)


def irreversible(
    engine: Engine, principal: Principal, tenant_id: str, action_id: str, note: str
) -> dict[str, Any]:
    """Record that the action's effect cannot be undone (``note`` says what remains); the
    repair stays open on the list until it is closed."""
    return _mark(engine, principal, tenant_id, action_id, ActionState.IRREVERSIBLE, note)


def close(
    engine: Engine, principal: Principal, tenant_id: str, action_id: str, note: str
) -> dict[str, Any]:
    """Close the repair: ``repaired`` by the principal, now, with what was done."""
    return _mark(engine, principal, tenant_id, action_id, ActionState.REPAIRED, note)
