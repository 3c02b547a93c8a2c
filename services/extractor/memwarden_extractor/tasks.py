"""Celery glue for the extractor stage."""

from __future__ import annotations

from typing import Any

from memwarden_extractor.io import extract_events
from memwarden_shared.delivery.celery_app import app
from memwarden_shared.delivery.consume import RetriesExhausted, consume
from memwarden_shared.delivery.pipeline import TASK_EXTRACT, Stage


@app.task(name=TASK_EXTRACT, acks_late=True)
def extract_turns(envelopes: list[dict[str, Any]]) -> int:
    """turn.received events -> proposal.submitted events (idempotent per event key).

    Transient errors are retried inside ``consume``; if they persist the batch is given
    back to the outbox, which redelivers it (no broker retry, no lost event)."""
    try:
        return sum(consume(Stage.EXTRACTOR, envelopes, extract_events).results)
    except RetriesExhausted:
        return 0
