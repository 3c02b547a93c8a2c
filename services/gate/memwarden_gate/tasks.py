"""Celery glue for the gate stage."""

from __future__ import annotations

from typing import Any

from memwarden_gate.io import run_gate_stage
from memwarden_shared.delivery.celery_app import app
from memwarden_shared.delivery.consume import RetriesExhausted
from memwarden_shared.delivery.pipeline import TASK_DECIDE


@app.task(name=TASK_DECIDE, acks_late=True)
def decide_proposals(envelopes: list[dict[str, Any]]) -> int:
    """proposal.submitted events (or raw proposals sent with send_task) -> receipts.

    Idempotent by event key and proposal id: a redelivered event is skipped, a replayed
    proposal returns its stored receipt and writes nothing. Transient errors are retried
    inside the runner; if they persist the outbox redelivers the events. A proposal that
    fails for any other reason becomes a dead letter; the rest of the batch commits."""
    try:
        return run_gate_stage(envelopes).processed
    except RetriesExhausted:
        return 0
