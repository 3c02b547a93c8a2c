"""Owner review (SPEC §10): pending confirmations, approvals bound to the payload hash."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Path, Query

from memwarden.api import problems
from memwarden.api.problems import Problem
from memwarden.api.schemas import (
    HEX64,
    ApproveIn,
    DecisionResult,
    DecisionsIn,
    DecisionsOut,
    PendingOut,
)
from memwarden.api.security import Reviewer
from memwarden.api.state import StateDep
from memwarden.api.strict_json import StrictJsonRoute
from memwarden.types import Reviewed
from memwarden_shared.state.auth import Forbidden
from memwarden_usecases import review
from memwarden_usecases.review import Decided, ReviewRefused

router = APIRouter(
    route_class=StrictJsonRoute,
    prefix="/v1/review",
    tags=["review"],
    responses=problems.responses(401, 403, 422),
)

ProposalId = Annotated[str, Path(pattern=HEX64, description="sha256 hex proposal id")]


def _refused(exc: ReviewRefused) -> Problem:
    if exc.code == "unknown_proposal":  # also what another tenant's proposal looks like
        return Problem(404, "no such proposal", code=exc.code)
    return Problem(409, f"refused: {exc.code}", code=exc.code, title="Review refused")


@router.get("/pending", response_model=PendingOut, summary="Candidates awaiting confirmation")
def get_pending(
    state: StateDep,
    principal: Reviewer,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> PendingOut:
    """Most confident first, with the evidence: the stored message revision and the
    code-point offsets of the sentence, so a reviewer sees the claim in its context."""
    try:
        items = review.pending_with_evidence(
            state.engine, principal, principal.tenant_id, limit=limit
        )
    except Forbidden as exc:  # pragma: no cover - the scope was checked already
        raise Problem(403, str(exc), code="missing_scope") from None
    return PendingOut.model_validate({"pending": items})


def _result(item: Decided) -> DecisionResult:
    if item.outcome is not None:
        return DecisionResult(verdict=item.verdict, status=200, **asdict(item.outcome))
    problem = _refused(ReviewRefused(item.refused or ""))  # the single route's status
    return DecisionResult(
        proposal_id=item.proposal_id,
        verdict=item.verdict,
        status=problem.status,
        code=item.refused,
    )


@router.post(
    "/decisions",
    response_model=DecisionsOut,
    summary="Decide several candidates, each as its own approval or rejection",
)
def post_decisions(body: DecisionsIn, state: StateDep, principal: Reviewer) -> DecisionsOut:
    """Each decision runs exactly as ``…/approve`` or ``…/reject`` alone, in its own
    transaction, an approval bound to its own payload hash. A refused item (a hash that is
    stale, a candidate decided meanwhile, another tenant's) is that item's result, 404 or 409
    with its code; the others are still decided. The response is 200 either way."""
    wanted = [(d.proposal_id, d.verdict, getattr(d, "payload_hash", None)) for d in body.decisions]
    try:
        decided = review.decide_each(state.engine, principal, principal.tenant_id, wanted)
    finally:
        state.after_write()  # drain what committed, even if a later item failed
    return DecisionsOut(results=[_result(item) for item in decided])


@router.post(
    "/{proposal_id}/approve",
    response_model=Reviewed,
    summary="Approve the frozen formation bound to its payload hash",
    responses=problems.responses(404, 409),
)
def post_approve(
    proposal_id: ProposalId, body: ApproveIn, state: StateDep, principal: Reviewer
) -> Reviewed:
    """Commits exactly the stored candidate if its payload hash is still ``payload_hash``;
    any difference, a revoked source or a fact that moved refuses it (409 with a code)."""
    try:
        outcome = review.approve(
            state.engine, principal, principal.tenant_id, proposal_id, body.payload_hash
        )
    except ReviewRefused as exc:
        raise _refused(exc) from None
    state.after_write()
    return Reviewed(**asdict(outcome))


@router.post(
    "/{proposal_id}/reject",
    response_model=Reviewed,
    summary="Reject a pending candidate",
    responses=problems.responses(404, 409),
)
def post_reject(proposal_id: ProposalId, state: StateDep, principal: Reviewer) -> Reviewed:
    try:
        outcome = review.reject(state.engine, principal, principal.tenant_id, proposal_id)
    except ReviewRefused as exc:
        raise _refused(exc) from None
    return Reviewed(**asdict(outcome))
