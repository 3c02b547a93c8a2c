"""Celery glue for the vector sink stage."""

from __future__ import annotations

from typing import Any

from memwarden_shared.delivery.celery_app import app
from memwarden_shared.delivery.consume import RetriesExhausted
from memwarden_shared.delivery.pipeline import TASK_SYNC_INDEX
from memwarden_vector_sink.io import run_sink_stage


@app.task(name=TASK_SYNC_INDEX, acks_late=True)
def sync_memory_versions(envelopes: list[dict[str, Any]]) -> int:
    """memory.committed / memory.revoked events -> vector rows for current versions only.

    Transient errors are retried inside the runner; if they persist the outbox redelivers."""
    try:
        return run_sink_stage(envelopes).processed
    except RetriesExhausted:
        return 0
