"""Reads only the API needs. Every query is keyed by the caller's tenant."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine, and_, select

from memwarden_shared.contract.models import Topic
from memwarden_shared.store.db import as_utc, unit_of_work, utcnow
from memwarden_shared.store.schema import (
    current_memories,
    memory_evidence,
    memory_versions,
    messages,
    outbox,
    proposals,
    receipts,
)

FEED_TOPICS = (
    Topic.MEMORY_COMMITTED.value,
    Topic.MEMORY_REVOKED.value,
    Topic.ACTION_CANCELLED.value,
    Topic.ACTION_NEEDS_REPAIR.value,
    Topic.EXTRACTOR_ROLLED_BACK.value,
    Topic.EXTRACTOR_ROLLBACK_CLEARED.value,
    Topic.WRITE_RATE_HELD.value,
    Topic.WRITE_RATE_CLEARED.value,
)


def _iso(moment: Any) -> str | None:
    utc = as_utc(moment)
    return utc.isoformat() if utc is not None else None


def evidence_for(
    engine: Engine, tenant_id: str, proposal_ids: list[str]
) -> dict[str, dict[str, Any]]:
    """Evidence of pending proposals: offsets and the message revision they point into."""
    if not proposal_ids:
        return {}
    stmt = (
        select(
            proposals.c.proposal_id,
            proposals.c.message_id,
            proposals.c.message_revision,
            proposals.c.evidence_start,
            proposals.c.evidence_end,
            proposals.c.evidence_sha256,
            messages.c.text,
            messages.c.status,
        )
        .select_from(proposals)
        .outerjoin(
            messages,
            and_(
                messages.c.tenant_id == proposals.c.tenant_id,
                messages.c.message_id == proposals.c.message_id,
                messages.c.revision == proposals.c.message_revision,
            ),
        )
        .where(proposals.c.tenant_id == tenant_id, proposals.c.proposal_id.in_(proposal_ids))
    )
    with unit_of_work(engine) as uow:
        rows = uow.conn.execute(stmt).all()
    return {
        r.proposal_id: {
            "message_id": r.message_id,
            "revision": r.message_revision,
            "start": r.evidence_start,
            "end": r.evidence_end,
            "sha256": r.evidence_sha256,
            "message_text": r.text,
            "message_status": r.status,
        }
        for r in rows
    }


def memory_versions_of(engine: Engine, tenant_id: str, memory_id: str) -> list[dict[str, Any]]:
    """Every version of one memory, oldest first; empty when it is not the tenant's."""
    with unit_of_work(engine) as uow:
        conn = uow.conn
        rows = conn.execute(
            select(memory_versions)
            .where(
                memory_versions.c.tenant_id == tenant_id,
                memory_versions.c.memory_id == memory_id,
            )
            .order_by(memory_versions.c.version)
        ).all()
        current = conn.execute(
            select(current_memories.c.version).where(
                current_memories.c.tenant_id == tenant_id,
                current_memories.c.memory_id == memory_id,
            )
        ).scalar()
        evidence: dict[int, list[str]] = {}
        for e in conn.execute(
            select(memory_evidence.c.version, memory_evidence.c.message_id).where(
                memory_evidence.c.tenant_id == tenant_id,
                memory_evidence.c.memory_id == memory_id,
            )
        ):
            evidence.setdefault(e.version, []).append(e.message_id)
    return [
        {
            "memory_id": r.memory_id,
            "version": r.version,
            "status": r.status,
            "status_reason": r.status_reason,
            "current": r.version == current,
            "subject_id": r.subject_id,
            "kind": r.kind,
            "normalized_key": r.normalized_key,
            "scope": {"kind": r.scope_kind, "key": r.scope_key},
            "value": json.loads(r.value_json),
            "evidence_message_ids": sorted(set(evidence.get(r.version, []))),
            "auto": r.auto,
            "supersedes": r.supersedes,
            "derived_from": json.loads(r.derived_from or "[]"),
            "proposal_id": r.proposal_id,
            "valid_from": _iso(r.valid_from),
            "valid_to": _iso(r.valid_to),
            "recorded_at": _iso(r.recorded_at),
            "expired_at": _iso(r.expired_at),
            "expires_at": _iso(r.expires_at),
        }
        for r in rows
    ]


def receipt_body(engine: Engine, tenant_id: str, proposal_id: str) -> str | None:
    """The stored receipt text, exactly as written by the gate."""
    with unit_of_work(engine) as uow:
        body = uow.conn.execute(
            select(receipts.c.body).where(
                receipts.c.tenant_id == tenant_id, receipts.c.proposal_id == proposal_id
            )
        ).scalar()
    return str(body) if body is not None else None


def events_after(
    engine: Engine, tenant_id: str, after: int, limit: int, settle_seconds: float
) -> list[dict[str, Any]]:
    """Committed/revoked memory events of one tenant with ``id > after``, oldest first.

    Rows younger than ``settle_seconds`` are held back: on PostgreSQL an outbox id is taken
    at insert, so a long transaction can commit a smaller id after a larger one was served,
    and a consumer whose cursor already moved past it would never see it.
    """
    stmt = (
        select(
            outbox.c.id, outbox.c.topic, outbox.c.event_key, outbox.c.payload, outbox.c.created_at
        )
        .where(
            outbox.c.tenant_id == tenant_id,
            outbox.c.topic.in_(FEED_TOPICS),
            outbox.c.id > after,
        )
        .order_by(outbox.c.id)
        .limit(limit)
    )
    with unit_of_work(engine) as uow:
        rows = uow.conn.execute(stmt).all()
    if settle_seconds > 0:
        # Cut at the first young row rather than filtering young rows out: an older row with
        # a larger id must not move the cursor past a smaller id that is still settling.
        cutoff = utcnow() - timedelta(seconds=settle_seconds)
        young = [i for i, r in enumerate(rows) if as_utc(r.created_at) > cutoff]
        rows = rows[: young[0]] if young else rows
    return [
        {
            "id": r.id,
            "topic": r.topic,
            "key": r.event_key,
            "payload": json.loads(r.payload),
            "created_at": _iso(r.created_at),
        }
        for r in rows
    ]
