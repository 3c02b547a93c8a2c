"""Celery glue for the gate stage."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import OperationalError

from services.gate.io import decide_batch
from shared.celery_app import TASK_DECIDE, app


@app.task(
    name=TASK_DECIDE,
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=8,
)
def decide_proposals(envelopes: list[dict[str, Any]]) -> int:
    """proposal.submitted events (or raw proposals sent with send_task) -> receipts.

    Idempotent by proposal id: a redelivered proposal returns its stored receipt and writes
    nothing. Only transient database errors are retried; bad proposals are receipts.
    """
    raw = [
        e["payload"] if isinstance(e, dict) and "payload" in e and "topic" in e else e
        for e in envelopes
    ]
    return len(decide_batch(raw))
