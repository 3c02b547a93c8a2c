"""Vector sink I/O: reconcile the vector projection with the current committed versions.

Each event only names a memory; the sink re-reads the authoritative state, so duplicated,
reordered or late events all converge: a current committed version is indexed, anything
else is dropped.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, delete, select

from shared.config import get_settings
from shared.db import get_engine, unit_of_work, utcnow
from shared.embedding import default_embedder, memory_text, to_bytes
from shared.schema import current_memories, vector_index


def sync_memories(memory_ids: list[str], *, engine: Engine | None = None) -> dict[str, int]:
    """Index or drop each memory so the index mirrors ``current_memories``."""
    embedder = default_embedder(get_settings().embedding_dim)
    ids = sorted(set(memory_ids))
    counts = {"indexed": 0, "dropped": 0, "unchanged": 0}
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        current = {
            r.memory_id: r
            for r in conn.execute(
                select(current_memories).where(current_memories.c.memory_id.in_(ids))
            )
        }
        indexed = {
            r.memory_id: (r.version, r.embedder)
            for r in conn.execute(
                select(
                    vector_index.c.memory_id, vector_index.c.version, vector_index.c.embedder
                ).where(vector_index.c.memory_id.in_(ids))
            )
        }
        stale = [
            m
            for m in ids
            if m in indexed
            and (m not in current or indexed[m] != (current[m].version, embedder.name))
        ]
        if stale:
            conn.execute(delete(vector_index).where(vector_index.c.memory_id.in_(stale)))
        todo = [current[m] for m in ids if m in current and (m not in indexed or m in stale)]
        vectors = embedder.embed([memory_text(r.normalized_key, r.value_json) for r in todo])
        now = utcnow()
        if todo:
            conn.execute(
                vector_index.insert(),
                [
                    {
                        "memory_id": r.memory_id,
                        "version": r.version,
                        "tenant_id": r.tenant_id,
                        "subject_id": r.subject_id,
                        "embedder": embedder.name,
                        "embedding": to_bytes(vec),
                        "indexed_at": now,
                    }
                    for r, vec in zip(todo, vectors, strict=True)
                ],
            )
        counts["indexed"] = len(todo)
        counts["dropped"] = len([m for m in stale if m not in current])
        counts["unchanged"] = len(ids) - counts["indexed"] - counts["dropped"]
        uow.commit()
    return counts


def memory_ids_of(envelopes: list[dict[str, Any]]) -> list[str]:
    return [e["payload"]["memory_id"] for e in envelopes]
