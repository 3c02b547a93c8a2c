"""The typed results of :class:`memwarden.Memory`, the same on every backend. They are also
the HTTP API's response bodies (``memwarden/api/schemas.py`` uses these classes), so a
remote client reads exactly what the API documents and an in-process one builds the same."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memwarden_shared.contract.models import MemoryProposal, Receipt
from memwarden_shared.contract.turn_input import TurnInput

__all__ = [
    "ActionOutcome",
    "ActionReceipt",
    "AddResult",
    "Added",
    "Decided",
    "Deleted",
    "Evidence",
    "Forgotten",
    "HistoryEntry",
    "Memories",
    "MemoryItem",
    "MemoryProposal",
    "MemoryScope",
    "MemoryVersion",
    "Pending",
    "Provenance",
    "Recalled",
    "Receipt",
    "Reviewed",
    "Revoked",
    "TurnInput",
]


class _Result(BaseModel):
    # extra="ignore": a client keeps working against an API that answers with more fields
    model_config = ConfigDict(frozen=True, extra="ignore")


class _ReadsAsDict:
    """``obj["field"]``, ``obj.get("field")`` and ``"field" in obj`` over a model's fields."""

    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:  # type: ignore[attr-defined]
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return key in type(self).model_fields  # type: ignore[attr-defined]

    def keys(self) -> list[str]:
        return list(type(self).model_fields)  # type: ignore[attr-defined]


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


class AddResult(_Result, _ReadsAsDict):
    """Message ids in input order. ``decisions`` is filled by the embedded backend, which runs
    the pipeline before it returns; distributed and remote backends return ``None`` there
    (the workers decide later: read :meth:`Memory.recall` or :meth:`Memory.memories`)."""

    message_ids: list[str]
    stored: int
    duplicates: int
    decisions: list[Decided] | None = None
    results: list[Added] = Field(
        default_factory=list,
        description="mem0's shape of ``decisions``: one entry per candidate, with the gate's "
        "decision (empty until the workers decide on the distributed and remote backends)",
    )


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


class Provenance(_Result):
    """Where a memory came from, who let it in, who has read it since and how to take it
    back (``memwarden why``, ``GET /v1/memories/{id}/provenance``, :meth:`Memory.why`).

    ``proposals``: every proposal decided about it, each with its proposer, producer
    version, evidence quote and message id, stored receipt, and its reviews (each with its
    own receipt linked to the pending receipt's fingerprint). ``approvals``: who approved
    and the payload hash they approved. ``revoke``: the exact commands that take it back."""

    memory_id: str
    tenant_id: str
    current_version: int | None
    versions: list[dict[str, Any]]
    proposals: list[dict[str, Any]]
    approvals: list[dict[str, Any]]
    derived_from: list[str]
    derived_by: list[str]
    used_by_actions: list[dict[str, Any]]
    recent_reads: list[dict[str, Any]]
    revoke: dict[str, Any]


# --- the mem0-shaped results (``Memory.add`` / ``search`` / ``get_all`` / ``get`` /
# ``delete`` / ``history``): typed models that also read as the dicts mem0 returns, so
# ``result["results"][0]["memory"]`` and ``result.results[0].memory`` both work.


class Added(_Result, _ReadsAsDict):
    """What became of one candidate an added message yielded. ``event`` is mem0's word
    (ADD, UPDATE, NONE); ``decision`` and ``reasons`` are the gate's (SPEC §5): NONE with
    NEEDS_CONFIRMATION waits for an owner, NONE with REJECT was refused and why."""

    id: str | None = Field(description="the memory id, when the gate committed one")
    memory: str | None = Field(description="the candidate's value as text")
    event: str
    decision: str
    reasons: list[str]
    proposal_id: str
    message_id: str


class MemoryItem(_Result, _ReadsAsDict):
    """One memory as mem0's ``search`` / ``get_all`` / ``get`` return it, plus the pointer
    back to its evidence and the version recall served."""

    id: str
    memory: str
    user_id: str
    score: float | None = None
    version: int
    kind: str
    normalized_key: str
    value: Any
    metadata: dict[str, Any] = Field(description="scope, expiry and the evidence pointer")
    notice: str = "historical record, not current verification"


class Memories(_Result, _ReadsAsDict):
    results: list[MemoryItem]


class HistoryEntry(_Result, _ReadsAsDict):
    """One version of one memory, with the receipt of the gate decision that wrote it."""

    id: str = Field(description="memory_id:version")
    memory_id: str
    version: int
    event: str = Field(description="ADD (version 1), UPDATE (a later one) or DELETE")
    old_memory: str | None
    new_memory: str | None
    status: str
    status_reason: str | None
    current: bool
    is_deleted: bool
    created_at: str | None
    updated_at: str | None
    receipt: Receipt | None = Field(description="the gate's decision that wrote the version")


class Deleted(_Result, _ReadsAsDict):
    """``Memory.delete``: the owner rejected the memory; its current version left recall.
    ``receipt`` is the gate's decision that had committed it (kept, like every receipt)."""

    message: str
    memory_id: str
    version: int
    status: str
    receipt: Receipt | None


AddResult.model_rebuild()  # ``results`` names ``Added``, defined after it
