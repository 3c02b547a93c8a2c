"""Celery glue for the extractor stage."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import OperationalError

from services.extractor.io import extract_batch
from shared.celery_app import TASK_EXTRACT, app


@app.task(
    name=TASK_EXTRACT,
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=8,
)
def extract_turns(envelopes: list[dict[str, Any]]) -> int:
    """turn.received events -> proposal.submitted events (idempotent per event key)."""
    return extract_batch(envelopes)
