"""Celery glue for the revalidation stage."""

from __future__ import annotations

from typing import Any

from memwarden_revalidation.io import revalidate_events
from memwarden_shared.delivery.celery_app import app
from memwarden_shared.delivery.consume import RetriesExhausted, consume
from memwarden_shared.delivery.pipeline import TASK_REVALIDATE, Stage


@app.task(name=TASK_REVALIDATE, acks_late=True)
def revalidate_evidence(envelopes: list[dict[str, Any]]) -> int:
    """evidence.revoked / evidence.superseded events -> memory versions out of recall and
    memory.revoked events. Transient errors are retried inside the runner; if they persist
    the outbox redelivers the events."""
    try:
        return sum(consume(Stage.REVALIDATION, envelopes, revalidate_events).results)
    except RetriesExhausted:
        return 0
