"""Pydantic models that cross a stage boundary: turns, proposals, receipts, events.

Every model forbids unknown keys: an extractor that invents a field is refused, not ignored.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

# a memory id (hex) optionally followed by ":version"
DERIVED_FROM_NAME = re.compile(r"^mem_[0-9a-f]{32}(?::[1-9][0-9]{0,8})?$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"


class Source(StrEnum):
    USER_MESSAGE = "user_message"
    ASSISTANT_MESSAGE = "assistant_message"
    TOOL_RESULT = "tool_result"
    WEB_CONTENT = "web_content"


TAINTED_SOURCES = frozenset({Source.TOOL_RESULT, Source.WEB_CONTENT, Source.ASSISTANT_MESSAGE})


class ScopeKind(StrEnum):
    USER = "user"
    SESSION = "session"
    WORKSPACE = "workspace"
    PROJECT = "project"


class MemoryKind(StrEnum):
    PREFERENCE = "preference"
    PROFILE = "profile"
    DECISION = "decision"
    TASK_FACT = "task_fact"


class Decision(StrEnum):
    COMMIT = "COMMIT"
    NOOP = "NOOP"
    CONFIRM_REPLACE = "CONFIRM_REPLACE"
    NEEDS_CONFIRMATION = "NEEDS_CONFIRMATION"
    QUARANTINE = "QUARANTINE"
    CONFLICT = "CONFLICT"
    REJECT = "REJECT"


class ProposalState(StrEnum):
    PENDING = "pending"  # awaits owner confirmation
    COMMITTED = "committed"
    NOOP = "noop"  # equal to the current value; audit only
    REJECTED = "rejected"
    QUARANTINED = "quarantined"
    CONFLICTED = "conflicted"
    SUPERSEDED = "superseded"  # a committed version later replaced
    REVOKED = "revoked"


class MemoryStatus(StrEnum):
    COMMITTED = "committed"
    SUPERSEDED = "superseded"
    REVOKED = "revoked"
    NEEDS_REVALIDATION = "needs_revalidation"
    FORGOTTEN = "forgotten"


class MessageStatus(StrEnum):
    ACTIVE = "active"
    REVOKED = "revoked"
    SUPERSEDED = "superseded"


class Scope(Strict):
    kind: ScopeKind
    key: str = Field(min_length=1, max_length=200)


class Evidence(Strict):
    message_id: str = Field(min_length=1, max_length=200)
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    @classmethod
    def of_span(cls, message_id: str, text: str, start: int, end: int) -> Evidence:
        """Evidence for ``text[start:end]``: code-point offsets and the span's sha256."""
        span = text[start:end].encode("utf-8")
        return cls(
            message_id=message_id, start=start, end=end, sha256=hashlib.sha256(span).hexdigest()
        )


class Turn(Strict):
    """One conversation turn as ingested. Stored immutably with the sha256 of its text."""

    tenant_id: str = Field(min_length=1, max_length=200)
    subject_id: str = Field(min_length=1, max_length=200)
    session_id: str = Field(min_length=1, max_length=200)
    message_id: str = Field(min_length=1, max_length=200)
    role: Role
    source: Source
    text: str = Field(min_length=1)
    created_at: AwareDatetime
    author_id: str | None = Field(default=None, max_length=200)

    @property
    def author(self) -> str:
        """Who wrote the turn: user turns default to the subject, others to their role."""
        if self.author_id:
            return self.author_id
        return self.subject_id if self.role == Role.USER else self.role.value


class ProposalBody(Strict):
    """A MemoryProposal without its id: what an extractor fills in."""

    tenant_id: str = Field(min_length=1, max_length=200)
    subject_id: str = Field(min_length=1, max_length=200)
    scope: Scope
    kind: MemoryKind
    normalized_key: str = Field(min_length=1, max_length=200)
    stable_candidate_ordinal: int = Field(ge=0)
    value: Any
    evidence: Evidence
    extractor_version: str = Field(min_length=1, max_length=100)
    confidence: float = Field(ge=0.0, le=1.0)
    expires_at: AwareDatetime | None = None
    # SPEC §14: a summary or inference names the memories it was derived from
    # ("memory_id" or "memory_id:version"); not part of the identity or the payload hash
    derived_from: list[str] = Field(default_factory=list, max_length=20)

    @field_validator("derived_from")
    @classmethod
    def derived_from_names(cls, names: list[str]) -> list[str]:
        for name in names:
            if not DERIVED_FROM_NAME.match(name):
                raise ValueError("derived_from takes memory_id or memory_id:version")
        return names

    @field_validator("value")
    @classmethod
    def value_is_json(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("value must not be null")
        return value


class MemoryProposal(ProposalBody):
    proposal_id: str = Field(pattern=r"^[0-9a-f]{64}$")


class Receipt(Strict):
    """The machine-readable record of one gate decision (SPEC §5). Never holds values."""

    schema_version: int = 1
    tenant_id: str
    proposal_id: str
    payload_hash: str
    decision: Decision
    reasons: list[str]
    checks_passed: list[str]
    memory_id: str | None = None
    memory_version: int | None = None
    policy_version: str
    decided_at: datetime
    side_effects: dict[str, Any]


class Topic(StrEnum):
    """Outbox event topics: dotted, past tense."""

    TURN_RECEIVED = "turn.received"
    PROPOSAL_SUBMITTED = "proposal.submitted"
    MEMORY_COMMITTED = "memory.committed"
    MEMORY_REVOKED = "memory.revoked"
    EVIDENCE_REVOKED = "evidence.revoked"
    EVIDENCE_SUPERSEDED = "evidence.superseded"
    ACTION_CANCELLED = "action.cancelled"
    ACTION_NEEDS_REPAIR = "action.needs_repair"
