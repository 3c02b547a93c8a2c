"""Celery glue for the revalidation stage."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import OperationalError

from services.revalidation.io import revalidate
from shared.celery_app import TASK_REVALIDATE, app


@app.task(
    name=TASK_REVALIDATE,
    acks_late=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=8,
)
def revalidate_evidence(envelopes: list[dict[str, Any]]) -> int:
    """evidence.revoked events -> memory versions REVOKED + memory.revoked events."""
    return revalidate(envelopes)
