"""Reads the gate needs: the evidence message, the committed current value, suppressions."""

from __future__ import annotations

import json

from sqlalchemy import Connection, select

from services.gate.checks import StoredMessage
from services.gate.decide import CurrentFact
from shared.canonical import normalized_content_hash
from shared.db import as_utc, in_offset
from shared.schema import current_memories, fact_keys, memory_versions, messages, suppressions


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
    )


def seen_version(conn: Connection, key: dict[str, str]) -> int:
    """The fact key's version without a lock: the snapshot a compare-and-set is made against."""
    version = conn.execute(
        select(fact_keys.c.current_version).where(
            *(fact_keys.c[name] == value for name, value in key.items())
        )
    ).scalar()
    return int(version or 0)


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
    return CurrentFact(row.version, json.loads(row.value_json), as_utc(row.valid_from))  # type: ignore[arg-type]


def is_suppressed(conn: Connection, tenant_id: str, subject_id: str, texts: list[str]) -> bool:
    hashes = {normalized_content_hash(t) for t in texts if t}
    if not hashes:
        return False
    return (
        conn.execute(
            select(suppressions.c.content_hash)
            .where(
                suppressions.c.tenant_id == tenant_id,
                suppressions.c.subject_id == subject_id,
                suppressions.c.content_hash.in_(hashes),
            )
            .limit(1)
        ).first()
        is not None
    )
