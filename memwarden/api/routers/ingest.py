"""Writes from backends: batches of turns, and proposals from external extractors."""

from __future__ import annotations

from fastapi import APIRouter

from memwarden.api import problems
from memwarden.api.problems import Problem
from memwarden.api.schemas import ProposalsIn, ReceiptsOut, TurnsIn, TurnsOut
from memwarden.api.security import Proposer
from memwarden.api.state import StateDep
from memwarden.api.strict_json import StrictJsonRoute
from memwarden_shared.state.auth import Principal
from memwarden_usecases.ingest import IngestRefused, ingest
from memwarden_usecases.propose import propose

router = APIRouter(
    route_class=StrictJsonRoute,
    prefix="/v1",
    tags=["ingest"],
    responses=problems.responses(401, 403, 422),
)


def _same_tenant(principal: Principal, tenant_ids: list[str | None]) -> None:
    for index, tenant_id in enumerate(tenant_ids):
        if tenant_id is not None and tenant_id != principal.tenant_id:
            raise Problem(
                403,
                f"item {index} names another tenant than the caller's",
                code="cross_tenant",
            )


def _batch_limit(state: StateDep, size: int) -> None:
    if size > state.settings.max_batch:
        raise Problem(
            413,
            f"{size} items in one request; the limit is {state.settings.max_batch}",
            code="batch_too_large",
        )


@router.post(
    "/turns",
    response_model=TurnsOut,
    summary="Store a batch of conversation turns",
    responses=problems.responses(409, 413),
)
def post_turns(body: TurnsIn, state: StateDep, principal: Proposer) -> TurnsOut:
    """Idempotent by message id: a turn stored before with identical content counts as a
    duplicate; the same id with different content refuses the whole batch (409)."""
    _batch_limit(state, len(body.turns))
    _same_tenant(principal, [t.tenant_id for t in body.turns])
    limit = state.settings.max_text_chars
    for index, turn in enumerate(body.turns):
        if len(turn.text) > limit:
            raise Problem(
                413,
                f"turn {index}: text has {len(turn.text)} characters; the limit is {limit}",
                code="text_too_long",
            )
    turns = [t.to_turn(principal.tenant_id) for t in body.turns]
    try:
        result = ingest(state.engine, turns, extract=body.extract, max_text_chars=limit)
    except IngestRefused:
        raise Problem(
            409,
            "a message id in the batch already exists with different content; "
            "send a revision to change a message",
            code="message_conflict",
        ) from None
    if result.stored:
        state.after_write()
    return TurnsOut(stored=result.stored, duplicates=result.duplicates)


@router.post(
    "/proposals",
    response_model=ReceiptsOut,
    summary="Submit proposals from an external extractor to the gate",
    responses=problems.responses(413),
)
def post_proposals(body: ProposalsIn, state: StateDep, principal: Proposer) -> ReceiptsOut:
    """Every proposal gets a receipt (REJECT ones too); an exact replay returns the stored
    receipt. The caller is recorded as the proposer and can never approve the candidate."""
    _batch_limit(state, len(body.proposals))
    _same_tenant(principal, [p.tenant_id for p in body.proposals])
    receipts = propose(
        state.engine,
        [p.model_dump(mode="json") for p in body.proposals],
        proposed_by=principal.principal_id,
    )
    state.after_write()
    return ReceiptsOut(receipts=receipts)
