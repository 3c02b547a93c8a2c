"""The policy profiles beyond ``auto`` and ``review_all``, as one pure function: what a
decision becomes under ``staged`` (seed 000: staged auto-commit per key risk) and ``local``
(seed 001: auto-apply only under the sealed single-owner predicates). Facts in, verdict out.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from memwarden_gate.decide import Verdict
from memwarden_shared.contract.models import Decision, MemoryKind, ScopeKind


class Profile(StrEnum):
    AUTO = "auto"
    REVIEW_ALL = "review_all"
    STAGED = "staged"
    LOCAL = "local"


@dataclass(frozen=True)
class ProfileFacts:
    """What the profiles look at, recomputed by the gate for one proposal."""

    memory_id: str  # the fact key's id: a key is either in the staged share or not, always
    kind: str
    scope_kind: str
    expires: bool  # the proposal carries an expiry (not a lasting fact)
    has_current: bool  # the fact key already holds a committed value
    low_risk: bool  # normal sensitivity and a closed vocabulary of values
    sealed_single_owner: bool  # embedded store, one principal in the tenant
    profile_since: datetime | None
    now: datetime


@dataclass(frozen=True)
class StagedPolicy:
    share: float  # of low-risk fact keys that may auto-commit
    review_period: timedelta  # after the profile is set, before any may


def in_share(memory_id: str, share: float) -> bool:
    """A stable draw per fact key: the same key is always in (or out of) the share."""
    bucket = int.from_bytes(hashlib.sha256(memory_id.encode()).digest()[:8], "big")
    return bucket < share * 2**64


def staged_reasons(f: ProfileFacts, policy: StagedPolicy) -> list[str]:
    """Why a COMMIT waits for review under ``staged`` ([] when it may auto-commit)."""
    if f.profile_since is None or f.now - f.profile_since < policy.review_period:
        return ["staged_review_period"]
    if not f.low_risk:
        return ["staged_key_risk"]
    if not in_share(f.memory_id, policy.share):
        return ["staged_outside_share"]
    return []


def local_reasons(f: ProfileFacts) -> list[str]:
    """The seed 001 predicates a COMMIT fails under ``local`` ([] when all hold). The other
    predicates (user statement, asserted, owner-explicit, normal sensitivity, complete exact
    utterance) are the gate's own checks: a proposal failing them never reaches COMMIT."""
    unmet = []
    if not f.sealed_single_owner:
        unmet.append("local_not_sealed_single_owner")
    if f.kind != MemoryKind.PREFERENCE.value:
        unmet.append("local_not_preference")
    if f.has_current:
        unmet.append("local_not_new")
    if f.scope_kind != ScopeKind.USER.value or f.expires:
        unmet.append("local_not_cross_session")
    return unmet


def apply_profile(profile: str, verdict: Verdict, f: ProfileFacts, staged: StagedPolicy) -> Verdict:
    """The verdict under ``profile``: only a COMMIT can change, and only to review."""
    if verdict.decision != Decision.COMMIT:
        return verdict
    if profile == Profile.STAGED:
        reasons = staged_reasons(f, staged)
    elif profile == Profile.LOCAL:
        reasons = local_reasons(f)
    else:
        return verdict
    if not reasons:
        return verdict
    return Verdict(Decision.NEEDS_CONFIRMATION, (f"policy_{profile}", *reasons))
