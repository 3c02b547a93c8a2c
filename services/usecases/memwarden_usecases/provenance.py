"""Provenance you can read (seed 000: every fact answers who proposed it, on what evidence,
who approved it and how to take it back). One read of one memory across the tables that
already hold the answer; nothing here is stored twice."""

from __future__ import annotations

import json
import shlex
from datetime import datetime
from typing import Any
from urllib.parse import quote

from sqlalchemy import Connection, Engine, and_, select

from memwarden_shared.config import get_settings
from memwarden_shared.contract.models import MessageStatus
from memwarden_shared.state import read_log
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.schema import (
    action_uses,
    actions,
    approvals,
    memory_versions,
    messages,
    proposals,
    receipts,
)
from memwarden_shared.store.tenant_scope import all_tenants
from memwarden_usecases.inspect import memory_history

# How many read-log rows `why` shows; `memwarden reads --memory` pages through all of them.
READS_SHOWN = 20


def why(engine: Engine, tenant_id: str, memory_id: str) -> dict[str, Any] | None:
    """Where the memory came from, who let it in, who has read it since and how to take it
    back; None when the tenant has no such memory."""
    versions = memory_history(engine, tenant_id, memory_id)
    if not versions:
        return None
    with unit_of_work(engine) as uow:
        conn = uow.conn
        props = _proposals(conn, tenant_id, memory_id, versions)
        ids = [p["proposal_id"] for p in props]
        reviews = _reviews(conn, tenant_id, ids)
        for p in props:
            p["reviews"] = reviews.get(p["proposal_id"], [])
        derived_by = _derived_by(conn, tenant_id, memory_id)
        used_by = _actions(conn, tenant_id, memory_id)
        recent = read_log.reads_of(conn, tenant_id, memory_id, limit=READS_SHOWN)
    evidence_messages = sorted({m for v in versions for m in v["evidence_message_ids"]})
    approvers = [r for p in props for r in p["reviews"] if r["outcome"] == "committed"]
    return {
        "memory_id": memory_id,
        "tenant_id": tenant_id,
        "current_version": next((v["version"] for v in versions if v["current"]), None),
        "versions": [_version_summary(v) for v in versions],
        "proposals": props,
        "approvals": [
            {"approver": r["approver"], "approval_hash": r["payload_hash"], "at": r["at"]}
            for r in approvers
        ],
        "derived_from": sorted({d for v in versions for d in v["derived_from"]}),
        "derived_by": derived_by,
        "used_by_actions": used_by,
        "recent_reads": recent,
        "revoke": _revoke_commands(tenant_id, memory_id, evidence_messages),
    }


def _version_summary(v: dict[str, Any]) -> dict[str, Any]:
    keep = (
        "version",
        "status",
        "status_reason",
        "current",
        "kind",
        "normalized_key",
        "scope",
        "value",
        "auto",
        "supersedes",
        "derived_from",
        "proposal_id",
        "evidence_message_ids",
        "recorded_at",
        "expires_at",
    )
    return {k: v[k] for k in keep}


def _proposals(
    conn: Connection, tenant_id: str, memory_id: str, versions: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Every proposal decided about this memory (the ones that made a version and the ones
    that repeated or challenged it), each with its evidence quote and stored receipt."""
    made = {v["proposal_id"] for v in versions}
    stmt = (
        select(
            proposals, messages.c.text, messages.c.status.label("message_status"), receipts.c.body
        )
        .outerjoin(
            messages,
            and_(
                messages.c.tenant_id == proposals.c.tenant_id,
                messages.c.message_id == proposals.c.message_id,
                messages.c.revision == proposals.c.message_revision,
            ),
        )
        .outerjoin(
            receipts,
            and_(
                receipts.c.tenant_id == proposals.c.tenant_id,
                receipts.c.proposal_id == proposals.c.proposal_id,
            ),
        )
        .where(
            proposals.c.tenant_id == tenant_id,
            (proposals.c.memory_id == memory_id) | proposals.c.proposal_id.in_(made),
        )
        .order_by(proposals.c.id)
    )
    return [
        {
            "proposal_id": r.proposal_id,
            "payload_hash": r.payload_hash,
            "proposed_by": r.proposed_by,
            "producer_version": r.extractor_version,
            "decision": r.decision,
            "reasons": json.loads(r.reasons),
            "state": r.state,
            "memory_version": r.memory_version,
            "decided_at": r.decided_at.isoformat(),
            "evidence": {
                "message_id": r.message_id,
                "revision": r.message_revision,
                "start": r.evidence_start,
                "end": r.evidence_end,
                "quote": _quote(r),
                "message_status": r.message_status,
            },
            "receipt": json.loads(r.body) if r.body else None,
        }
        for r in conn.execute(stmt)
    ]


def _quote(r: Any) -> str | None:
    """The evidence sentence as stored; None once the message is gone, revoked or erased
    (what was withdrawn is not shown again)."""
    if r.text is None or r.message_status != MessageStatus.ACTIVE:
        return None
    text = str(r.text)
    return text[r.evidence_start : r.evidence_end] if r.evidence_end <= len(text) else None


def _reviews(
    conn: Connection, tenant_id: str, proposal_ids: list[str]
) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    if not proposal_ids:
        return out
    rows = conn.execute(
        select(approvals)
        .where(approvals.c.tenant_id == tenant_id, approvals.c.proposal_id.in_(proposal_ids))
        .order_by(approvals.c.id)
    )
    for r in rows:
        out.setdefault(r.proposal_id, []).append(
            {
                "approver": r.principal_id,
                "verdict": r.verdict,
                "outcome": r.outcome,
                "payload_hash": r.payload_hash,
                "pending_fingerprint": r.pending_fingerprint,
                "receipt": json.loads(r.receipt) if r.receipt else None,
                "at": r.created_at.isoformat(),
            }
        )
    return out


def _derived_by(conn: Connection, tenant_id: str, memory_id: str) -> list[str]:
    """Versions of other memories that name one of this memory's versions as a source."""
    rows = conn.execute(
        select(
            memory_versions.c.memory_id, memory_versions.c.version, memory_versions.c.derived_from
        )
        .where(
            memory_versions.c.tenant_id == tenant_id,
            memory_versions.c.derived_from.contains(f'"{memory_id}:'),
        )
        .order_by(memory_versions.c.id)
    )
    return [
        f"{r.memory_id}:{r.version}"
        for r in rows
        if any(d.rsplit(":", 1)[0] == memory_id for d in json.loads(r.derived_from))
    ]


def _actions(conn: Connection, tenant_id: str, memory_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(
            actions.c.action_id,
            actions.c.intent,
            actions.c.decision,
            actions.c.state,
            actions.c.requested_by,
            actions.c.approved_by,
            actions.c.external_ref,
            actions.c.decided_at,
            action_uses.c.version,
        )
        .join(action_uses, action_uses.c.action_id == actions.c.action_id)
        .where(action_uses.c.tenant_id == tenant_id, action_uses.c.memory_id == memory_id)
        .order_by(actions.c.id)
    )
    return [
        {
            "action_id": r.action_id,
            "intent": r.intent,
            "decision": r.decision,
            "state": r.state,
            "requested_by": r.requested_by,
            "approved_by": r.approved_by,
            "external_ref": r.external_ref,
            "memory_version": r.version,
            "decided_at": r.decided_at.isoformat(),
        }
        for r in rows
    ]


def _revoke_commands(
    tenant_id: str, memory_id: str, evidence_messages: list[str]
) -> dict[str, Any]:
    """The exact ways to take it back: revoke each source message (every memory it supports
    leaves recall), or reject this memory alone."""
    tenant, memory = shlex.quote(tenant_id), shlex.quote(memory_id)
    return {
        "reject_memory": {
            "cli": f"memwarden reject-memory --tenant {tenant} --memory {memory}",
        },
        "revoke_messages": [
            {
                "message_id": m,
                "cli": f"memwarden revoke --tenant {tenant} --message {shlex.quote(m)}",
                "api": f"POST /v1/messages/{quote(m, safe='')}/revoke",
            }
            for m in evidence_messages
        ],
    }


def reads(
    engine: Engine,
    tenant_id: str,
    memory_id: str,
    *,
    limit: int = 100,
    before_id: int | None = None,
) -> list[dict[str, Any]]:
    """Who read ``memory_id`` (which version, as whom, through recall or an action, when),
    newest first; pass the last row's ``id`` as ``before_id`` for the next page."""
    with unit_of_work(engine) as uow:
        return read_log.reads_of(uow.conn, tenant_id, memory_id, limit=limit, before_id=before_id)


# Retention is a store-wide job: it deletes old rows of every tenant.
@all_tenants("read log retention prunes every tenant's old rows")
def prune_reads(engine: Engine, now: datetime | None = None) -> int:
    """Drop read-log rows older than ``read_log_retention_seconds``; returns how many."""
    with unit_of_work(engine) as uow:
        gone = read_log.prune(uow.conn, now or utcnow(), get_settings().read_log_retention_seconds)
        uow.commit()
    return gone
