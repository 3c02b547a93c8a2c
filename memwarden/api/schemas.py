"""Request and response bodies of the HTTP API (they make the OpenAPI document). The bodies a
client also returns (a recalled memory, a version, a pending candidate, a review's outcome …)
are the client's own types, :mod:`memwarden.types`: one set of models for both doors."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memwarden.types import MemoryVersion, Pending, Recalled
from memwarden_shared.contract.models import MemoryProposal, Receipt, Text
from memwarden_shared.contract.turn_input import TurnInput

HEX64 = r"^[0-9a-f]{64}$"


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    return False


class Body(BaseModel):
    """A request body. NUL characters are refused anywhere in it: PostgreSQL text cannot hold
    them, and no conversation needs them."""

    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True)

    @model_validator(mode="before")
    @classmethod
    def no_nul(cls, data: Any) -> Any:
        if _has_nul(data):
            raise ValueError("NUL characters are not accepted")
        return data


class TurnsIn(Body):
    turns: list[TurnInput] = Field(
        min_length=1,
        description="the turn format of docs/api.md: subject_id (or user_id) and text (or "
        "content) are required, every other field has a default",
    )
    extract: bool = Field(
        default=True,
        description="false stores the turns as evidence only (an external extractor proposes)",
    )


class TurnsOut(BaseModel):
    stored: int
    duplicates: int


class ProposalsIn(Body):
    proposals: list[MemoryProposal] = Field(min_length=1)


class ReceiptsOut(BaseModel):
    receipts: list[Receipt]


class ApproveIn(Body):
    payload_hash: str = Field(pattern=HEX64, description="the payload hash the reviewer saw")


# One bulk request decides at most a page of the pending list (its default limit).
MAX_DECISIONS = 100


class ApproveItem(Body):
    verdict: Literal["approve"]
    proposal_id: str = Field(pattern=HEX64)
    payload_hash: str = Field(pattern=HEX64, description="the payload hash the reviewer saw")


class RejectItem(Body):
    verdict: Literal["reject"]
    proposal_id: str = Field(pattern=HEX64)


class DecisionsIn(Body):
    decisions: list[Annotated[ApproveItem | RejectItem, Field(discriminator="verdict")]] = Field(
        min_length=1, max_length=MAX_DECISIONS
    )

    @model_validator(mode="after")
    def one_decision_per_proposal(self) -> DecisionsIn:
        # Two verdicts on one candidate in one request would let the order decide: refused.
        ids = [d.proposal_id for d in self.decisions]
        if len(set(ids)) != len(ids):
            raise ValueError("a proposal is named twice")
        return self


class DecisionResult(BaseModel):
    proposal_id: str
    verdict: Literal["approve", "reject"]
    status: int = Field(description="what the single-item route would answer: 200, 404 or 409")
    state: str | None = Field(default=None, description="committed or rejected, when decided")
    memory_id: str | None = None
    memory_version: int | None = None
    code: str | None = Field(default=None, description="the refusal code, when refused")


class DecisionsOut(BaseModel):
    results: list[DecisionResult] = Field(description="one per decision, in request order")


class PendingOut(BaseModel):
    pending: list[Pending]


class RevisionIn(Body):
    text: Text = Field(min_length=1)


class RevisionOut(BaseModel):
    message_id: str
    revision: int


class RecallOut(BaseModel):
    subject_id: str
    memories: list[Recalled]
    context: str | None = Field(
        default=None, description="with format=context: the block to put into a prompt"
    )
    protected_reason: str | None = Field(
        default=None, description="set when recall is empty on purpose (curate_publishing)"
    )


class VersionOut(MemoryVersion):
    """One version in a memory's history: a subject's version with its status reason, its
    derivation and its expiry."""

    status_reason: str | None
    subject_id: str
    derived_from: list[str] = Field(
        default_factory=list, description="memory_id:version this summary was derived from"
    )
    expires_at: str | None


class VersionsOut(BaseModel):
    memory_id: str
    versions: list[VersionOut]


class MemoryRejectedOut(BaseModel):
    memory_id: str
    version: int = Field(description="the version that left recall")
    status: str


class SubjectMemoriesOut(BaseModel):
    subject_id: str
    memories: list[MemoryVersion]


class EventOut(BaseModel):
    id: int = Field(description="the cursor: pass the last id seen as ?after=")
    topic: str
    key: str
    payload: dict[str, Any]
    created_at: str


class EventsOut(BaseModel):
    events: list[EventOut]
    next_cursor: int = Field(description="pass as ?after= to continue")


class WhoAmI(BaseModel):
    principal_id: str
    tenant_id: str
    scopes: list[str]


class Health(BaseModel):
    status: str
    checks: dict[str, str] = Field(default_factory=dict)
