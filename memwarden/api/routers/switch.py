"""The commit switch (seed 000, hard rollback): status, close, open, what it held back."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field

from memwarden.api import problems
from memwarden.api.problems import Problem
from memwarden.api.security import Authenticated, Reviewer, require
from memwarden.api.state import StateDep
from memwarden.api.strict_json import StrictJsonRoute
from memwarden_shared.state.auth import Forbidden, Principal, Scope
from memwarden_usecases import switch

router = APIRouter(
    route_class=StrictJsonRoute,
    prefix="/v1/switch",
    tags=["switch"],
    responses=problems.responses(401, 403, 422),
)


# a reader or a reviewer may ask whether commits flow
Watcher = Annotated[Principal, require(Scope.READ, Scope.REVIEW)]


class SwitchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field(min_length=1, max_length=60, pattern=r"^[A-Za-z0-9_.:@ -]+$")
    everyone: bool = Field(default=False, description="the global switch (memory:admin)")


class SwitchChanged(BaseModel):
    changed: bool
    status: dict[str, Any]


@router.get("", summary="The tenant's and the global commit switch")
def get_status(state: StateDep, principal: Watcher) -> dict[str, Any]:
    """``commits``: ``flowing`` or ``held`` (and which switch holds them)."""
    return switch.status(state.engine, principal, principal.tenant_id)


@router.post("/close", response_model=SwitchChanged, summary="Close the commit switch")
def post_close(body: SwitchIn, state: StateDep, principal: Reviewer) -> SwitchChanged:
    """Any reviewer may close the tenant's switch; the global one needs memory:admin."""
    try:
        changed = switch.close(
            state.engine, principal, principal.tenant_id, body.reason, everyone=body.everyone
        )
    except Forbidden as exc:
        raise Problem(403, str(exc), code="missing_scope") from None
    return SwitchChanged(changed=changed, status=switch.status_unchecked(state.engine, principal))


@router.post("/open", response_model=SwitchChanged, summary="Open the commit switch")
def post_open(body: SwitchIn, state: StateDep, principal: Authenticated) -> SwitchChanged:
    """Needs memory:admin and a reason; the feed announces it."""
    try:
        changed = switch.open_(
            state.engine, principal, principal.tenant_id, body.reason, everyone=body.everyone
        )
    except Forbidden as exc:
        raise Problem(403, str(exc), code="missing_scope") from None
    return SwitchChanged(changed=changed, status=switch.status_unchecked(state.engine, principal))


@router.get("/quarantine", summary="Proposals the closed switch held back")
def get_quarantine(
    state: StateDep, principal: Reviewer, limit: Annotated[int, Query(ge=1, le=500)] = 100
) -> dict[str, Any]:
    """Newest first, each with the decision it would have had."""
    rows = switch.quarantined(state.engine, principal, principal.tenant_id, limit=limit)
    return {"quarantined": rows, "count": len(rows)}
