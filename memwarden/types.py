"""The typed results of :class:`memwarden.Memory`, the same on every backend. They are also
the HTTP API's response bodies (``memwarden/api/schemas.py`` uses these classes), so a
remote client reads exactly what the API documents and an in-process one builds the same."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from memwarden_shared.contract.models import MemoryProposal, Receipt, Role, Source

__all__ = [
    "ActionOutcome",
    "ActionReceipt",
    "AddResult",
    "Decided",
    "Evidence",
    "Forgotten",
    "MemoryProposal",
    "MemoryScope",
    "MemoryVersion",
    "Pending",
    "Recalled",
    "Receipt",
    "Reviewed",
    "Revoked",
    "TurnInput",
]


class _Result(BaseModel):
    # extra="ignore": a client keeps working against an API that answers with more fields
    model_config = ConfigDict(frozen=True, extra="ignore")


class TurnInput(BaseModel):
    """One conversation turn as a caller hands it to :meth:`Memory.add`.

    Only ``subject_id`` and ``text`` are required: a missing ``message_id`` gets a fresh
    UUID (keep the one returned to revoke or forget the message later), ``session_id``
    defaults to ``"default"``, ``role``/``source`` to a user message, ``created_at`` to now.
    The tenant is the client's; a turn cannot name another one.
    """

    model_config = ConfigDict(extra="forbid")

    subject_id: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1)
    message_id: str = Field(default_factory=lambda: "msg-" + uuid.uuid4().hex, max_length=200)
    session_id: str = Field(default="default", min_length=1, max_length=200)
    role: Role = Role.USER
    source: Source = Source.USER_MESSAGE
    created_at: AwareDatetime = Field(default_factory=lambda: datetime.now(UTC))
    author_id: str | None = Field(default=None, max_length=200)


class Decided(_Result):
    """What the gate decided about one candidate extracted from an added turn."""

    proposal_id: str
    message_id: str
    kind: str
    normalized_key: str
    value: Any
    decision: str = Field(description="COMMIT, NOOP, CONFIRM_REPLACE, NEEDS_CONFIRMATION, …")
    reasons: list[str]
    state: str
    memory_id: str | None = None
    memory_version: int | None = None


class AddResult(_Result):
    """Message ids in input order. ``decisions`` is filled by the embedded backend, which runs
    the pipeline before it returns; distributed and remote backends return ``None`` there
    (the workers decide later: read :meth:`Memory.recall` or :meth:`Memory.memories`)."""

    message_ids: list[str]
    stored: int
    duplicates: int
    decisions: list[Decided] | None = None


class MemoryScope(_Result):
    kind: str
    key: str


class Recalled(_Result):
    """One recalled memory, with the pointer back to its source."""

    memory_id: str
    version: int
    kind: str
    normalized_key: str
    scope: MemoryScope
    value: Any
    score: float
    expires_at: str | None
    evidence_message_ids: list[str] = Field(description="the pointer back to the source")
    notice: str = Field(description="historical record, not current verification")


class MemoryVersion(_Result):
    """One version of one of a subject's memories (history included; ``current`` marks the
    version recall may return)."""

    memory_id: str
    version: int
    status: str
    current: bool
    kind: str
    normalized_key: str
    scope: MemoryScope
    value: Any = Field(description="null once forgotten")
    evidence_message_ids: list[str]
    auto: bool
    supersedes: int | None
    proposal_id: str
    valid_from: str | None
    valid_to: str | None
    recorded_at: str | None
    expired_at: str | None


class Evidence(_Result):
    """Where a candidate's claim stands: the stored message revision and the code-point
    offsets of its sentence."""

    message_id: str
    revision: int
    start: int = Field(description="code-point offset into message_text")
    end: int = Field(description="exclusive code-point offset into message_text")
    sha256: str
    message_text: str | None = Field(description="the stored revision the offsets refer to")
    message_status: str | None


class Pending(_Result):
    """A candidate awaiting an owner's confirmation; approve it with its ``payload_hash``."""

    proposal_id: str
    payload_hash: str
    subject_id: str
    kind: str
    normalized_key: str
    value: Any
    scope: MemoryScope
    expires_at: str | None
    decision: str
    reasons: list[str]
    confidence: float
    message_id: str
    evidence: Evidence


class Reviewed(_Result):
    proposal_id: str
    state: str
    memory_id: str | None = None
    memory_version: int | None = None


class Revoked(_Result):
    message_id: str
    revoked: bool = Field(description="false when it was already revoked")


class Forgotten(_Result):
    message_id: str
    memory_versions_forgotten: int


class ActionOutcome(_Result):
    external_ref: str | None
    reported_at: str | None


class ActionReceipt(_Result):
    """The action gate's answer (SPEC §14) before a side effect: act only on ``ALLOW``.

    ``DUPLICATE`` is a retry under the same idempotency key: the first decision stands, under
    the same ``action_id``. ``memory_versions`` are the exact versions the decision read;
    the hashes are what the idempotency key and an approval are bound to; never the params."""

    schema_version: int
    action_id: str
    tenant_id: str
    subject_id: str
    intent: str
    decision: str = Field(description="ALLOW | NEEDS_APPROVAL | DENY | STALE | DUPLICATE")
    first_decision: str | None = Field(default=None, description="set on DUPLICATE")
    reasons: list[str]
    state: str = Field(
        description="allowed | awaiting_approval | denied | executed | failed | cancelled"
        " | needs_repair"
    )
    state_reason: str | None
    memory_versions: list[str]
    purpose: str | None
    requested_by: str
    approved_by: str | None
    idempotency_key: str
    key_hash: str
    request_hash: str
    decided_at: str | None
    outcome: ActionOutcome | None
