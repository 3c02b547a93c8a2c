"""Celery glue for the vector sink stage."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import OperationalError

from services.vector_sink.io import memory_ids_of, sync_memories
from shared.celery_app import TASK_SYNC_INDEX, app


@app.task(
    name=TASK_SYNC_INDEX,
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=8,
)
def sync_memory_versions(envelopes: list[dict[str, Any]]) -> dict[str, int]:
    """memory.committed / memory.revoked events -> vector rows for current versions only."""
    return sync_memories(memory_ids_of(envelopes))
