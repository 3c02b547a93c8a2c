"""The gate's unit of work: verify, decide under the fact-key lock, record, commit (SPEC §5, §7)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, Engine, select

from services.gate import commit as writes
from services.gate import store
from services.gate.checks import assess, recompute_proposal_id
from services.gate.decide import Verdict, decide
from shared.canonical import claim_key, claim_text, jcs, memory_id_for, payload_hash, sha256_hex
from shared.config import get_settings
from shared.db import dumps, get_engine, insert_ignore, lock_fact_key, unit_of_work, utcnow
from shared.models import Decision, MemoryProposal, ProposalState, Receipt
from shared.registry import Registry, default_registry
from shared.schema import proposals, receipts, rejected_submissions, tenant_policies

log = logging.getLogger("memwarden.gate")

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


def submission_hash(raw: Any) -> str:
    try:
        return sha256_hex(jcs(raw))
    except Exception:  # not JSON-representable: hash its repr so it is still deduplicated
        return sha256_hex(repr(raw))


def decide_batch(
    raw_proposals: list[Any], *, engine: Engine | None = None, ctx: GateContext | None = None
) -> list[Receipt]:
    """Decide proposals in one transaction, in fact-key order so concurrent batches lock
    keys in the same order and cannot deadlock. Returns receipts in input order."""
    ctx = ctx or GateContext()
    order = sorted(range(len(raw_proposals)), key=lambda i: _lock_order(raw_proposals[i]))
    out: list[Receipt | None] = [None] * len(raw_proposals)
    with unit_of_work(engine or get_engine()) as uow:
        for i in order:
            out[i] = decide_one(uow.conn, raw_proposals[i], ctx)
        uow.commit()
    return [r for r in out if r is not None]


def _lock_order(raw: Any) -> str:
    if not isinstance(raw, dict):
        return ""
    scope = raw.get("scope") if isinstance(raw.get("scope"), dict) else {}
    return "\x00".join(
        str(x)
        for x in (
            raw.get("tenant_id"),
            raw.get("subject_id"),
            scope.get("kind"),
            scope.get("key"),
            raw.get("kind"),
            raw.get("normalized_key"),
        )
    )


def decide_one(conn: Connection, raw: Any, ctx: GateContext) -> Receipt:
    try:
        p = MemoryProposal.model_validate(raw)
    except ValidationError as exc:
        # Only field locations are kept: pydantic's messages would echo the input, secrets too.
        fields = sorted({".".join(str(x) for x in err["loc"]) for err in exc.errors()})
        log.info("proposal refused: schema_invalid fields=%s", fields)
        return _refuse(conn, raw, ["schema_invalid"], ctx, None, None)
    if recompute_proposal_id(p) != p.proposal_id:
        return _refuse(conn, raw, ["proposal_id_mismatch"], ctx, p.proposal_id, None)
    ph = payload_hash(
        value=p.value,
        confidence=p.confidence,
        expires_at=p.expires_at,
        evidence_hash=p.evidence.sha256,
    )
    first = conn.execute(
        select(proposals.c.payload_hash).where(
            proposals.c.tenant_id == p.tenant_id, proposals.c.proposal_id == p.proposal_id
        )
    ).first()
    if first is not None:
        if first.payload_hash == ph:
            return stored_receipt(conn, p.tenant_id, p.proposal_id)  # exact replay: no writes
        return _refuse(conn, raw, ["payload_conflict"], ctx, p.proposal_id, ph)
    return _decide_verified(conn, p, ph, ctx)


def _decide_verified(conn: Connection, p: MemoryProposal, ph: str, ctx: GateContext) -> Receipt:
    msg = store.load_message(conn, p.tenant_id, p.evidence.message_id)
    span = None
    if msg is not None and 0 <= p.evidence.start < p.evidence.end <= len(msg.text):
        span = msg.text[p.evidence.start : p.evidence.end]
    suppressed = store.is_suppressed(
        conn, p.tenant_id, p.subject_id, [claim_text(p.value), span or ""]
    )
    a = assess(
        p,
        msg,
        ctx.registry,
        review_all=_profile(conn, p.tenant_id, ctx) == "review_all",
        suppressed=suppressed,
    )
    key = fact_key_of(p, ctx.registry)
    memory_id = memory_id_for(key)
    needs_lock = not (a.reject or a.tainted or a.not_durable)
    current = None
    seen = locked = 0
    fact_row: dict[str, Any] | None = None
    if needs_lock:
        seen = store.seen_version(conn, key)
        fact_row = lock_fact_key(conn, key, memory_id)
        locked = int(fact_row["current_version"])
        current = store.load_current(conn, memory_id)
        a.passed("fact_key_locked")
    verdict = decide(
        a,
        value=p.value,
        current=current,
        seen_version=seen,
        locked_version=locked,
        evidence_at=msg.created_at if msg else ctx.now,
    )
    mem_ref: tuple[str, int] | None = None
    events: list[str] = []
    if verdict.decision == Decision.COMMIT and fact_row is not None and msg is not None:
        mem_ref = writes.commit_version(
            conn,
            fact_row=fact_row,
            previous_version=None,
            value=p.value,
            proposal_id=p.proposal_id,
            message_id=msg.message_id,
            message_revision=msg.revision,
            auto=True,
            valid_from=msg.created_at,
            expires_at=p.expires_at,
            now=ctx.now,
        )
        events.append("memory.committed")
    elif verdict.decision == Decision.NOOP and current is not None:
        writes.add_evidence(
            conn,
            memory_id,
            current.version,
            p.tenant_id,
            p.evidence.message_id,
            msg.revision if msg else 1,
        )
        mem_ref = (memory_id, current.version)
    receipt = Receipt(
        tenant_id=p.tenant_id,
        proposal_id=p.proposal_id,
        payload_hash=ph,
        decision=verdict.decision,
        reasons=list(verdict.reasons),
        checks_passed=list(dict.fromkeys(a.checks_passed)),
        memory_id=mem_ref[0] if mem_ref else None,
        memory_version=mem_ref[1] if mem_ref else None,
        policy_version=ctx.policy_version,
        decided_at=ctx.now,
        side_effects={
            "proposal_recorded": True,
            "memory_version_created": verdict.decision == Decision.COMMIT,
            "outbox_events": events,
        },
    )
    _record_proposal(
        conn,
        p,
        ph,
        verdict,
        receipt,
        locked,
        msg.revision if msg else 0,
        redact=a.secret,
        now=ctx.now,
        proposed_by=ctx.proposed_by or f"extractor:{p.extractor_version}",
    )
    log.info(
        "decided proposal=%s decision=%s reasons=%s",
        p.proposal_id[:12],
        verdict.decision.value,
        ",".join(verdict.reasons),
    )
    return receipt


def _profile(conn: Connection, tenant_id: str, ctx: GateContext) -> str:
    profile = conn.execute(
        select(tenant_policies.c.profile).where(tenant_policies.c.tenant_id == tenant_id)
    ).scalar()
    return str(profile or ctx.default_profile)


def _record_proposal(
    conn: Connection,
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
) -> None:
    conn.execute(
        proposals.insert().values(
            tenant_id=p.tenant_id,
            proposal_id=p.proposal_id,
            payload_hash=ph,
            subject_id=p.subject_id,
            scope_kind=p.scope.kind.value,
            scope_key=p.scope.key,
            kind=p.kind.value,
            normalized_key=p.normalized_key,
            stable_candidate_ordinal=p.stable_candidate_ordinal,
            message_id=p.evidence.message_id,
            message_revision=revision,
            evidence_start=p.evidence.start,
            evidence_end=p.evidence.end,
            evidence_sha256=p.evidence.sha256,
            extractor_version=p.extractor_version,
            confidence=p.confidence,
            expires_at=p.expires_at,
            value_json=None if redact else dumps(p.value),
            decision=verdict.decision.value,
            reasons=dumps(list(verdict.reasons)),
            state=STATE_FOR[verdict.decision].value,
            memory_id=receipt.memory_id,
            memory_version=receipt.memory_version,
            expected_version=locked_version,
            proposed_by=proposed_by,
            submitted_at=now,
            decided_at=now,
        )
    )
    writes.store_receipt(conn, receipt, now)


def _refuse(
    conn: Connection,
    raw: Any,
    reasons: list[str],
    ctx: GateContext,
    claimed_id: str | None,
    ph: str | None,
) -> Receipt:
    """REJECT a submission that cannot be keyed by a verified id; audited, never stored as a
    proposal (a forged id must not occupy the honest proposal's slot)."""
    tenant = raw.get("tenant_id") if isinstance(raw, dict) else None
    tenant = tenant if isinstance(tenant, str) and tenant else "unknown"
    receipt = Receipt(
        tenant_id=tenant,
        proposal_id=claimed_id or "",
        payload_hash=ph or "",
        decision=Decision.REJECT,
        reasons=reasons,
        checks_passed=[],
        policy_version=ctx.policy_version,
        decided_at=ctx.now,
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
            "tenant_id": tenant,
            "submission_hash": submission_hash(raw),
            "claimed_proposal_id": claimed_id,
            "payload_hash": ph,
            "body": writes.receipt_body(receipt),
            "created_at": ctx.now,
        },
        ["tenant_id", "submission_hash"],
    )
    log.info("submission refused: %s", ",".join(reasons))
    return receipt


def stored_receipt(conn: Connection, tenant_id: str, proposal_id: str) -> Receipt:
    body = conn.execute(
        select(receipts.c.body).where(
            receipts.c.tenant_id == tenant_id, receipts.c.proposal_id == proposal_id
        )
    ).scalar_one()
    return Receipt.model_validate_json(body)
