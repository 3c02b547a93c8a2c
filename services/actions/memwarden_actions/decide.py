"""The action gate's decision (SPEC §14) as one pure function: facts read from the store in,
verdict out. First matching row wins:

| condition | decision |
|---|---|
| principal lacks ``action:request`` | DENY not_authorised |
| a used memory fails a check (unknown, revoked, superseded, expired, unsupported, \
  prohibited for the intent, not for the purpose) | DENY, one reason per failed check |
| a used memory was named at a version that is no longer its latest | STALE |
| the intent is high-consequence | NEEDS_APPROVAL |
| otherwise | ALLOW |

DENY outranks STALE: retrying with the current version of a memory that would be denied is
pointless, and fail-closed means the stronger refusal is the one reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class ActionDecision(StrEnum):
    ALLOW = "ALLOW"
    NEEDS_APPROVAL = "NEEDS_APPROVAL"
    DENY = "DENY"
    STALE = "STALE"
    DUPLICATE = "DUPLICATE"
    KEY_CONFLICT = "KEY_CONFLICT"


class DenyReason(StrEnum):
    MEMORY_REVOKED = "memory_revoked"
    MEMORY_SUPERSEDED = "memory_superseded"
    MEMORY_EXPIRED = "memory_expired"
    MEMORY_NOT_FOUND = "memory_not_found"
    EVIDENCE_REVOKED = "evidence_revoked"
    PROHIBITED_ACTION = "prohibited_action"
    PURPOSE_NOT_ALLOWED = "purpose_not_allowed"
    NOT_AUTHORISED = "not_authorised"
    UNKNOWN_INTENT = "unknown_intent"


@dataclass(frozen=True)
class UsedMemory:
    """One memory the request relies on, as the store shows it at action time. Every fact
    but ``version`` is of the memory's latest version: a request naming an older one is
    STALE when the latest could be used, DENY when it could not."""

    name: str  # as the request named it: memory_id or memory_id:version
    found: bool  # exists in the request's tenant, for the request's subject
    version: int  # the version the request relies on: the one named, else the latest
    latest_version: int
    status: str
    status_reason: str | None
    supported: bool  # at least one active message revision supports the version
    sources_supported: bool  # every memory it was derived from is still committed and supported
    expires_at: datetime | None
    prohibited_actions: tuple[str, ...]
    retrieval_purposes: tuple[str, ...]


@dataclass(frozen=True)
class ActionVerdict:
    decision: ActionDecision
    reasons: tuple[str, ...]


def memory_reasons(
    m: UsedMemory, intent: str, purpose: str | None, now: datetime
) -> list[DenyReason]:
    """Why ``m`` may not be used for ``intent`` now (empty when it may)."""
    if not m.found:
        return [DenyReason.MEMORY_NOT_FOUND]
    return [*_status_reasons(m), *_use_reasons(m, intent, purpose, now)]


def _status_reasons(m: UsedMemory) -> list[DenyReason]:
    """What became of the memory: replaced (or edited away), withdrawn, or its evidence gone."""
    out: list[DenyReason] = []
    edited_away = m.status != "committed" and m.status_reason == "evidence_superseded"
    if m.status == "superseded" or edited_away:
        out.append(DenyReason.MEMORY_SUPERSEDED)
    elif m.status != "committed":
        out.append(DenyReason.MEMORY_REVOKED)
    if (not m.supported and not edited_away) or not m.sources_supported:
        out.append(DenyReason.EVIDENCE_REVOKED)
    return out


def _use_reasons(
    m: UsedMemory, intent: str, purpose: str | None, now: datetime
) -> list[DenyReason]:
    """Whether this use may read it: not expired, not prohibited for the intent, allowed for
    the purpose."""
    failed = (
        (m.expires_at is not None and m.expires_at <= now, DenyReason.MEMORY_EXPIRED),
        (
            intent in m.prohibited_actions or "*" in m.prohibited_actions,
            DenyReason.PROHIBITED_ACTION,
        ),
        (
            purpose is not None and purpose not in m.retrieval_purposes,
            DenyReason.PURPOSE_NOT_ALLOWED,
        ),
    )
    return [reason for fails, reason in failed if fails]


def decide_action(
    *,
    intent: str,
    known_intent: bool,
    high_consequence: bool,
    may_request: bool,
    purpose: str | None,
    used: list[UsedMemory],
    now: datetime,
) -> ActionVerdict:
    """Decide one action request from what the store says at ``now``. An intent the action
    registry does not hold is refused as a result, with a receipt, never an exception."""
    if not known_intent:
        return ActionVerdict(ActionDecision.DENY, (DenyReason.UNKNOWN_INTENT.value,))
    if not may_request:
        return ActionVerdict(ActionDecision.DENY, (DenyReason.NOT_AUTHORISED.value,))
    reasons: list[str] = []
    for m in used:
        reasons.extend(r.value for r in memory_reasons(m, intent, purpose, now))
    if reasons:
        return ActionVerdict(ActionDecision.DENY, tuple(dict.fromkeys(reasons)))
    stale = [m.name for m in used if m.version != m.latest_version]
    if stale:
        return ActionVerdict(ActionDecision.STALE, ("stale_version",))
    if high_consequence:
        return ActionVerdict(ActionDecision.NEEDS_APPROVAL, ("high_consequence",))
    return ActionVerdict(ActionDecision.ALLOW, ())
