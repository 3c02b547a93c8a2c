"""A feed of memory events for consumers that follow commits and revocations."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from memwarden.api import problems
from memwarden.api.schemas import EventsOut, WhoAmI
from memwarden.api.security import Authenticated, Reader
from memwarden.api.state import StateDep
from memwarden.api.strict_json import StrictJsonRoute
from memwarden_usecases.inspect import events_after

router = APIRouter(
    route_class=StrictJsonRoute,
    prefix="/v1",
    tags=["events"],
    responses=problems.responses(401, 403, 422),
)


@router.get("/events", response_model=EventsOut, summary="memory.committed / memory.revoked feed")
def get_events(
    state: StateDep,
    principal: Reader,
    after: Annotated[int, Query(ge=0, le=2**62, description="cursor: last id seen")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> EventsOut:
    """The caller's tenant's events with ``id > after``, oldest first. Keep the returned
    ``next_cursor`` and pass it as ``after``; delivery is at-least-once per cursor."""
    events = events_after(
        state.engine, principal.tenant_id, after, limit, state.event_settle_seconds
    )
    return EventsOut.model_validate(
        {"events": events, "next_cursor": events[-1]["id"] if events else after}
    )


@router.get("/whoami", response_model=WhoAmI, summary="The calling principal")
def get_whoami(principal: Authenticated) -> WhoAmI:
    return WhoAmI(
        principal_id=principal.principal_id,
        tenant_id=principal.tenant_id,
        scopes=sorted(s.value for s in principal.scopes),
    )
