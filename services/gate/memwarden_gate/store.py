"""Reads the review path needs: the evidence message and the committed current value."""

from __future__ import annotations

import json

from sqlalchemy import Connection, select

from memwarden_gate.checks import StoredMessage
from memwarden_gate.decide import CurrentFact
from memwarden_shared.detect.secret_mask import spans_from_json
from memwarden_shared.store.db import as_utc, in_offset
from memwarden_shared.store.schema import current_memories, memory_versions, messages


def load_message(conn: Connection, tenant_id: str, message_id: str) -> StoredMessage | None:
    """The latest revision of a message, looked up in the caller's tenant only."""
    row = conn.execute(
        select(messages)
        .where(messages.c.tenant_id == tenant_id, messages.c.message_id == message_id)
        .order_by(messages.c.revision.desc())
        .limit(1)
    ).first()
    if row is None:
        return None
    return StoredMessage(
        tenant_id=row.tenant_id,
        message_id=row.message_id,
        revision=row.revision,
        subject_id=row.subject_id,
        author_id=row.author_id,
        role=row.role,
        source=row.source,
        text=row.text,
        status=row.status,
        created_at=in_offset(row.created_at, row.utc_offset_minutes),
        session_id=row.session_id,
        masked_spans=spans_from_json(row.masked_spans),
        secret_unlocated=bool(row.secret_unlocated),
    )


def load_current(conn: Connection, memory_id: str) -> CurrentFact | None:
    """The committed current version of a memory, if one is recallable at all."""
    row = conn.execute(
        select(
            current_memories.c.version, current_memories.c.value_json, memory_versions.c.valid_from
        )
        .join(
            memory_versions,
            (memory_versions.c.memory_id == current_memories.c.memory_id)
            & (memory_versions.c.version == current_memories.c.version),
        )
        .where(current_memories.c.memory_id == memory_id)
    ).first()
    if row is None:
        return None
    return CurrentFact(row.version, json.loads(row.value_json), as_utc(row.valid_from))
