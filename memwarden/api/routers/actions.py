"""The action gate over HTTP (SPEC §14): ask before a side effect, approve, report outcomes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from pydantic import ValidationError

from memwarden.api import problems
from memwarden.api.action_schemas import (
    ActionIn,
    ActionsOut,
    ApproveActionIn,
    OutcomeIn,
    PendingActionsOut,
    RepairListOut,
)
from memwarden.api.problems import Problem
from memwarden.api.security import Authenticated
from memwarden.api.state import StateDep
from memwarden.api.strict_json import StrictJsonRoute
from memwarden.types import ActionReceipt
from memwarden_shared.state.auth import Forbidden, Scope
from memwarden_usecases import act
from memwarden_usecases.act import ActionRefused, UnknownAction

router = APIRouter(
    route_class=StrictJsonRoute,
    prefix="/v1/actions",
    tags=["actions"],
    responses=problems.responses(401, 403, 422),
)

ActionId = Annotated[str, Path(pattern=r"^act_[0-9a-f]{32}$")]


def _refused(exc: Exception) -> Problem:
    if isinstance(exc, UnknownAction):  # also what another tenant's action looks like
        return Problem(404, "no such action", code="unknown_action")
    if isinstance(exc, Forbidden):
        return Problem(403, str(exc), code="missing_scope")
    return Problem(409, str(exc), code="action_refused", title="Action refused")


@router.post(
    "",
    response_model=ActionReceipt,
    summary="Ask the action gate before a side effect",
    responses=problems.responses(409),
)
def post_action(body: ActionIn, state: StateDep, principal: Authenticated) -> ActionReceipt:
    """Decides from the store at this moment. A principal without ``action:request`` gets a
    recorded ``DENY not_authorised``. The same idempotency key with the same intent and params
    returns the first receipt as ``DUPLICATE``; with others it is 409 ``key_conflict``."""
    try:
        req = act.ActionRequest(tenant_id=principal.tenant_id, **body.model_dump())
    except ValidationError as exc:
        fields = sorted({".".join(str(x) for x in e["loc"]) for e in exc.errors()})
        raise Problem(422, f"invalid action request: {', '.join(fields)}", code="invalid") from None
    try:
        got = act.request(state.engine, principal, req)
    except act.ActionKeyConflict as exc:
        raise Problem(409, str(exc), code="key_conflict", title="KEY_CONFLICT") from None
    except act.UnknownIntent as exc:
        raise Problem(422, str(exc), code="unknown_intent") from None
    return ActionReceipt.model_validate(got)


@router.get("", response_model=ActionsOut, summary="Actions that read a memory")
def get_actions(
    state: StateDep,
    principal: Authenticated,
    memory: Annotated[str, Query(pattern=r"^mem_[0-9a-f]{32}$", description="memory id")],
) -> ActionsOut:
    if not (principal.allows(Scope.READ) or principal.allows(Scope.ACTION_REQUEST)):
        raise Problem(403, "this call needs memory:read or action:request", code="missing_scope")
    rows = act.for_memory(state.engine, principal.tenant_id, memory)
    return ActionsOut.model_validate({"actions": rows})


@router.get(
    "/pending",
    response_model=PendingActionsOut,
    summary="Actions awaiting approval, with their params (for approvers)",
)
def get_pending(state: StateDep, principal: Authenticated) -> PendingActionsOut:
    if not principal.allows(Scope.ACTION_APPROVE):
        raise Problem(403, "this call needs action:approve", code="missing_scope")
    rows = act.pending(state.engine, principal.tenant_id)
    return PendingActionsOut.model_validate({"actions": rows})


@router.get(
    "/affected",
    response_model=RepairListOut,
    summary="The repair list of a retracted message",
)
def get_affected(
    state: StateDep,
    principal: Authenticated,
    message: Annotated[str, Query(min_length=1, max_length=200, description="message id")],
) -> RepairListOut:
    """Every memory version citing the message or derived from one that does, and every
    action that read one of them, with its state, external reference and owner."""
    if not any(principal.allows(s) for s in (Scope.READ, Scope.REVIEW, Scope.ACTION_APPROVE)):
        raise Problem(
            403,
            "this call needs memory:read, memory:review or action:approve",
            code="missing_scope",
        )
    return RepairListOut.model_validate(act.affected(state.engine, principal.tenant_id, message))


@router.get(
    "/{action_id}",
    response_model=ActionReceipt,
    summary="One action's receipt (poll it to learn of a cancellation)",
    responses=problems.responses(404),
)
def get_one(action_id: ActionId, state: StateDep, principal: Authenticated) -> ActionReceipt:
    try:
        return ActionReceipt.model_validate(act.get(state.engine, principal.tenant_id, action_id))
    except UnknownAction as exc:
        raise _refused(exc) from None


@router.post(
    "/{action_id}/approve",
    response_model=ActionReceipt,
    summary="Approve a NEEDS_APPROVAL action, bound to its request hash",
    responses=problems.responses(404, 409),
)
def post_approve(
    action_id: ActionId, body: ApproveActionIn, state: StateDep, principal: Authenticated
) -> ActionReceipt:
    """Needs ``action:approve`` and a principal other than the requester. The used memories
    are checked again now; if one no longer passes, the action is cancelled instead."""
    try:
        got = act.approve(
            state.engine, principal, principal.tenant_id, action_id, body.request_hash
        )
    except (UnknownAction, ActionRefused, Forbidden) as exc:
        raise _refused(exc) from None
    return ActionReceipt.model_validate(got)


@router.post(
    "/{action_id}/outcome",
    response_model=ActionReceipt,
    summary="Report what happened: executed | failed | cancelled",
    responses=problems.responses(404, 409),
)
def post_outcome(
    action_id: ActionId, body: OutcomeIn, state: StateDep, principal: Authenticated
) -> ActionReceipt:
    """The answer's ``state`` tells the caller when a retraction cancelled the action
    meanwhile; an execution reported after that is recorded as ``needs_repair``."""
    try:
        got = act.outcome(
            state.engine,
            principal,
            principal.tenant_id,
            action_id,
            act.OutcomeStatus(body.status),
            body.external_ref,
        )
    except (UnknownAction, ActionRefused, Forbidden) as exc:
        raise _refused(exc) from None
    state.after_write()
    return ActionReceipt.model_validate(got)
