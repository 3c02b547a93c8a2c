"""Act (SPEC §14): ask the action gate before a side effect, approve an action that waits for
approval, report what happened, and read actions back (by memory, awaiting approval, the
repair list of a retracted message)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from memwarden_actions.io import request_action
from memwarden_actions.lifecycle import (
    OutcomeStatus,
    actions_for_memory,
    affected_by_message,
    approve_action,
    get_action,
    pending_approvals,
    report_outcome,
)
from memwarden_actions.receipts import (
    ActionKeyConflict,
    ActionRefused,
    UnknownAction,
    UnknownIntent,
)
from memwarden_actions.request import INTENT_PATTERN, USES_PATTERN, ActionRequest
from memwarden_shared.state import read_log
from memwarden_shared.state.auth import Principal
from memwarden_shared.store.db import unit_of_work, utcnow

__all__ = [
    "INTENT_PATTERN",
    "USES_PATTERN",
    "ActionKeyConflict",
    "ActionRefused",
    "ActionRequest",
    "OutcomeStatus",
    "UnknownAction",
    "UnknownIntent",
    "affected",
    "approve",
    "for_memory",
    "get",
    "outcome",
    "pending",
    "request",
]

Receipt = dict[str, Any]


def request(engine: Engine, principal: Principal, req: ActionRequest) -> Receipt:
    """Decide ``req`` from the store at this moment and return its receipt. A principal
    without ``action:request`` gets a recorded ``DENY not_authorised``; the same key again
    returns the first receipt as ``DUPLICATE``. Raises :class:`ActionKeyConflict` (the key
    was used with other intent or params), :class:`UnknownIntent`, or ``Forbidden`` for a
    principal of another tenant.

    The memory versions a fresh decision read go to the read log (surface ``action``)."""
    receipt = request_action(req, principal, engine=engine)
    if receipt.get("decision") not in _NOT_READ:
        rows = read_log.rows_for(
            req.tenant_id,
            req.subject_id,
            principal.principal_id,
            read_log.Surface.ACTION,
            [_version(name) for name in receipt.get("memory_versions") or []],
            utcnow(),
        )
        with unit_of_work(engine) as uow:
            read_log.record(uow.conn, rows)
            uow.commit()
    return receipt


# a replay or a refused key read nothing new: the first decision's read was logged then
_NOT_READ = frozenset({"DUPLICATE", "KEY_CONFLICT"})


def _version(name: str) -> tuple[str, int]:
    memory_id, _, version = name.rpartition(":")
    return memory_id, int(version)


def approve(
    engine: Engine, principal: Principal, tenant_id: str, action_id: str, request_hash: str
) -> Receipt:
    """Approve a NEEDS_APPROVAL action bound to its request hash, by another principal than
    the requester; cancelled instead when a used memory no longer passes."""
    return approve_action(principal, tenant_id, action_id, request_hash, engine=engine)


def outcome(
    engine: Engine,
    principal: Principal,
    tenant_id: str,
    action_id: str,
    status: OutcomeStatus,
    external_ref: str | None,
) -> Receipt:
    """Record what happened to an allowed action; the receipt's ``state`` tells the caller
    when a retraction cancelled it meanwhile."""
    return report_outcome(principal, tenant_id, action_id, status, external_ref, engine=engine)


def get(engine: Engine, tenant_id: str, action_id: str) -> Receipt:
    """One action's receipt; :class:`UnknownAction` when the tenant has no such action."""
    return get_action(tenant_id, action_id, engine=engine)


def for_memory(engine: Engine, tenant_id: str, memory_id: str) -> list[Receipt]:
    """Every action of the tenant that read any version of ``memory_id``."""
    return actions_for_memory(tenant_id, memory_id, engine=engine)


def pending(engine: Engine, tenant_id: str) -> list[Receipt]:
    """Actions awaiting approval, with their params (for approvers)."""
    return pending_approvals(tenant_id, engine=engine)


def affected(engine: Engine, tenant_id: str, message_id: str) -> dict[str, Any]:
    """The repair list of a retracted message: the memory versions citing it or derived from
    one that does, and every action that read one of them."""
    return affected_by_message(tenant_id, message_id, engine=engine)
