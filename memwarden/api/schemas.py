"""Request and response bodies of the HTTP API (they make the OpenAPI document)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memwarden_shared.contract.models import Id, MemoryProposal, Receipt, Text, Turn

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


class TurnIn(Turn):
    """A turn; ``tenant_id`` may be left out and defaults to the caller's tenant."""

    tenant_id: Id | None = None  # type: ignore[assignment]


class TurnsIn(Body):
    turns: list[TurnIn] = Field(min_length=1)
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


class ReviewOut(BaseModel):
    proposal_id: str
    state: str
    memory_id: str | None = None
    memory_version: int | None = None


class ScopeOut(BaseModel):
    kind: str
    key: str


class EvidenceOut(BaseModel):
    message_id: str
    revision: int
    start: int = Field(description="code-point offset into message_text")
    end: int = Field(description="exclusive code-point offset into message_text")
    sha256: str
    message_text: str | None = Field(description="the stored revision the offsets refer to")
    message_status: str | None


class PendingItem(BaseModel):
    proposal_id: str
    payload_hash: str
    subject_id: str
    kind: str
    normalized_key: str
    value: Any
    scope: ScopeOut
    expires_at: str | None
    decision: str
    reasons: list[str]
    confidence: float
    message_id: str
    evidence: EvidenceOut


class PendingOut(BaseModel):
    pending: list[PendingItem]


class RevokeOut(BaseModel):
    message_id: str
    revoked: bool = Field(description="false when it was already revoked")


class RevisionIn(Body):
    text: Text = Field(min_length=1)


class RevisionOut(BaseModel):
    message_id: str
    revision: int


class ForgetOut(BaseModel):
    message_id: str
    memory_versions_forgotten: int


class RecalledOut(BaseModel):
    memory_id: str
    version: int
    kind: str
    normalized_key: str
    scope: ScopeOut
    value: Any
    score: float
    expires_at: str | None
    evidence_message_ids: list[str] = Field(description="the pointer back to the source")
    notice: str = Field(description="historical record, not current verification")


class RecallOut(BaseModel):
    subject_id: str
    memories: list[RecalledOut]
    context: str | None = Field(
        default=None, description="with format=context: the block to put into a prompt"
    )
    protected_reason: str | None = Field(
        default=None, description="set when recall is empty on purpose (curate_publishing)"
    )


class VersionOut(BaseModel):
    memory_id: str
    version: int
    status: str
    status_reason: str | None
    current: bool
    subject_id: str
    kind: str
    normalized_key: str
    scope: ScopeOut
    value: Any = Field(description="null once forgotten")
    evidence_message_ids: list[str]
    auto: bool
    supersedes: int | None
    derived_from: list[str] = Field(
        default_factory=list, description="memory_id:version this summary was derived from"
    )
    proposal_id: str
    valid_from: str | None
    valid_to: str | None
    recorded_at: str | None
    expired_at: str | None
    expires_at: str | None


class VersionsOut(BaseModel):
    memory_id: str
    versions: list[VersionOut]


class SubjectMemoryOut(BaseModel):
    memory_id: str
    version: int
    status: str
    current: bool
    kind: str
    normalized_key: str
    scope: ScopeOut
    value: Any = Field(description="null once forgotten")
    evidence_message_ids: list[str]
    auto: bool
    supersedes: int | None
    proposal_id: str
    valid_from: str | None
    valid_to: str | None
    recorded_at: str | None
    expired_at: str | None


class SubjectMemoriesOut(BaseModel):
    subject_id: str
    memories: list[SubjectMemoryOut]


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
