"""Work that looks done but is not (issue 9, item 6): checks the audit, ``outbox status``
and the relay's gauges share."""

from __future__ import annotations

from sqlalchemy import Connection, and_, select

from memwarden_shared.store.schema import current_memories, vector_index


def unindexed_versions(
    conn: Connection, tenant_id: str | None = None, limit: int = 1000
) -> list[tuple[str, int]]:
    """Current committed versions with no vector row for that version: the vector sink
    has not (yet) indexed them. Within a redelivery deadline this is normal lag."""
    stmt = (
        select(current_memories.c.memory_id, current_memories.c.version)
        .outerjoin(
            vector_index,
            and_(
                vector_index.c.memory_id == current_memories.c.memory_id,
                vector_index.c.version == current_memories.c.version,
            ),
        )
        .where(vector_index.c.memory_id.is_(None))
        .limit(limit)
    )
    if tenant_id is not None:
        stmt = stmt.where(current_memories.c.tenant_id == tenant_id)
    return [(r.memory_id, int(r.version)) for r in conn.execute(stmt)]
