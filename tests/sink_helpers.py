"""The vector sink driven directly, outside the consumer runner (tests only)."""

from __future__ import annotations

from sqlalchemy import Engine

from memwarden_shared.store.db import unit_of_work
from memwarden_vector_sink.io import sync_events


def sync_memories(memory_ids: list[str], *, engine: Engine) -> dict[str, int]:
    """The sink's handler on ``memory_ids`` in a transaction of its own, with no inbox: what
    a redelivered event or a second sink racing the first does to the index."""
    with unit_of_work(engine) as uow:
        counts = sync_events(uow.conn, [{"payload": {"memory_id": m}} for m in memory_ids])
        uow.commit()
    return counts
