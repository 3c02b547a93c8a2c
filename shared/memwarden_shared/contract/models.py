"""Pydantic models that cross a stage boundary: turns, proposals, receipts, events.

Every model forbids unknown keys: an extractor that invents a field is refused, not ignored.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Any, TypeGuard

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from memwarden_shared.contract import ijson
from memwarden_shared.detect.secrets import SecretKind, find_secrets

# a memory id (hex) optionally followed by ":version"
DERIVED_FROM_NAME = re.compile(r"^mem_[0-9a-f]{32}(?::[1-9][0-9]{0,8})?$")


class Strict(BaseModel):
    # hide_input_in_errors: a ValidationError printed anywhere (a log, a terminal) shows
    # where and why, never the submitted value, which may be a secret.
    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)


# Ids, scope keys and extractor versions are names, not prose: one strict shape for all of
# them keeps control characters, markup, NUL and whitespace-smuggled text out of every
# key column, log line and URL (docs/decisions.md, "Hostile input").
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$"
VERSION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,99}$"  # llm-<model>: models name a path
_ID = re.compile(ID_PATTERN)
_NAME_JOINERS = re.compile(r"[-.:@_/+]")


@lru_cache(maxsize=1024)  # tenant, subject, session ids and scope keys repeat turn after turn
def _holds_secret(value: str, *, entropy_counts: bool) -> bool:
    # A name glues its parts with - . : @ _ / +: "ws-38520000023237" hides a card number
    # the detectors skip as part of a longer token, so each part is scanned on its own too.
    parts = _NAME_JOINERS.sub(" ", value)
    return any(
        entropy_counts or f.kind is not SecretKind.HIGH_ENTROPY
        for text in dict.fromkeys((value, parts))
        for f in find_secrets(text)
    )


def _no_secret_id(value: str) -> str:
    # Upstream systems mint random ids (msg_Zx81kLq0…): a high-entropy shape alone does not
    # refuse an id; a vendor token, a card number or any other finding does.
    if _holds_secret(value, entropy_counts=False):
        raise PydanticCustomError("secret", "holds something that looks like a secret")
    return value


def _no_secret_version(value: str) -> str:
    if _holds_secret(value, entropy_counts=True):
        raise PydanticCustomError("secret", "holds something that looks like a secret")
    return value


def is_safe_id(value: object) -> TypeGuard[str]:
    """True when ``value`` may be stored or logged as an id (pattern and secret scan)."""
    return (
        isinstance(value, str)
        and _ID.match(value) is not None
        and not _holds_secret(value, entropy_counts=False)
    )


Id = Annotated[str, Field(pattern=ID_PATTERN), AfterValidator(_no_secret_id)]
Version = Annotated[str, Field(pattern=VERSION_PATTERN), AfterValidator(_no_secret_version)]
SafeInt = Annotated[int, Field(ge=0, le=ijson.MAX_SAFE_INTEGER)]

# C0 controls other than tab, line feed, vertical tab, form feed and carriage return; and
# lone surrogates, which no UTF-8 store can hold. NUL breaks PostgreSQL text; ESC and the
# rest drive terminals and the review console; no conversation needs them.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\ud800-\udfff]")


def _plain_text(value: str) -> str:
    if _CONTROL.search(value):
        raise PydanticCustomError(
            "control_character", "holds NUL, another control character or a lone surrogate"
        )
    return value


Text = Annotated[str, AfterValidator(_plain_text)]


def _ijson_or_error(data: Any) -> Any:
    try:
        ijson.check_value(data)
    except ijson.IJsonError as exc:
        raise PydanticCustomError(str(exc.code), str(exc)) from None
    return data


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
    key: Id


class Evidence(Strict):
    message_id: Id
    start: SafeInt
    end: SafeInt
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

    tenant_id: Id
    subject_id: Id
    session_id: Id
    message_id: Id
    role: Role
    source: Source
    text: Text = Field(min_length=1)
    created_at: AwareDatetime
    author_id: Id | None = None

    @model_validator(mode="before")
    @classmethod
    def is_ijson(cls, data: Any) -> Any:
        return _ijson_or_error(data)

    @property
    def author(self) -> str:
        """Who wrote the turn: user turns default to the subject, others to their role."""
        if self.author_id:
            return self.author_id
        return self.subject_id if self.role == Role.USER else self.role.value


class ProposalBody(Strict):
    """A MemoryProposal without its id: what an extractor fills in."""

    tenant_id: Id
    subject_id: Id
    scope: Scope
    kind: MemoryKind
    normalized_key: Id
    stable_candidate_ordinal: SafeInt
    value: Any
    evidence: Evidence
    extractor_version: Version
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

    @model_validator(mode="before")
    @classmethod
    def is_ijson(cls, data: Any) -> Any:
        """The whole submission inside I-JSON, whichever door it came through."""
        return _ijson_or_error(data)

    @field_validator("value")
    @classmethod
    def value_is_json(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("value must not be null")
        return value


class MemoryProposal(ProposalBody):
    proposal_id: str = Field(pattern=r"^[0-9a-f]{64}$")


class ReceiptClaim(Strict):
    """The claim a receipt is about, by key and hash: receipts never hold values."""

    kind: str
    normalized_key: str
    value_sha256: str


class ReceiptProvenance(Strict):
    """Where the claim came from: the evidence span and who proposed it."""

    message_id: str
    message_revision: int
    evidence_start: int
    evidence_end: int
    evidence_sha256: str
    extractor_version: str
    proposed_by: str
    derived_from: list[str] = Field(default_factory=list)


class Validator(Strict):
    """Who decided: the gate's name and the code and policy versions it ran."""

    name: str
    version: str
    policy_version: str


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
    # the key registry the decision was made under (built-in, plus a tenant file's hash)
    registry_version: str | None = None
    decided_at: datetime
    side_effects: dict[str, Any]
    # What the decision was about and under whose authority (seed 002 §receipts). None on
    # receipts written before these fields existed and on refusals that never had a claim.
    claim: ReceiptClaim | None = None
    scope: dict[str, str] | None = None
    purposes: list[str] | None = None  # the retrieval purposes the key allows
    expires_at: datetime | None = None
    provenance: ReceiptProvenance | None = None
    # every check the gate runs -> passed | failed | review | not_run
    checks: dict[str, str] | None = None
    validator: Validator | None = None
    # what let the decision stand: "policy:<profile>" for the gate, "review:<principal>" for
    # an owner's decision; "switch:closed" when the commit switch diverted it
    authority: str | None = None
    approver: str | None = None


class ReviewReceipt(Strict):
    """An owner's decision on a pending candidate. The pending receipt is immutable (seed
    001); this one is linked to it by ``pending_fingerprint``, the sha256 of its stored
    canonical JSON, so the later state is a projection that cannot rewrite the first."""

    schema_version: int = 1
    tenant_id: str
    proposal_id: str
    payload_hash: str
    pending_fingerprint: str
    verdict: str  # approve | reject
    outcome: str  # committed | rejected | refused:<code>
    approver: str
    authority: str
    memory_id: str | None = None
    memory_version: int | None = None
    validator: Validator
    decided_at: datetime


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
    EXTRACTOR_ROLLED_BACK = "extractor.rolled_back"
    EXTRACTOR_ROLLBACK_CLEARED = "extractor.rollback_cleared"
    WRITE_RATE_HELD = "write_rate.held"
    WRITE_RATE_CLEARED = "write_rate.cleared"
    COMMIT_SWITCH_CLOSED = "commit_switch.closed"
    COMMIT_SWITCH_OPENED = "commit_switch.opened"


# Events only the event feed reads: written consumed, never relayed to a stage.
FEED_ONLY_TOPICS = frozenset(
    {
        Topic.ACTION_CANCELLED.value,
        Topic.ACTION_NEEDS_REPAIR.value,
        Topic.EXTRACTOR_ROLLED_BACK.value,
        Topic.EXTRACTOR_ROLLBACK_CLEARED.value,
        Topic.WRITE_RATE_HELD.value,
        Topic.WRITE_RATE_CLEARED.value,
        Topic.COMMIT_SWITCH_CLOSED.value,
        Topic.COMMIT_SWITCH_OPENED.value,
    }
)


def safe_error_fields(exc: ValidationError) -> list[str]:
    """``"loc: type"`` for each error of ``exc``, safe to print or log: no input value, no
    pydantic message (it may quote the input), and an unknown key (submitted text) is shown
    as ``(unknown field)``."""
    out = set()
    for err in exc.errors(include_input=False, include_url=False):
        loc = [str(part) for part in err.get("loc", ())]
        if err.get("type") == "extra_forbidden" and loc:
            loc[-1] = "(unknown field)"
        kind = str(err.get("type", "invalid"))
        out.add(".".join(loc) + ": " + kind if loc else kind)
    return sorted(out)
