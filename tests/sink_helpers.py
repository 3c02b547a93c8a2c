"""The vector sink's handler driven directly, for tests of its convergence."""

from __future__ import annotations

from sqlalchemy import Engine

from memwarden_shared.store.db import unit_of_work
from memwarden_vector_sink.io import sync_events


def sync_memories(memory_ids: list[str], *, engine: Engine) -> dict[str, int]:
    """Run the sink's handler on ``memory_ids`` in a transaction of its own, outside the
    consumer runner (no inbox entry, no outbox row): what a late or concurrent sink does."""
    with unit_of_work(engine) as uow:
        counts = sync_events(uow.conn, [{"payload": {"memory_id": m}} for m in memory_ids])
        uow.commit()
    return counts
