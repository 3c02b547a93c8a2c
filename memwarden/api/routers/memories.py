"""Reads: recall for a subject, a memory's version history, a proposal's stored receipt."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from memwarden.api import problems
from memwarden.api.problems import Problem
from memwarden.api.schemas import (
    HEX64,
    MemoryRejectedOut,
    RecallOut,
    SubjectMemoriesOut,
    VersionsOut,
)
from memwarden.api.security import AnyScope, Reader, Reviewer
from memwarden.api.state import StateDep
from memwarden.api.strict_json import StrictJsonRoute
from memwarden.types import Provenance
from memwarden_shared.contract.models import ID_PATTERN, Receipt, ScopeKind
from memwarden_usecases import inspect, provenance, recall, retract

router = APIRouter(
    route_class=StrictJsonRoute,
    prefix="/v1",
    tags=["memories"],
    responses=problems.responses(401, 403, 422),
)


class ReceiptResponse(Response):
    media_type = "application/json"


@router.get(
    "/subjects/{subject_id}/recall",
    response_model=RecallOut,
    summary="What recall returns for a subject",
    responses=problems.responses(503),
)
def get_recall(
    subject_id: Annotated[str, Path(pattern=ID_PATTERN)],
    state: StateDep,
    principal: Reader,
    query: Annotated[str | None, Query(max_length=2000)] = None,
    k: Annotated[int, Query(ge=1, le=100)] = 10,
    scope_kind: ScopeKind | None = None,
    scope_key: Annotated[str | None, Query(pattern=ID_PATTERN)] = None,
    purpose: Annotated[str | None, Query(min_length=1, max_length=100)] = None,
    format: Annotated[Literal["json", "context"], Query(description="context: a prompt block")] = (
        "json"
    ),
    lang: Annotated[Literal["en", "zh"], Query(description="language of the context block")] = "en",
) -> RecallOut:
    """Current committed versions whose evidence is still active, best first."""
    try:
        found = recall.recall(
            state.engine,
            principal.tenant_id,
            subject_id,
            query or None,
            k=k,
            scope_kind=scope_kind.value if scope_kind else None,
            scope_key=scope_key,
            purpose=purpose,
            reader=principal.principal_id,
        )
    except recall.EmbedderMismatch as exc:  # a remote embedder configured before `reindex`
        raise Problem(503, str(exc), code="embedder_mismatch") from None
    context = recall.context_block(found, lang) if format == "context" else None
    return RecallOut.model_validate(
        {
            "subject_id": subject_id,
            "memories": [r.as_json() for r in found],
            "context": context,
            "protected_reason": recall.protected_reason(found),
        }
    )


@router.get(
    "/subjects/{subject_id}/memories",
    response_model=SubjectMemoriesOut,
    summary="Every version of a subject's memories",
)
def get_subject_memories(
    subject_id: Annotated[str, Path(min_length=1, max_length=200)],
    state: StateDep,
    principal: Reader,
) -> SubjectMemoriesOut:
    """History included, oldest first; ``current`` marks the version recall may return."""
    rows = inspect.list_memories(state.engine, principal.tenant_id, subject_id)
    return SubjectMemoriesOut.model_validate({"subject_id": subject_id, "memories": rows})


@router.get(
    "/memories/{memory_id}/versions",
    response_model=VersionsOut,
    summary="A memory's version history",
    responses=problems.responses(404),
)
def get_versions(
    memory_id: Annotated[str, Path(min_length=1, max_length=40)],
    state: StateDep,
    principal: Reader,
) -> VersionsOut:
    versions = inspect.memory_history(state.engine, principal.tenant_id, memory_id)
    if not versions:
        raise Problem(404, "no such memory", code="unknown_memory")
    return VersionsOut.model_validate({"memory_id": memory_id, "versions": versions})


@router.post(
    "/memories/{memory_id}/reject",
    response_model=MemoryRejectedOut,
    summary="The owner rejects a committed memory (mem0's delete)",
    responses=problems.responses(404),
)
def post_reject_memory(
    memory_id: Annotated[str, Path(min_length=1, max_length=40)],
    state: StateDep,
    principal: Reviewer,
) -> MemoryRejectedOut:
    """Its current version leaves recall at once; history keeps it with status ``revoked``."""
    try:
        version = retract.reject(state.engine, principal.tenant_id, memory_id)
    except retract.UnknownMemory:
        raise Problem(404, "no recallable memory with this id", code="unknown_memory") from None
    state.after_write()
    return MemoryRejectedOut(memory_id=memory_id, version=version, status="revoked")


@router.get(
    "/memories/{memory_id}/provenance",
    response_model=Provenance,
    summary="Where a memory came from, who let it in, who read it, how to take it back",
    responses=problems.responses(404),
)
def get_provenance(
    memory_id: Annotated[str, Path(min_length=1, max_length=40)],
    state: StateDep,
    principal: Reader,
) -> Provenance:
    """Proposer and producer version, evidence quotes with message ids, every decision and
    receipt (reviews with their own receipts), approver and approval hash, derived-from
    links, the actions that used it, recent reads, and the exact revoke commands."""
    found = provenance.why(state.engine, principal.tenant_id, memory_id)
    if found is None:
        raise Problem(404, "no such memory", code="unknown_memory")
    return Provenance.model_validate(found)


@router.get(
    "/proposals/{proposal_id}/receipt",
    response_class=ReceiptResponse,
    summary="The stored receipt of a decision, byte for byte",
    responses={200: {"model": Receipt}, **problems.responses(404)},
)
def get_receipt(
    proposal_id: Annotated[str, Path(pattern=HEX64)], state: StateDep, principal: AnyScope
) -> Response:
    """Exactly the canonical JSON (RFC 8785) the gate stored when it decided."""
    body = inspect.receipt_body(state.engine, principal.tenant_id, proposal_id)
    if body is None:
        raise Problem(404, "no receipt for this proposal", code="unknown_proposal")
    return ReceiptResponse(body.encode("utf-8"))
