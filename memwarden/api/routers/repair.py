"""Repair that closes (seed 002): the open repairs, irreversible effects, closing."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, ConfigDict, Field

from memwarden.api import problems
from memwarden.api.problems import Problem
from memwarden.api.security import ReaderOrReviewer, Reviewer
from memwarden.api.state import StateDep
from memwarden.api.strict_json import StrictJsonRoute
from memwarden_shared.state.auth import Forbidden
from memwarden_usecases import repair

router = APIRouter(
    route_class=StrictJsonRoute,
    prefix="/v1/repairs",
    tags=["repairs"],
    responses=problems.responses(401, 403, 422),
)

ActionId = Annotated[str, Path(pattern=r"^act_[0-9a-f]{32}$")]


class RepairNoteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str = Field(min_length=1, max_length=2000, description="what was done, or what remains")


@router.get("", summary="Open repairs: needs_repair and irreversible, oldest first")
def get_repairs(state: StateDep, principal: ReaderOrReviewer) -> dict[str, Any]:
    rows = repair.repairs(state.engine, principal.tenant_id)
    return {"repairs": rows, "open": len(rows)}


def _mark(
    state: StateDep, principal: Any, action_id: str, note: str, *, closing: bool
) -> dict[str, Any]:
    mark = repair.close if closing else repair.irreversible
    try:
        return mark(state.engine, principal, principal.tenant_id, action_id, note)
    except Forbidden as exc:
        raise Problem(403, str(exc), code="missing_scope") from None
    except repair.RepairRefused as exc:
        raise Problem(409, str(exc), code="no_open_repair", title="Repair refused") from None


@router.post(
    "/{action_id}/irreversible",
    summary="Record that an action's effect cannot be undone (stays open)",
    responses=problems.responses(409),
)
def post_irreversible(
    action_id: ActionId, body: RepairNoteIn, state: StateDep, principal: Reviewer
) -> dict[str, Any]:
    return _mark(state, principal, action_id, body.note, closing=False)


@router.post(
    "/{action_id}/close",
    summary="Close a repair: repaired, by the caller, now",
    responses=problems.responses(409),
)
def post_close(
    action_id: ActionId, body: RepairNoteIn, state: StateDep, principal: Reviewer
) -> dict[str, Any]:
    return _mark(state, principal, action_id, body.note, closing=True)
