"""What owners and backends ask for: revoke a message, edit it (supersede), reject a committed
memory, forget. Each is one transaction that changes authoritative state and emits the event
the revalidation stage cascades from; recall honours the change the moment it commits."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, Row, select, update

from memwarden_revalidation import store
from memwarden_shared.contract.canonical import claim_text, normalized_content_hash, sha256_hex
from memwarden_shared.contract.models import MemoryStatus, MessageStatus, Topic
from memwarden_shared.delivery.outbox import emit, order_seq
from memwarden_shared.detect.secret_mask import mask_secrets
from memwarden_shared.state import memory_state
from memwarden_shared.state.candidates import (
    candidate_values,
    erase_candidates_for_message,
    wait_out_the_gate,
)
from memwarden_shared.state.erasure import forget_text
from memwarden_shared.state.message_locks import hold_message
from memwarden_shared.store.db import as_utc, get_engine, unit_of_work, utcnow
from memwarden_shared.store.dialect import insert_ignore
from memwarden_shared.store.schema import current_memories, messages, proposals, suppressions


class UnknownMessage(LookupError):
    pass


class UnknownMemory(LookupError):
    pass


class Refused(ValueError):
    pass


def _latest(conn: Connection, tenant_id: str, message_id: str) -> Row[Any]:
    row = conn.execute(
        select(messages)
        .where(messages.c.tenant_id == tenant_id, messages.c.message_id == message_id)
        .order_by(messages.c.revision.desc())
        .limit(1)
    ).first()
    if row is None:
        raise UnknownMessage(f"no message {message_id} in tenant {tenant_id}")
    return row


def revoke_message(
    tenant_id: str, message_id: str, *, engine: Engine | None = None, reason: str = "revoked"
) -> bool:
    """Mark every revision of a message revoked and emit ``evidence.revoked``.

    Returns False when it was already revoked (nothing is emitted twice)."""
    now = utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        _latest(uow.conn, tenant_id, message_id)
        # after a gate deciding one of the message's candidates, before any that comes later
        wait_out_the_gate(uow.conn, tenant_id, message_id)
        hold_message(uow.conn, tenant_id, message_id)  # and after one deciding a posted body
        changed = _mark_revoked(uow.conn, tenant_id, message_id, now, reason)
        uow.commit()
    return changed


def _mark_revoked(
    conn: Connection, tenant_id: str, message_id: str, now: datetime, reason: str
) -> bool:
    changed = conn.execute(
        update(messages)
        .where(
            messages.c.tenant_id == tenant_id,
            messages.c.message_id == message_id,
            messages.c.status != MessageStatus.REVOKED,
        )
        .values(status=MessageStatus.REVOKED, status_changed_at=now)
    ).rowcount
    if changed:
        emit(
            conn,
            Topic.EVIDENCE_REVOKED,
            f"{tenant_id}:{message_id}:revoked",
            tenant_id,
            {"message_id": message_id, "reason": reason},
        )
    return bool(changed)


def supersede_message(
    tenant_id: str,
    message_id: str,
    new_text: str,
    *,
    engine: Engine | None = None,
    max_text_chars: int = 20_000,
) -> int:
    """Store an edited message as a new revision; returns its revision number.

    The old revision stops supporting anything at once. The revalidation stage restores a
    memory only where the new text still says the same sentence (exact successor); the
    extractor sees the new revision as a new turn.
    """
    if not new_text.strip():
        raise Refused("a revision needs text")
    if len(new_text) > max_text_chars:
        raise Refused(f"revision has {len(new_text)} characters, limit {max_text_chars}")
    now = utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        hold_message(conn, tenant_id, message_id)  # a gate reads the revision we leave
        old = _latest(conn, tenant_id, message_id)
        if old.status == MessageStatus.REVOKED:
            raise Refused(f"message {message_id} is revoked; a revoked message is not edited")
        masked = mask_secrets(new_text)  # the edit is stored masked, like any turn
        if old.text_sha256 == sha256_hex(masked.text):
            return int(old.revision)
        revision = int(old.revision) + 1
        conn.execute(
            messages.insert().values(
                tenant_id=tenant_id,
                message_id=message_id,
                revision=revision,
                subject_id=old.subject_id,
                session_id=old.session_id,
                role=old.role,
                source=old.source,
                author_id=old.author_id,
                text=masked.text,
                masked_spans=masked.spans_json(),
                secret_unlocated=masked.unlocated,
                text_sha256=sha256_hex(masked.text),
                created_at=old.created_at,
                utc_offset_minutes=old.utc_offset_minutes,
                received_at=now,
                status=MessageStatus.ACTIVE,
            )
        )
        conn.execute(
            update(messages)
            .where(
                messages.c.tenant_id == tenant_id,
                messages.c.message_id == message_id,
                messages.c.revision == old.revision,
            )
            .values(status=MessageStatus.SUPERSEDED, status_changed_at=now)
        )
        emit(
            conn,
            Topic.EVIDENCE_SUPERSEDED,
            f"{tenant_id}:{message_id}:{revision}:superseded",
            tenant_id,
            {"message_id": message_id, "revision": revision - 1, "new_revision": revision},
        )
        emit(
            conn,
            Topic.TURN_RECEIVED,
            f"{tenant_id}:{message_id}:{revision}",
            tenant_id,
            {"message_id": message_id, "revision": revision, "subject_id": old.subject_id},
            order=(f"{tenant_id}:{old.subject_id}", order_seq(as_utc(old.created_at))),
        )
        uow.commit()
    return revision


def reject_memory(tenant_id: str, memory_id: str, *, engine: Engine | None = None) -> int:
    """The owner rejects a committed memory: its current version leaves recall at once."""
    now = utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        version = uow.conn.execute(
            select(current_memories.c.version).where(
                current_memories.c.tenant_id == tenant_id, current_memories.c.memory_id == memory_id
            )
        ).scalar()
        if version is None:
            raise UnknownMemory(f"no recallable memory {memory_id} in tenant {tenant_id}")
        memory_state.take_out_of_recall(
            uow.conn,
            tenant_id,
            memory_id,
            int(version),
            now,
            status=MemoryStatus.REVOKED,
            reason="owner_rejected",
        )
        uow.commit()
    return int(version)


def forget_message(tenant_id: str, message_id: str, *, engine: Engine | None = None) -> int:
    """Right to be forgotten for everything derived from one message (SPEC §9, seed 004).

    In one transaction: suppression rows keep only the normalised content hash of each claim
    (value and evidence sentence); dependent versions are FORGOTTEN, their values erased from
    history and projection; pending candidates are withdrawn and their values erased; the
    message is revoked, the text of every revision erased (its sha256 stays) and the claim
    scrubbed from outbox payloads. Paraphrases are not caught. Returns how many versions were
    forgotten.
    """
    now = utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        msg = _latest(conn, tenant_id, message_id)
        # The candidates' values first (a gate may hold them, taken but not committed), then
        # their erasure, which waits for such a gate: every read below sees its decision.
        hashes = {
            normalized_content_hash(claim_text(value))
            for value in candidate_values(conn, tenant_id, message_id)
        }
        erase_candidates_for_message(conn, tenant_id, message_id)
        # a gate deciding a posted body (no candidate row) commits before what follows reads
        hold_message(conn, tenant_id, message_id)
        claims = conn.execute(
            select(
                proposals.c.value_json,
                proposals.c.evidence_start,
                proposals.c.evidence_end,
                proposals.c.message_revision,
            ).where(proposals.c.tenant_id == tenant_id, proposals.c.message_id == message_id)
        ).all()
        texts = {
            r.revision: r.text
            for r in conn.execute(
                select(messages.c.revision, messages.c.text).where(
                    messages.c.tenant_id == tenant_id, messages.c.message_id == message_id
                )
            )
        }
        for claim in claims:
            if claim.value_json is not None:
                hashes.add(normalized_content_hash(claim_text(json.loads(claim.value_json))))
            source = texts.get(claim.message_revision, "")
            hashes.add(normalized_content_hash(source[claim.evidence_start : claim.evidence_end]))
        for content_hash in hashes:
            insert_ignore(
                conn,
                suppressions,
                {
                    "tenant_id": tenant_id,
                    "subject_id": msg.subject_id,
                    "content_hash": content_hash,
                    "created_at": now,
                },
                ["tenant_id", "subject_id", "content_hash"],
            )
        deps = store.dependents(conn, tenant_id, message_id)
        memory_state.lock_memories(conn, [d.memory_id for d in deps])
        for dep in deps:
            memory_state.take_out_of_recall(
                conn,
                tenant_id,
                dep.memory_id,
                dep.version,
                now,
                status=MemoryStatus.FORGOTTEN,
                reason="forgotten",
            )
            memory_state.erase_value(conn, dep.memory_id, dep.version)
        memory_state.withdraw_pending(conn, tenant_id, message_id)
        memory_state.erase_proposal_values(conn, tenant_id, message_id)
        _mark_revoked(conn, tenant_id, message_id, now, "forgotten")
        forget_text(conn, tenant_id, message_id, hashes, now)
        uow.commit()
    return len(deps)
