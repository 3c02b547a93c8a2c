"""The decision matrix of SPEC §5 as one pure function: first matching row wins."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memwarden_gate.checks import Assessment
from memwarden_shared.contract.models import Decision


@dataclass(frozen=True)
class CurrentFact:
    """The committed value of the fact key, read under its lock."""

    version: int
    value: Any
    valid_from: datetime


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reasons: tuple[str, ...]


def decide(
    a: Assessment,
    *,
    value: Any,
    current: CurrentFact | None,
    seen_version: int,
    locked_version: int,
    evidence_at: datetime,
) -> Verdict:
    """Decide one proposal.

    ``seen_version`` is the fact key's version read before the lock, ``locked_version`` the
    one read under it; if they differ the proposal lost a race (its compare-and-set would
    fail). A lost race with a different value is adjudicated as a replacement only when the
    proposal's evidence (``evidence_at``) is strictly newer than the current value's;
    otherwise the order of the two statements is unknown and the answer is CONFLICT.
    """
    if a.reject:
        return Verdict(Decision.REJECT, tuple(dict.fromkeys(a.reject)))
    if a.tainted:
        return Verdict(Decision.QUARANTINE, ("tainted_source", *a.features))
    if a.not_durable:
        return Verdict(Decision.REJECT, tuple(dict.fromkeys(a.not_durable)))
    if a.review:
        return Verdict(Decision.NEEDS_CONFIRMATION, tuple(dict.fromkeys(a.review + a.features)))
    if current is not None:
        if current.value == value:
            return Verdict(Decision.NOOP, ("semantic_duplicate",))
        lost_race = locked_version != seen_version
        if lost_race and not evidence_at > current.valid_from:
            return Verdict(Decision.CONFLICT, ("lost_race", "not_adjudicable"))
        if evidence_at < current.valid_from:
            # A statement older than the current value arrived late (a delayed or
            # redelivered event): it is history, never a pending replacement of the newer
            # fact, or approving it would bring the older value back.
            return Verdict(Decision.CONFLICT, ("older_than_current",))
        return Verdict(Decision.CONFIRM_REPLACE, ("conflicts_current",))
    return Verdict(Decision.COMMIT, tuple(a.features))
