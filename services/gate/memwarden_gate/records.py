"""What the gate writes about a proposal besides memory: the proposal row, its receipt, the
audit of refused submissions, and the context every decision is made in."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, select

from memwarden_gate.decide import Verdict
from memwarden_gate.profiles import StagedPolicy
from memwarden_shared.config import get_settings
from memwarden_shared.contract.canonical import claim_key, jcs, memory_id_for, sha256_hex
from memwarden_shared.contract.models import (
    Decision,
    MemoryProposal,
    ProposalState,
    Receipt,
    ReceiptClaim,
    ReceiptProvenance,
    Validator,
    is_safe_id,
)
from memwarden_shared.contract.registry import Registry, default_registry
from memwarden_shared.contract.tenant_registry import registry_for
from memwarden_shared.observe import metrics
from memwarden_shared.state.commit_switch import Switch
from memwarden_shared.store.db import dumps, utcnow
from memwarden_shared.store.dialect import insert_ignore
from memwarden_shared.store.schema import receipts, rejected_submissions

log = logging.getLogger("memwarden.gate")

VALIDATOR_NAME = "memwarden-gate"


def _gate_version() -> str:
    try:
        return package_version(VALIDATOR_NAME)
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


GATE_VERSION = _gate_version()


def validator(policy_version: str) -> Validator:
    """The gate's identity on a receipt: its name, code version and policy version."""
    return Validator(name=VALIDATOR_NAME, version=GATE_VERSION, policy_version=policy_version)


def explanation(
    p: MemoryProposal,
    *,
    revision: int,
    checks: dict[str, str],
    ctx: GateContext,
    authority: str,
    derived_from: list[str],
) -> dict[str, Any]:
    """The receipt fields that explain a decision (seed 002): the claim by key and value
    hash, scope, allowed purposes, expiry, provenance, every check's outcome, the validator
    and the authority it ran under. Never the value itself."""
    spec = ctx.registry_for(p.tenant_id).get(p.kind.value, p.normalized_key)
    return {
        "claim": ReceiptClaim(
            kind=p.kind.value,
            normalized_key=p.normalized_key,
            value_sha256=sha256_hex(jcs(p.value)),
        ),
        "scope": {"kind": p.scope.kind.value, "key": p.scope.key},
        "purposes": list(spec.retrieval_purposes) if spec else [],
        "expires_at": p.expires_at,
        "provenance": ReceiptProvenance(
            message_id=p.evidence.message_id,
            message_revision=revision,
            evidence_start=p.evidence.start,
            evidence_end=p.evidence.end,
            evidence_sha256=p.evidence.sha256,
            extractor_version=p.extractor_version,
            proposed_by=ctx.proposed_by or f"extractor:{p.extractor_version}",
            derived_from=derived_from,
        ),
        "checks": checks,
        "validator": validator(ctx.policy_version),
        "authority": authority,
    }


def receipt_body(receipt: Receipt) -> str:
    """The receipt's stored form: its canonical JSON (RFC 8785)."""
    return jcs(receipt.model_dump(mode="json")).decode("utf-8")


STATE_FOR = {
    Decision.COMMIT: ProposalState.COMMITTED,
    Decision.NOOP: ProposalState.NOOP,
    Decision.CONFIRM_REPLACE: ProposalState.PENDING,
    Decision.NEEDS_CONFIRMATION: ProposalState.PENDING,
    Decision.QUARANTINE: ProposalState.QUARANTINED,
    Decision.CONFLICT: ProposalState.CONFLICTED,
    Decision.REJECT: ProposalState.REJECTED,
}


@dataclass
class GateContext:
    registry: Registry = field(default_factory=default_registry)
    policy_version: str = field(default_factory=lambda: get_settings().policy_version)
    default_profile: str = field(default_factory=lambda: get_settings().policy_profile)
    now: datetime = field(default_factory=utcnow)
    # the authenticated submitter; None means the built-in extractor stage
    proposed_by: str | None = None
    tenant_registry: Path | None = field(default_factory=lambda: get_settings().tenant_registry)
    # count decisions and apply review holds (shared.anomaly); replay turns it off: a
    # bulk reprocessing is a burst by design, and its proposals are history
    watch_rates: bool = True
    # the review reasons of held scopes, by batch position; set per batch (services.gate.rates)
    held: dict[int, list[str]] = field(default_factory=dict)
    # tenants whose commit switch is closed, with the switch holding them; set per batch
    closed: dict[str, Switch] = field(default_factory=dict)
    # tenants whose store is sealed to one owner (embedded, one principal): `local` profile
    sealed: dict[str, bool] = field(default_factory=dict)
    staged: StagedPolicy = field(
        default_factory=lambda: StagedPolicy(
            share=get_settings().staged_share,
            review_period=timedelta(seconds=get_settings().staged_review_seconds),
        )
    )

    def held_reasons(self, index: int) -> list[str]:
        """Why the proposal at ``index`` goes to review whatever it says ([] when it is free)."""
        return self.held.get(index, [])

    def registry_for(self, tenant_id: str) -> Registry:
        """The built-in registry plus the tenant's own keys, if it has a file."""
        return registry_for(self.registry, tenant_id, self.tenant_registry)


@dataclass(frozen=True)
class Verified:
    """A proposal whose id recomputes, with what the batch needs to order and group it."""

    index: int  # position in the submitted batch
    p: MemoryProposal
    payload_hash: str
    fact_key: dict[str, str]
    memory_id: str


@dataclass(frozen=True, slots=True)
class Refusal:
    """A submission refused before it has a verified id: what its audit row and receipt say.
    It keeps a hash of the body, never the body (a refused field may hold anything)."""

    index: int  # position in the submitted batch
    tenant_id: str  # the submission's own tenant when it is a well-formed id, else "unknown"
    reasons: tuple[str, ...]
    claimed_id: str | None
    payload_hash: str | None
    submission_hash: str


def refusal(
    index: int,
    body: Any,
    reasons: list[str],
    claimed_id: str | None = None,
    ph: str | None = None,
) -> Refusal:
    """The refusal of ``body``; only a well-formed tenant id of it is kept."""
    tenant = body.get("tenant_id") if isinstance(body, dict) else None
    return Refusal(
        index=index,
        tenant_id=str(tenant) if is_safe_id(tenant) else "unknown",
        reasons=tuple(reasons),
        claimed_id=claimed_id,
        payload_hash=ph,
        submission_hash=_submission_hash(body),
    )


def _submission_hash(body: Any) -> str:
    try:
        return sha256_hex(jcs(body))
    except Exception:  # not JSON-representable: hash its repr so it is still deduplicated
        return sha256_hex(repr(body))


def fact_key_of(p: MemoryProposal, registry: Registry) -> dict[str, str]:
    spec = registry.get(p.kind.value, p.normalized_key)
    return {
        "tenant_id": p.tenant_id,
        "subject_id": p.subject_id,
        "scope_kind": p.scope.kind.value,
        "scope_key": p.scope.key,
        "kind": p.kind.value,
        "normalized_key": p.normalized_key,
        "claim_key": claim_key(p.value, bool(spec and spec.multi_valued)),
    }


def verified(index: int, p: MemoryProposal, ph: str, registry: Registry) -> Verified:
    key = fact_key_of(p, registry)
    return Verified(index, p, ph, key, memory_id_for(key))


# A refusal for a secret or a forbidden sensitive value keeps no value, only its payload
# hash and reasons (SPEC §5.6 v3): the value is what the refusal protects.
VALUE_FREE_REASONS = frozenset({"secret", "sensitive_forbidden"})


def keeps_no_value(verdict: Verdict, secret: bool) -> bool:
    """True when the proposal row must be stored without its value."""
    return secret or (
        verdict.decision == Decision.REJECT and not VALUE_FREE_REASONS.isdisjoint(verdict.reasons)
    )


def proposal_row(
    p: MemoryProposal,
    ph: str,
    verdict: Verdict,
    receipt: Receipt,
    locked_version: int,
    revision: int,
    *,
    redact: bool,
    now: datetime,
    proposed_by: str,
    derived_from: list[str] | None = None,
) -> dict[str, Any]:
    """The immutable proposal row; ``redact`` (:func:`keeps_no_value`) keeps the value out."""
    return {
        "tenant_id": p.tenant_id,
        "proposal_id": p.proposal_id,
        "payload_hash": ph,
        "subject_id": p.subject_id,
        "scope_kind": p.scope.kind.value,
        "scope_key": p.scope.key,
        "kind": p.kind.value,
        "normalized_key": p.normalized_key,
        "stable_candidate_ordinal": p.stable_candidate_ordinal,
        "message_id": p.evidence.message_id,
        "message_revision": revision,
        "evidence_start": p.evidence.start,
        "evidence_end": p.evidence.end,
        "evidence_sha256": p.evidence.sha256,
        "extractor_version": p.extractor_version,
        "confidence": p.confidence,
        "expires_at": p.expires_at,
        "value_json": None if redact else dumps(p.value),
        "decision": verdict.decision.value,
        "reasons": dumps(list(verdict.reasons)),
        "state": STATE_FOR[verdict.decision].value,
        "memory_id": receipt.memory_id,
        "memory_version": receipt.memory_version,
        "expected_version": locked_version,
        "proposed_by": proposed_by,
        "derived_from": dumps(derived_from) if derived_from else None,
        "submitted_at": now,
        "decided_at": now,
    }


def log_decision(proposal_id: str, verdict: Verdict) -> None:
    """One log line and one metric per decision; never a value or any message text."""
    log.info(
        "decided proposal=%s decision=%s reasons=%s",
        proposal_id[:12],
        verdict.decision.value,
        ",".join(verdict.reasons),
    )
    metrics.record_decision(verdict.decision, verdict.reasons)


def refuse(conn: Connection, refusal: Refusal, ctx: GateContext) -> Receipt:
    """REJECT a submission that cannot be keyed by a verified id; audited, never stored as a
    proposal (a forged id must not occupy the honest proposal's slot)."""
    receipt = Receipt(
        tenant_id=refusal.tenant_id,
        proposal_id=refusal.claimed_id or "",
        payload_hash=refusal.payload_hash or "",
        decision=Decision.REJECT,
        reasons=list(refusal.reasons),
        checks_passed=[],
        policy_version=ctx.policy_version,
        registry_version=ctx.registry.version,
        decided_at=ctx.now,
        validator=validator(ctx.policy_version),
        authority="policy:refused_before_checks",
        side_effects={
            "proposal_recorded": False,
            "memory_version_created": False,
            "outbox_events": [],
        },
    )
    insert_ignore(
        conn,
        rejected_submissions,
        {
            "tenant_id": refusal.tenant_id,
            "submission_hash": refusal.submission_hash,
            "claimed_proposal_id": refusal.claimed_id,
            "payload_hash": refusal.payload_hash,
            "body": receipt_body(receipt),
            "created_at": ctx.now,
        },
        ["tenant_id", "submission_hash"],
    )
    log.info("submission refused: %s", ",".join(refusal.reasons))
    metrics.record_decision(Decision.REJECT, list(refusal.reasons))
    return receipt


def stored_receipt(conn: Connection, tenant_id: str, proposal_id: str) -> Receipt:
    body = conn.execute(
        select(receipts.c.body).where(
            receipts.c.tenant_id == tenant_id, receipts.c.proposal_id == proposal_id
        )
    ).scalar_one()
    return Receipt.model_validate_json(body)
