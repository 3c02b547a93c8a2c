"""Reads for the doors: a subject's memory versions and proposals, one memory's history, a
stored receipt, the event feed, and what became of a tenant's messages. Every query is keyed
by the tenant(s) the caller names."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, Row, and_, func, select

from memwarden_shared.contract.models import Topic
from memwarden_shared.store.db import as_utc, unit_of_work, utcnow
from memwarden_shared.store.schema import (
    current_memories,
    fact_keys,
    memory_evidence,
    memory_versions,
    messages,
    outbox,
    proposals,
    receipts,
)

# the topics the event feed serves: what consumers following a tenant's memory act on
FEED_TOPICS = (
    Topic.MEMORY_COMMITTED.value,
    Topic.MEMORY_REVOKED.value,
    Topic.ACTION_CANCELLED.value,
    Topic.ACTION_NEEDS_REPAIR.value,
    Topic.EXTRACTOR_ROLLED_BACK.value,
    Topic.EXTRACTOR_ROLLBACK_CLEARED.value,
    Topic.WRITE_RATE_HELD.value,
    Topic.WRITE_RATE_CLEARED.value,
    Topic.COMMIT_SWITCH_CLOSED.value,
    Topic.COMMIT_SWITCH_OPENED.value,
)


def _iso(moment: datetime | None) -> str | None:
    utc = as_utc(moment)
    return utc.isoformat() if utc is not None else None


def list_memories(engine: Engine, tenant_id: str, subject_id: str) -> list[dict[str, Any]]:
    """Every version of the subject's memories, oldest first; ``current`` marks the version
    recall may return."""
    with unit_of_work(engine) as uow:
        conn = uow.conn
        rows = conn.execute(
            select(memory_versions)
            .where(
                memory_versions.c.tenant_id == tenant_id, memory_versions.c.subject_id == subject_id
            )
            .order_by(memory_versions.c.id)
        ).all()
        current = {
            (r.memory_id, r.version)
            for r in conn.execute(
                select(current_memories.c.memory_id, current_memories.c.version).where(
                    current_memories.c.tenant_id == tenant_id,
                    current_memories.c.subject_id == subject_id,
                )
            )
        }
        evidence: dict[tuple[str, int], list[str]] = {}
        for e in conn.execute(
            select(memory_evidence).where(memory_evidence.c.tenant_id == tenant_id)
        ):
            evidence.setdefault((e.memory_id, e.version), []).append(e.message_id)
    return [
        {
            "memory_id": r.memory_id,
            "version": r.version,
            "status": r.status,
            "current": (r.memory_id, r.version) in current,
            "kind": r.kind,
            "normalized_key": r.normalized_key,
            "value": json.loads(r.value_json),
            "scope": {"kind": r.scope_kind, "key": r.scope_key},
            "evidence_message_ids": sorted(evidence.get((r.memory_id, r.version), [])),
            "auto": r.auto,
            "supersedes": r.supersedes,
            "derived_from": json.loads(r.derived_from or "[]"),
            "proposal_id": r.proposal_id,
            "valid_from": _iso(r.valid_from),
            "valid_to": _iso(r.valid_to),
            "recorded_at": _iso(r.recorded_at),
            "expired_at": _iso(r.expired_at),
        }
        for r in rows
    ]


def list_proposals(engine: Engine, tenant_id: str, subject_id: str) -> list[dict[str, Any]]:
    """The subject's proposals with the gate's decisions, oldest first."""
    with unit_of_work(engine) as uow:
        rows = uow.conn.execute(
            select(proposals)
            .where(proposals.c.tenant_id == tenant_id, proposals.c.subject_id == subject_id)
            .order_by(proposals.c.id)
        ).all()
    return [
        {
            "proposal_id": r.proposal_id,
            "payload_hash": r.payload_hash,
            "message_id": r.message_id,
            "kind": r.kind,
            "normalized_key": r.normalized_key,
            "scope": {"kind": r.scope_kind, "key": r.scope_key},
            "value": json.loads(r.value_json) if r.value_json else None,
            "decision": r.decision,
            "state": r.state,
            "reasons": json.loads(r.reasons),
            "memory_id": r.memory_id,
            "memory_version": r.memory_version,
            "extractor_version": r.extractor_version,
            "confidence": r.confidence,
            "decided_at": _iso(r.decided_at),
        }
        for r in rows
    ]


def memory_history(engine: Engine, tenant_id: str, memory_id: str) -> list[dict[str, Any]]:
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
    """The stored receipt text, exactly as the gate wrote it (canonical JSON)."""
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
    """The feed: events of :data:`FEED_TOPICS` of one tenant with ``id > after``, oldest first.

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


@dataclass(frozen=True)
class MessageOutcome:
    """One stored message and one of the proposals made from it (``proposal`` None: the
    extractor proposed nothing)."""

    message_id: str
    subject_id: str
    source: str
    text: str
    normalized_key: str | None
    value: Any
    decision: str | None
    reasons: tuple[str, ...]


def message_outcomes(engine: Engine, tenant_id: str) -> list[MessageOutcome]:
    """Every message of the tenant in the order stored, each with what the gate decided about
    each proposal made from it."""
    with unit_of_work(engine) as uow:
        msgs = uow.conn.execute(
            select(messages).where(messages.c.tenant_id == tenant_id).order_by(messages.c.id)
        ).all()
        props = uow.conn.execute(
            select(proposals).where(proposals.c.tenant_id == tenant_id).order_by(proposals.c.id)
        ).all()
    by_message: dict[str, list[Any]] = {}
    for p in props:
        by_message.setdefault(p.message_id, []).append(p)
    return [
        MessageOutcome(
            message_id=m.message_id,
            subject_id=m.subject_id,
            source=m.source,
            text=m.text,
            normalized_key=p.normalized_key if p else None,
            value=json.loads(p.value_json) if p and p.value_json else None,
            decision=p.decision if p else None,
            reasons=tuple(json.loads(p.reasons)) if p else (),
        )
        for m in msgs
        for p in by_message.get(m.message_id, [None])
    ]


@dataclass(frozen=True)
class SubjectRows:
    """A subject's stored rows across several tenants, as an evaluation reads them back.

    ``versions``: memory version rows with ``current_version`` (None unless current) and
    ``source_message_id`` (the proposal's message); ``evidence``: (memory id, version) to
    the cited message ids; ``proposals``: proposal rows, oldest first."""

    versions: Sequence[Row[Any]]
    evidence: dict[tuple[str, int], list[str]]
    proposals: Sequence[Row[Any]]


def subject_rows(engine: Engine, tenant_ids: list[str], subject_id: str) -> SubjectRows:
    with unit_of_work(engine) as uow:
        conn = uow.conn
        versions = conn.execute(
            select(
                memory_versions,
                current_memories.c.version.label("current_version"),
                proposals.c.message_id.label("source_message_id"),
            )
            .outerjoin(
                current_memories,
                and_(
                    current_memories.c.memory_id == memory_versions.c.memory_id,
                    current_memories.c.version == memory_versions.c.version,
                ),
            )
            .outerjoin(
                proposals,
                and_(
                    proposals.c.tenant_id == memory_versions.c.tenant_id,
                    proposals.c.proposal_id == memory_versions.c.proposal_id,
                ),
            )
            .where(
                memory_versions.c.tenant_id.in_(tenant_ids),
                memory_versions.c.subject_id == subject_id,
            )
            .order_by(memory_versions.c.id)
        ).all()
        evidence: dict[tuple[str, int], list[str]] = {}
        for r in conn.execute(
            select(memory_evidence).where(memory_evidence.c.tenant_id.in_(tenant_ids))
        ):
            evidence.setdefault((r.memory_id, r.version), []).append(r.message_id)
        props = conn.execute(
            select(proposals)
            .where(proposals.c.tenant_id.in_(tenant_ids), proposals.c.subject_id == subject_id)
            .order_by(proposals.c.id)
        ).all()
    return SubjectRows(versions, evidence, props)


def decisions_by_producer(engine: Engine, tenant_ids: list[str]) -> dict[tuple[str, str], int]:
    """(extractor version, first gate decision) -> proposals, over the tenants: the
    per-producer rates of seed 002 (acceptance, quarantine, conflict)."""
    with unit_of_work(engine) as uow:
        rows = uow.conn.execute(
            select(proposals.c.extractor_version, proposals.c.decision, func.count())
            .where(proposals.c.tenant_id.in_(tenant_ids))
            .group_by(proposals.c.extractor_version, proposals.c.decision)
        ).all()
    return {(r[0], r[1]): int(r[2]) for r in rows}


def latest_versions_citing(
    engine: Engine, tenant_id: str, message_id: str
) -> list[tuple[str, int]]:
    """(memory id, latest version) of each memory whose evidence cites the message."""
    with unit_of_work(engine) as uow:
        rows = uow.conn.execute(
            select(memory_versions.c.memory_id, func.max(memory_versions.c.version))
            .join(
                memory_evidence,
                (memory_evidence.c.memory_id == memory_versions.c.memory_id),
            )
            .where(
                memory_evidence.c.tenant_id == tenant_id,
                memory_evidence.c.message_id == message_id,
            )
            .group_by(memory_versions.c.memory_id)
            .order_by(memory_versions.c.memory_id)
        ).all()
    return [(str(memory_id), int(latest)) for memory_id, latest in rows]


def fact_key_of(engine: Engine, memory_id: str) -> dict[str, str] | None:
    """The fact key a memory id was derived from (tenant, subject, scope, kind, key, claim);
    None when no memory has that id."""
    with unit_of_work(engine) as uow:
        key = uow.conn.execute(select(fact_keys).where(fact_keys.c.memory_id == memory_id)).first()
    if key is None:
        return None
    return {
        "tenant_id": key.tenant_id,
        "subject_id": key.subject_id,
        "scope_kind": key.scope_kind,
        "scope_key": key.scope_key,
        "kind": key.kind,
        "normalized_key": key.normalized_key,
        "claim_key": key.claim_key,
    }
