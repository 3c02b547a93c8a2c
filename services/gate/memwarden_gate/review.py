"""Owner review (SPEC §10): pending candidates, approvals bound to proposal_id + payload_hash.

An approval executes the *frozen* formation: the proposal as stored, re-read under the
fact-key lock. A different payload hash, a payload that no longer hashes to what was
approved, a revoked source or a fact that moved since the gate decided all refuse it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, select

from memwarden_gate import store
from memwarden_gate.records import validator
from memwarden_shared.config import get_settings
from memwarden_shared.contract.canonical import (
    claim_key,
    jcs,
    memory_id_for,
    payload_hash,
    sha256_hex,
)
from memwarden_shared.contract.models import MessageStatus, ProposalState, ReviewReceipt
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.contract.tenant_registry import registry_for
from memwarden_shared.state import commit_switch, memory_state, provenance
from memwarden_shared.state.auth import Principal, Scope, authorize
from memwarden_shared.state.memory_state import NewVersion
from memwarden_shared.store.db import as_utc, get_engine, unit_of_work, utcnow
from memwarden_shared.store.dialect import lock_rows
from memwarden_shared.store.schema import approvals, current_memories, proposals, receipts


class ReviewRefused(Exception):
    """An approval or rejection that must not take effect; ``code`` says why."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class ReviewOutcome:
    proposal_id: str
    state: str
    memory_id: str | None = None
    memory_version: int | None = None


def pending(
    principal: Principal, tenant_id: str, *, engine: Engine | None = None, limit: int = 100
) -> list[dict[str, Any]]:
    """Pending confirmations of one tenant, most confident first."""
    authorize(principal, Scope.REVIEW, tenant_id)
    with unit_of_work(engine or get_engine()) as uow:
        rows = uow.conn.execute(
            select(proposals)
            .where(proposals.c.tenant_id == tenant_id, proposals.c.state == ProposalState.PENDING)
            .order_by(proposals.c.confidence.desc(), proposals.c.id)
            .limit(limit)
        ).all()
    return [
        {
            "proposal_id": r.proposal_id,
            "payload_hash": r.payload_hash,
            "subject_id": r.subject_id,
            "kind": r.kind,
            "normalized_key": r.normalized_key,
            "value": json.loads(r.value_json) if r.value_json else None,
            "scope": {"kind": r.scope_kind, "key": r.scope_key},
            "expires_at": as_utc(r.expires_at).isoformat() if r.expires_at else None,
            "decision": r.decision,
            "reasons": json.loads(r.reasons),
            "confidence": r.confidence,
            "message_id": r.message_id,
        }
        for r in rows
    ]


def _frozen(conn: Connection, tenant_id: str, proposal_id: str) -> Any:
    # FOR UPDATE on Postgres: two reviewers approving at once execute one after the other.
    stmt = select(proposals).where(
        proposals.c.tenant_id == tenant_id, proposals.c.proposal_id == proposal_id
    )
    return conn.execute(lock_rows(conn, stmt)).first()


def pending_fingerprint(conn: Connection, tenant_id: str, proposal_id: str) -> str:
    """sha256 of the pending receipt exactly as stored: what a review receipt links to."""
    body = conn.execute(
        select(receipts.c.body).where(
            receipts.c.tenant_id == tenant_id, receipts.c.proposal_id == proposal_id
        )
    ).scalar()
    return sha256_hex(str(body)) if body is not None else ""


def _audit(
    conn: Connection,
    tenant_id: str,
    proposal_id: str,
    ph: str,
    principal_id: str,
    verdict: str,
    outcome: str,
    now: datetime,
    memory: tuple[str, int] | None = None,
) -> None:
    """The approval row and its own receipt, linked to the immutable pending receipt."""
    fingerprint = pending_fingerprint(conn, tenant_id, proposal_id)
    receipt = ReviewReceipt(
        tenant_id=tenant_id,
        proposal_id=proposal_id,
        payload_hash=ph,
        pending_fingerprint=fingerprint,
        verdict=verdict,
        outcome=outcome,
        approver=principal_id,
        authority=f"review:{principal_id}",
        memory_id=memory[0] if memory else None,
        memory_version=memory[1] if memory else None,
        validator=validator(get_settings().policy_version),
        decided_at=now,
    )
    conn.execute(
        approvals.insert().values(
            tenant_id=tenant_id,
            proposal_id=proposal_id,
            payload_hash=ph,
            principal_id=principal_id,
            verdict=verdict,
            outcome=outcome,
            created_at=now,
            pending_fingerprint=fingerprint,
            receipt=jcs(receipt.model_dump(mode="json")).decode("utf-8"),
        )
    )


def approve(
    principal: Principal,
    tenant_id: str,
    proposal_id: str,
    approved_payload_hash: str,
    *,
    engine: Engine | None = None,
) -> ReviewOutcome:
    """Execute the frozen formation of a pending candidate, bound to its payload hash."""
    authorize(principal, Scope.REVIEW, tenant_id)
    principal_id = principal.principal_id
    now = utcnow()
    engine = engine or get_engine()
    with unit_of_work(engine) as uow:
        conn = uow.conn
        row = _frozen(conn, tenant_id, proposal_id)
        refusal = _approval_refusal(conn, row, approved_payload_hash, principal_id)
        if refusal:
            if row is not None:
                _audit(
                    conn,
                    tenant_id,
                    proposal_id,
                    approved_payload_hash,
                    principal_id,
                    "approve",
                    f"refused:{refusal}",
                    now,
                )
                uow.commit()
            raise ReviewRefused(refusal)
        if commit_switch.closed_for(conn, {tenant_id}):
            # hard rollback: an approval is a commit too, held until an admin opens the switch
            _audit(
                conn,
                tenant_id,
                proposal_id,
                approved_payload_hash,
                principal_id,
                "approve",
                "refused:commit_switch_closed",
                now,
            )
            uow.commit()
            raise ReviewRefused("commit_switch_closed")
        registry = registry_for(default_registry(), tenant_id, get_settings().tenant_registry)
        spec = registry.get(row.kind, row.normalized_key)
        key = {
            "tenant_id": row.tenant_id,
            "subject_id": row.subject_id,
            "scope_kind": row.scope_kind,
            "scope_key": row.scope_key,
            "kind": row.kind,
            "normalized_key": row.normalized_key,
            "claim_key": claim_key(json.loads(row.value_json), bool(spec and spec.multi_valued)),
        }
        memory_id = memory_id_for(key)
        fact_row = memory_state.lock_fact_keys(conn, {memory_id: key}, now)[memory_id]
        if int(fact_row["current_version"]) != int(row.expected_version or 0):
            memory_state.settle_proposal(conn, row.id, ProposalState.CONFLICTED)
            _audit(
                conn,
                tenant_id,
                proposal_id,
                approved_payload_hash,
                principal_id,
                "approve",
                "refused:stale_expected_version",
                now,
            )
            uow.commit()
            raise ReviewRefused("stale_expected_version")
        current = store.load_current(conn, fact_row["memory_id"])
        msg = store.load_message(conn, tenant_id, row.message_id)
        item = NewVersion(
            fact_row=fact_row,
            value=json.loads(row.value_json),
            proposal_id=proposal_id,
            message_id=row.message_id,
            message_revision=row.message_revision,
            auto=False,
            valid_from=msg.created_at if msg else now,
            expires_at=as_utc(row.expires_at),
            supersedes=current.version if current else None,
            derived_from=tuple(json.loads(row.derived_from or "[]")),
        )
        memory_state.commit_versions(conn, [item], now)
        memory_id, version = item.memory_id, item.version
        memory_state.settle_proposal(conn, row.id, ProposalState.COMMITTED, (memory_id, version))
        _audit(
            conn,
            tenant_id,
            proposal_id,
            approved_payload_hash,
            principal_id,
            "approve",
            "committed",
            now,
            (memory_id, version),
        )
        uow.commit()
    return ReviewOutcome(proposal_id, ProposalState.COMMITTED.value, memory_id, version)


def _approval_refusal(
    conn: Connection, row: Any, approved_hash: str, principal_id: str
) -> str | None:
    if row is None:
        return "unknown_proposal"
    if row.proposed_by == principal_id:
        return "self_approval"
    if row.state != ProposalState.PENDING:
        return "not_pending"
    if row.payload_hash != approved_hash:
        return "payload_hash_mismatch"
    if row.value_json is None:
        return "payload_unavailable"
    # The stored formation must still hash to what was approved (tamper evidence at rest).
    recomputed = payload_hash(
        value=json.loads(row.value_json),
        confidence=row.confidence,
        expires_at=as_utc(row.expires_at),
        evidence_hash=row.evidence_sha256,
    )
    if recomputed != row.payload_hash:
        return "payload_changed"
    msg = store.load_message(conn, row.tenant_id, row.message_id)
    if msg is None or msg.status != MessageStatus.ACTIVE:
        return "evidence_revoked"
    if msg.revision != row.message_revision:
        return "evidence_superseded"  # the owner would approve words that no longer stand
    if not _sources_current(conn, row.derived_from):
        return "derived_from_not_current"  # a summary of something retracted meanwhile
    return None


def _sources_current(conn: Connection, derived_from: str | None) -> bool:
    """Every memory version a derived candidate names is still the current committed one."""
    sources = [s.rsplit(":", 1) for s in json.loads(derived_from or "[]")]
    for memory_id, version in sources:
        current = conn.execute(
            select(current_memories.c.version).where(
                current_memories.c.memory_id == memory_id,
                provenance.supported(current_memories.c.memory_id, current_memories.c.version),
            )
        ).scalar()
        if current is None or int(current) != int(version):
            return False
    return True


def reject(
    principal: Principal, tenant_id: str, proposal_id: str, *, engine: Engine | None = None
) -> ReviewOutcome:
    authorize(principal, Scope.REVIEW, tenant_id)
    principal_id = principal.principal_id
    now = utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        row = _frozen(uow.conn, tenant_id, proposal_id)
        if row is None:
            raise ReviewRefused("unknown_proposal")
        if row.state != ProposalState.PENDING:
            raise ReviewRefused("not_pending")
        memory_state.settle_proposal(uow.conn, row.id, ProposalState.REJECTED)
        _audit(
            uow.conn,
            tenant_id,
            proposal_id,
            row.payload_hash,
            principal_id,
            "reject",
            "rejected",
            now,
        )
        uow.commit()
    return ReviewOutcome(proposal_id, ProposalState.REJECTED.value)
