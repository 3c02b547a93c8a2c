"""Revalidation I/O: revoke a source message, then cascade to the memories that depend on it."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, func, select, update

from services.revalidation.cascade import Dependent, outcome
from shared.canonical import claim_text, normalized_content_hash
from shared.db import get_engine, insert_ignore, unit_of_work, utcnow
from shared.inbox import first_deliveries
from shared.models import MemoryStatus, MessageStatus, ProposalState, Topic
from shared.outbox import emit, emit_many
from shared.schema import (
    current_memories,
    memory_evidence,
    memory_versions,
    messages,
    proposals,
    suppressions,
)

CONSUMER = "revalidation"


class UnknownMessage(LookupError):
    pass


def revoke_message(tenant_id: str, message_id: str, *, engine: Engine | None = None) -> bool:
    """Mark a message revoked and emit ``evidence.revoked`` in one transaction.

    From this commit on recall stops returning what depends on it (the read path checks
    evidence state); the cascade below only makes the history say so. Returns False when
    the message was already revoked.
    """
    now = utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        changed = uow.conn.execute(
            update(messages)
            .where(messages.c.tenant_id == tenant_id, messages.c.message_id == message_id,
                   messages.c.status != MessageStatus.REVOKED)
            .values(status=MessageStatus.REVOKED, status_changed_at=now)
        ).rowcount
        if not changed:
            exists = uow.conn.execute(select(func.count()).select_from(messages).where(
                messages.c.tenant_id == tenant_id, messages.c.message_id == message_id
            )).scalar_one()
            if not exists:
                raise UnknownMessage(f"no message {message_id} in tenant {tenant_id}")
            return False
        emit(uow.conn, Topic.EVIDENCE_REVOKED, f"{tenant_id}:{message_id}:revoked", tenant_id,
             {"message_id": message_id, "reason": "revoked"})
        uow.commit()
    return True


def _dependents(conn: Connection, tenant_id: str, message_id: str) -> list[Dependent]:
    active = (
        select(func.count())
        .select_from(memory_evidence.join(messages, and_(
            messages.c.tenant_id == memory_evidence.c.tenant_id,
            messages.c.message_id == memory_evidence.c.message_id,
            messages.c.revision == memory_evidence.c.revision)))
        .where(memory_evidence.c.memory_id == memory_versions.c.memory_id,
               memory_evidence.c.version == memory_versions.c.version,
               messages.c.status == MessageStatus.ACTIVE)
        .scalar_subquery()
    )
    rows = conn.execute(
        select(memory_versions.c.memory_id, memory_versions.c.version, active.label("active"))
        .join(memory_evidence, and_(memory_evidence.c.memory_id == memory_versions.c.memory_id,
                                    memory_evidence.c.version == memory_versions.c.version))
        .where(memory_evidence.c.tenant_id == tenant_id,
               memory_evidence.c.message_id == message_id,
               memory_versions.c.status == MemoryStatus.COMMITTED)
    )
    return [Dependent(r.memory_id, r.version, int(r.active)) for r in rows]


def revalidate(envelopes: list[dict[str, Any]], *, engine: Engine | None = None) -> int:
    """Apply revocations; returns how many memory versions were revoked."""
    revoked = 0
    now = utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        fresh = first_deliveries(conn, CONSUMER, [e["key"] for e in envelopes])
        events = []
        for env in envelopes:
            if env["key"] not in fresh:
                continue
            tenant, message_id = env["tenant_id"], env["payload"]["message_id"]
            # A candidate that cites a revoked message can never be approved.
            conn.execute(update(proposals).where(
                proposals.c.tenant_id == tenant, proposals.c.message_id == message_id,
                proposals.c.state == ProposalState.PENDING).values(state=ProposalState.REVOKED))
            for dep in _dependents(conn, tenant, message_id):
                if outcome(dep) != MemoryStatus.REVOKED:
                    continue
                _revoke_version(conn, dep, now)
                events.append((Topic.MEMORY_REVOKED, f"{dep.memory_id}:{dep.version}:revoked",
                               tenant, {"memory_id": dep.memory_id, "version": dep.version}))
        emit_many(conn, events)
        revoked = len(events)
        uow.commit()
    return revoked


def _revoke_version(conn: Connection, dep: Dependent, now: Any, *,
                    status: MemoryStatus = MemoryStatus.REVOKED,
                    reason: str = "evidence_revoked") -> None:
    """The version leaves recall: status appended to history, projection row removed."""
    conn.execute(update(memory_versions).where(
        memory_versions.c.memory_id == dep.memory_id, memory_versions.c.version == dep.version
    ).values(status=status, status_reason=reason, expired_at=now))
    conn.execute(update(proposals).where(
        proposals.c.memory_id == dep.memory_id, proposals.c.memory_version == dep.version,
        proposals.c.state.in_([ProposalState.COMMITTED, ProposalState.NOOP])
    ).values(state=ProposalState.REVOKED))
    conn.execute(delete(current_memories).where(
        current_memories.c.memory_id == dep.memory_id, current_memories.c.version == dep.version))


def forget_message(tenant_id: str, message_id: str, *, engine: Engine | None = None) -> int:
    """Right to be forgotten for everything derived from one message (SPEC §9, seed 004).

    In one transaction: the versions are FORGOTTEN and leave the projection, pending
    candidates are withdrawn, the message is revoked, and suppression rows keep only the
    normalised content hash of each claim (value and evidence sentence) so a re-extraction
    of the same words is refused. Paraphrases are not caught. Returns versions forgotten.
    """
    now = utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        msg = conn.execute(select(messages.c.subject_id, messages.c.text).where(
            messages.c.tenant_id == tenant_id, messages.c.message_id == message_id)
            .order_by(messages.c.revision.desc()).limit(1)).first()
        if msg is None:
            raise UnknownMessage(f"no message {message_id} in tenant {tenant_id}")
        claims = conn.execute(select(proposals.c.value_json, proposals.c.evidence_start,
                                     proposals.c.evidence_end).where(
            proposals.c.tenant_id == tenant_id, proposals.c.message_id == message_id)).all()
        hashes = set()
        for claim in claims:
            if claim.value_json is not None:
                hashes.add(normalized_content_hash(claim_text(json.loads(claim.value_json))))
            hashes.add(normalized_content_hash(msg.text[claim.evidence_start:claim.evidence_end]))
        for content_hash in hashes:
            insert_ignore(conn, suppressions, {"tenant_id": tenant_id,
                                               "subject_id": msg.subject_id,
                                               "content_hash": content_hash, "created_at": now},
                          ["tenant_id", "subject_id", "content_hash"])
        dependents = _dependents(conn, tenant_id, message_id)
        events = []
        for dep in dependents:
            _revoke_version(conn, dep, now, status=MemoryStatus.FORGOTTEN, reason="forgotten")
            events.append((Topic.MEMORY_REVOKED, f"{dep.memory_id}:{dep.version}:forgotten",
                           tenant_id, {"memory_id": dep.memory_id, "version": dep.version}))
        conn.execute(update(proposals).where(
            proposals.c.tenant_id == tenant_id, proposals.c.message_id == message_id,
            proposals.c.state == ProposalState.PENDING).values(state=ProposalState.REVOKED))
        changed = conn.execute(update(messages).where(
            messages.c.tenant_id == tenant_id, messages.c.message_id == message_id,
            messages.c.status != MessageStatus.REVOKED,
        ).values(status=MessageStatus.REVOKED, status_changed_at=now)).rowcount
        if changed:
            events.append((Topic.EVIDENCE_REVOKED, f"{tenant_id}:{message_id}:revoked", tenant_id,
                           {"message_id": message_id, "reason": "forgotten"}))
        emit_many(conn, events)
        uow.commit()
    return len(dependents)
