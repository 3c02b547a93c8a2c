"""What happens to an action after its decision: another principal's approval, the outcome
the caller reports, and the repair list a retraction produces (SPEC §14, seed 002).

Lock order everywhere: memory rows (share) before action rows (update), the order the
retraction cascade takes them in (``shared.action_repair``), so the two never deadlock.
"""

from __future__ import annotations

import json
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, Engine, select, update

from memwarden_actions.decide import ActionDecision, decide_action
from memwarden_actions.io import load_action, read_used
from memwarden_actions.receipts import ActionRefused, UnknownAction, receipt
from memwarden_actions.request import ActionRequest
from memwarden_shared.contract.models import Topic
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.delivery.outbox import emit
from memwarden_shared.state.action_repair import ActionState, actions_using
from memwarden_shared.state.auth import Principal, Scope, authorize
from memwarden_shared.store.db import get_engine, unit_of_work, utcnow
from memwarden_shared.store.schema import action_uses, actions, memory_evidence, memory_versions


class OutcomeStatus(StrEnum):
    EXECUTED = "executed"
    FAILED = "failed"
    CANCELLED = "cancelled"


def approve_action(
    principal: Principal,
    tenant_id: str,
    action_id: str,
    request_hash: str,
    *,
    engine: Engine | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Approve a NEEDS_APPROVAL action. The approval binds the request hash (intent, params,
    exact memory versions), comes from a principal other than the requester, and executes
    only if every used memory still passes the checks now; otherwise the action is cancelled.
    """
    authorize(principal, Scope.ACTION_APPROVE, tenant_id)
    now = now or utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        first = load_action(conn, tenant_id, action_id)
        if first is None:
            raise UnknownAction(action_id)
        if first["requested_by"] == principal.principal_id:
            raise ActionRefused("the requester cannot approve its own action")
        if first["request_hash"] != request_hash:
            raise ActionRefused("the approval names another request (request hash differs)")
        used = read_used(conn, _stored_request(first), default_registry())  # share locks first
        row = load_action(conn, tenant_id, action_id, lock=True)
        if row["state"] != ActionState.AWAITING_APPROVAL:
            if row["approved_by"] == principal.principal_id:
                return receipt(row)  # the same approval again
            raise ActionRefused(f"action is {row['state']}, not awaiting approval")
        verdict = decide_action(
            intent=row["intent"],
            known_intent=True,  # only a registered intent can be awaiting approval
            high_consequence=False,
            may_request=True,
            purpose=row["purpose"],
            used=used,
            now=now,
        )
        values: dict[str, Any] = {"updated_at": now}
        if verdict.decision == ActionDecision.ALLOW:
            values.update(
                state=ActionState.ALLOWED, approved_by=principal.principal_id, approved_at=now
            )
        else:  # the world moved between request and approval: the approval cannot stand
            values.update(state=ActionState.CANCELLED, state_reason=verdict.reasons[0])
            emit(
                conn,
                Topic.ACTION_CANCELLED,
                f"{action_id}:{ActionState.CANCELLED.value}",
                tenant_id,
                _event_payload(row, ActionState.CANCELLED, row["external_ref"], verdict.reasons[0]),
            )
        conn.execute(update(actions).where(actions.c.action_id == action_id).values(**values))
        row = load_action(conn, tenant_id, action_id)
        uow.commit()
    return receipt(row)


def _event_payload(row: Any, state: ActionState, ref: str | None, reason: str) -> dict[str, Any]:
    """The feed's view of an action: who asked, what for, with which memories; no params."""
    return {
        "action_id": row["action_id"],
        "intent": row["intent"],
        "subject_id": row["subject_id"],
        "requested_by": row["requested_by"],
        "state": state.value,
        "external_ref": ref,
        "memory_versions": json.loads(row["uses_json"]),
        "reason": reason,
    }


def _stored_request(row: Any) -> ActionRequest:
    return ActionRequest(
        tenant_id=row["tenant_id"],
        subject_id=row["subject_id"],
        intent=row["intent"],
        params=json.loads(row["params_json"]),
        uses=json.loads(row["uses_json"]),
        idempotency_key=row["idempotency_key"],
        purpose=row["purpose"],
    )


# (state, reported) -> new state. A report on a cancelled action that says it ran anyway is
# an effect that happened on retracted authority: it needs repair.
TRANSITIONS = {
    (ActionState.ALLOWED, OutcomeStatus.EXECUTED): ActionState.EXECUTED,
    (ActionState.ALLOWED, OutcomeStatus.FAILED): ActionState.FAILED,
    (ActionState.ALLOWED, OutcomeStatus.CANCELLED): ActionState.CANCELLED,
    (ActionState.AWAITING_APPROVAL, OutcomeStatus.CANCELLED): ActionState.CANCELLED,
    (ActionState.CANCELLED, OutcomeStatus.EXECUTED): ActionState.NEEDS_REPAIR,
    (ActionState.CANCELLED, OutcomeStatus.FAILED): ActionState.CANCELLED,
    (ActionState.CANCELLED, OutcomeStatus.CANCELLED): ActionState.CANCELLED,
}
# Reports that repeat what is already recorded are answered with the receipt, unchanged.
# A repair only ever opens on an execution, so "executed" again is a repeat in all its states.
REPEATS = {
    (ActionState.EXECUTED, OutcomeStatus.EXECUTED),
    (ActionState.FAILED, OutcomeStatus.FAILED),
    (ActionState.NEEDS_REPAIR, OutcomeStatus.EXECUTED),
    (ActionState.IRREVERSIBLE, OutcomeStatus.EXECUTED),
    (ActionState.REPAIRED, OutcomeStatus.EXECUTED),
}


def _is_repeat(row: Any, state: ActionState, status: OutcomeStatus) -> bool:
    """A report that would change nothing but the record of when it came. The first report
    is the record: a caller that re-sends one (its reply lost to a crash or a timeout) gets
    the receipt as first answered, not a new ``reported_at`` and ``external_ref``. A cancelled
    action's recorded "failed" and "cancelled" both say no effect happened, so either repeats
    the other; "executed" after them does not (it opens a repair)."""
    if (state, status) in REPEATS:
        return True
    return row["outcome_at"] is not None and TRANSITIONS.get((state, status)) == state


def report_outcome(
    principal: Principal,
    tenant_id: str,
    action_id: str,
    status: OutcomeStatus,
    external_ref: str | None = None,
    *,
    engine: Engine | None = None,
    now: datetime | None = None,
) -> dict[str, Any]:
    """Record what the caller did with an action; returns the receipt (whose ``state`` tells
    a caller that its allowed action was cancelled meanwhile)."""
    authorize(principal, Scope.ACTION_REQUEST, tenant_id)
    now = now or utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        row = load_action(conn, tenant_id, action_id, lock=True)
        if row is None:
            raise UnknownAction(action_id)
        state = ActionState(row["state"])
        if _is_repeat(row, state, status):
            return receipt(row)
        target = TRANSITIONS.get((state, status))
        if target is None:
            raise ActionRefused(f"cannot report {status.value} for an action that is {state}")
        values: dict[str, Any] = {"state": target, "updated_at": now, "outcome_at": now}
        if external_ref is not None:
            values["external_ref"] = external_ref
        if target == ActionState.NEEDS_REPAIR:
            values["state_reason"] = "executed_after_cancel"
            values["needs_repair_at"] = now
            emit(
                conn,
                Topic.ACTION_NEEDS_REPAIR,
                f"{action_id}:{target.value}",
                tenant_id,
                _event_payload(row, target, external_ref, "executed_after_cancel"),
            )
        conn.execute(update(actions).where(actions.c.action_id == action_id).values(**values))
        row = load_action(conn, tenant_id, action_id)
        uow.commit()
    return receipt(row)


def get_action(tenant_id: str, action_id: str, *, engine: Engine | None = None) -> dict[str, Any]:
    with unit_of_work(engine or get_engine()) as uow:
        row = load_action(uow.conn, tenant_id, action_id)
    if row is None:
        raise UnknownAction(action_id)
    return receipt(row)


def actions_for_memory(
    tenant_id: str, memory_id: str, *, engine: Engine | None = None
) -> list[dict[str, Any]]:
    """Every action of the tenant that read any version of ``memory_id``."""
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        versions = conn.execute(
            select(action_uses.c.memory_id, action_uses.c.version).where(
                action_uses.c.tenant_id == tenant_id, action_uses.c.memory_id == memory_id
            )
        ).all()
        rows = actions_using(conn, tenant_id, [(r.memory_id, r.version) for r in versions])
    return [receipt(r) for r in rows]


def pending_approvals(tenant_id: str, *, engine: Engine | None = None) -> list[dict[str, Any]]:
    """Actions awaiting approval, oldest first, with their params (for the approver only)."""
    with unit_of_work(engine or get_engine()) as uow:
        rows = (
            uow.conn.execute(
                select(actions)
                .where(
                    actions.c.tenant_id == tenant_id,
                    actions.c.state == ActionState.AWAITING_APPROVAL,
                )
                .order_by(actions.c.id)
            )
            .mappings()
            .all()
        )
    return [{**receipt(r), "params": json.loads(r["params_json"])} for r in rows]


def affected_by_message(
    tenant_id: str, message_id: str, *, engine: Engine | None = None
) -> dict[str, Any]:
    """The repair list of a retracted message: every memory version citing it and every
    version derived from those (transitively), and every action that read one of them, with
    its state, external reference and owner (who requested it, for which subject)."""
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        memories = _affected_versions(conn, tenant_id, message_id)
        rows = actions_using(conn, tenant_id, [(m["memory_id"], m["version"]) for m in memories])
    repair = [r for r in rows if r["state"] == ActionState.NEEDS_REPAIR]
    return {
        "tenant_id": tenant_id,
        "message_id": message_id,
        "memories": memories,
        "actions": [
            {**receipt(r), "owner": r["requested_by"], "external_ref": r["external_ref"]}
            for r in rows
        ],
        "needs_repair": len(repair),
        "cancelled": sum(r["state"] == ActionState.CANCELLED for r in rows),
    }


def _affected_versions(conn: Connection, tenant_id: str, message_id: str) -> list[dict[str, Any]]:
    cited = conn.execute(
        select(memory_evidence.c.memory_id, memory_evidence.c.version).where(
            memory_evidence.c.tenant_id == tenant_id, memory_evidence.c.message_id == message_id
        )
    ).all()
    frontier = [(r.memory_id, r.version, "evidence") for r in cited]
    seen: dict[tuple[str, int], str] = {}
    while frontier:
        memory_id, version, via = frontier.pop()
        if (memory_id, version) in seen:
            continue
        seen[(memory_id, version)] = via
        for d in conn.execute(
            select(memory_versions.c.memory_id, memory_versions.c.version).where(
                memory_versions.c.tenant_id == tenant_id,
                memory_versions.c.derived_from.contains(f'"{memory_id}:{version}"'),
            )
        ):
            frontier.append((d.memory_id, d.version, "derived"))
    if not seen:
        return []
    out = []
    for r in conn.execute(
        select(memory_versions)
        .where(memory_versions.c.tenant_id == tenant_id)
        .where(memory_versions.c.memory_id.in_(sorted({m for m, _ in seen})))
        .order_by(memory_versions.c.memory_id, memory_versions.c.version)
    ):
        if (r.memory_id, r.version) in seen:
            out.append(
                {
                    "memory_id": r.memory_id,
                    "version": r.version,
                    "subject_id": r.subject_id,
                    "normalized_key": r.normalized_key,
                    "status": r.status,
                    "status_reason": r.status_reason,
                    "via": seen[(r.memory_id, r.version)],
                }
            )
    return out
