"""Retraction as repair (SPEC §14, seed 002): when memory versions leave recall, every action
that read one of them is found; an allowed action not yet executed is cancelled, an executed
one is marked ``needs_repair`` with the external reference the caller reported.

``cancel_actions_using`` is subscribed to retractions (``state.retraction``) when this module
is imported: the state owner announces each version that stops being committed, inside its
transaction, and this repair runs there. Lock order: the caller has already
updated the memory version rows; the action gate holds ``FOR SHARE`` on those same rows while
it decides, so a revocation waits for a deciding action and then sees its row here, or the
action waits for the revocation and then sees the version gone. Never neither.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, select, update

from memwarden_shared.contract.models import Topic
from memwarden_shared.delivery.outbox import emit_many
from memwarden_shared.observe import metrics
from memwarden_shared.state.retraction import subscribe
from memwarden_shared.store.db import as_utc
from memwarden_shared.store.dialect import in_list, lock_rows
from memwarden_shared.store.schema import action_uses, actions


class ActionState(StrEnum):
    ALLOWED = "allowed"  # may be executed; the caller reports the outcome
    AWAITING_APPROVAL = "awaiting_approval"
    DENIED = "denied"
    EXECUTED = "executed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    NEEDS_REPAIR = "needs_repair"
    IRREVERSIBLE = "irreversible"  # the effect cannot be undone: noted, still tracked
    REPAIRED = "repaired"  # the repair is closed (by whom, when)


# A repair is open while the action is in one of these states.
OPEN_REPAIR = (ActionState.NEEDS_REPAIR, ActionState.IRREVERSIBLE)


# What a retraction does to an action in each state; states not listed stay as they are.
REPAIR = {
    ActionState.ALLOWED: ActionState.CANCELLED,
    ActionState.AWAITING_APPROVAL: ActionState.CANCELLED,
    ActionState.EXECUTED: ActionState.NEEDS_REPAIR,
}


def actions_using(
    conn: Connection, tenant_id: str, versions: Iterable[tuple[str, int]]
) -> list[dict[str, Any]]:
    """Action rows of ``tenant_id`` that read any of ``versions``, oldest first."""
    wanted = set(versions)
    if not wanted:
        return []
    edges = conn.execute(
        select(action_uses.c.action_id, action_uses.c.memory_id, action_uses.c.version).where(
            action_uses.c.tenant_id == tenant_id,
            in_list(conn, action_uses.c.memory_id, {m for m, _ in wanted}),
        )
    ).all()
    ids = sorted({e.action_id for e in edges if (e.memory_id, e.version) in wanted})
    if not ids:
        return []
    rows = conn.execute(
        select(actions).where(in_list(conn, actions.c.action_id, ids)).order_by(actions.c.id)
    ).mappings()
    return [dict(r) for r in rows]


def cancel_actions_using(
    conn: Connection,
    tenant_id: str,
    versions: Iterable[tuple[str, int]],
    now: datetime,
    reason: str = "memory_retracted",
) -> list[dict[str, Any]]:
    """Apply the repair to every action that read one of ``versions`` (memory_id, version),
    inside the caller's transaction; returns the actions whose state changed.

    The action rows are locked (in action id order, the order every caller uses) before their
    state is read, so a concurrent outcome report is either seen here or sees our change.
    """
    versions = list(versions)
    ids = [r["action_id"] for r in actions_using(conn, tenant_id, versions)]
    if not ids:
        return []
    stmt = select(actions).where(in_list(conn, actions.c.action_id, ids))
    stmt = lock_rows(conn, stmt.order_by(actions.c.action_id))
    changed = []
    events: list[tuple[Topic, str, str, dict[str, Any]]] = []
    for row in conn.execute(stmt).mappings().all():
        target = REPAIR.get(ActionState(row["state"]))
        if target is None:
            continue
        values: dict[str, Any] = {"state": target, "state_reason": reason, "updated_at": now}
        if target == ActionState.NEEDS_REPAIR:
            values["needs_repair_at"] = now
        else:
            # the re-ask against the current store: an action bound to exact versions no
            # longer passes once one of them leaves commit, so it is cancelled
            metrics.ACTION_RECHECKS_FAILED.labels(reason).inc()
        conn.execute(
            update(actions).where(actions.c.action_id == row["action_id"]).values(**values)
        )
        topic = (
            Topic.ACTION_CANCELLED
            if target == ActionState.CANCELLED
            else (Topic.ACTION_NEEDS_REPAIR)
        )
        payload = {
            "action_id": row["action_id"],
            "intent": row["intent"],
            "subject_id": row["subject_id"],
            "requested_by": row["requested_by"],
            "state": target.value,
            "external_ref": row["external_ref"],
            "memory_versions": json.loads(row["uses_json"]),
            "reason": reason,
        }
        events.append((topic, f"{row['action_id']}:{target.value}", tenant_id, payload))
        changed.append({**row, "state": target.value, "state_reason": reason})
    emit_many(conn, events)
    return changed


subscribe(cancel_actions_using)


class RepairRefused(ValueError):
    """The action has no open repair to mark or close."""


def open_repairs(conn: Connection, tenant_id: str) -> list[dict[str, Any]]:
    """The tenant's open repairs (needs_repair, irreversible), oldest first; sets the
    unrepaired-effects gauge to how many there are."""
    rows = conn.execute(
        select(actions)
        .where(
            actions.c.tenant_id == tenant_id, actions.c.state.in_([s.value for s in OPEN_REPAIR])
        )
        .order_by(actions.c.id)
    ).mappings()
    out = [dict(r) for r in rows]
    metrics.UNREPAIRED_EFFECTS.set(len(out))
    return out


def mark_repair(
    conn: Connection,
    tenant_id: str,
    action_id: str,
    target: ActionState,
    *,
    by: str,
    note: str,
    now: datetime,
) -> dict[str, Any]:
    """Move an open repair to ``irreversible`` (what cannot be undone, with a note; it stays
    open) or ``repaired`` (closed by ``by`` at ``now``). :class:`RepairRefused` otherwise."""
    if target not in (ActionState.IRREVERSIBLE, ActionState.REPAIRED):
        raise RepairRefused(f"a repair moves to irreversible or repaired, not {target}")
    row = (
        conn.execute(
            lock_rows(
                conn,
                select(actions).where(
                    actions.c.tenant_id == tenant_id, actions.c.action_id == action_id
                ),
            )
        )
        .mappings()
        .first()
    )
    if row is None or ActionState(row["state"]) not in OPEN_REPAIR:
        raise RepairRefused("no open repair for this action")
    values: dict[str, Any] = {"state": target, "updated_at": now, "repair_note": note}
    if target == ActionState.REPAIRED:
        values |= {"repaired_by": by, "repaired_at": now}
        began = as_utc(row["needs_repair_at"]) or as_utc(row["updated_at"])
        if began is not None:
            metrics.TIME_TO_REPAIR.labels(row["state"]).observe((now - began).total_seconds())
    else:
        values |= {"repaired_by": by}  # who recorded the effect as irreversible
    conn.execute(update(actions).where(actions.c.action_id == action_id).values(**values))
    return {**row, **{k: (v.value if isinstance(v, StrEnum) else v) for k, v in values.items()}}
