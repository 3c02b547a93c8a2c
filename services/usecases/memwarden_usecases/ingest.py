"""Ingest: store conversation turns as evidence (and, unless told not to, queue them for the
extractor). Idempotent by message id."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine

from memwarden_ingest.io import IngestRefused, IngestResult, ingest_turns
from memwarden_ingest.stream import BatchStored, FileIngest, Validated
from memwarden_ingest.stream import ingest_file as _ingest_file
from memwarden_shared.contract.models import Turn
from memwarden_shared.delivery.queues import broker_reachable

__all__ = [
    "BatchStored",
    "FileIngest",
    "IngestRefused",
    "IngestResult",
    "Validated",
    "broker_reachable",
    "ingest",
    "ingest_file",
]

DEFAULT_MAX_TEXT_CHARS = 20_000


def ingest(
    engine: Engine,
    turns: list[Turn],
    *,
    extract: bool = True,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
) -> IngestResult:
    """Store a batch in one transaction; :class:`IngestRefused` when a message id is taken by
    other content (nothing is stored then)."""
    return ingest_turns(turns, engine=engine, extract=extract, max_text_chars=max_text_chars)


def ingest_file(
    engine: Engine,
    path: Path,
    *,
    default_tenant: str | None,
    extract: bool,
    max_text_chars: int,
    batch_size: int,
    skip_bad: bool,
    after_batch: Callable[[BatchStored], None] | None = None,
    from_line: int = 1,
    on_validated: Callable[[Validated], None] | None = None,
) -> FileIngest:
    """Stream a JSONL file of turns into the store, ``batch_size`` turns a transaction,
    from line ``from_line`` (a resumed ingest)."""
    return _ingest_file(
        path,
        engine=engine,
        default_tenant=default_tenant,
        extract=extract,
        max_text_chars=max_text_chars,
        batch_size=batch_size,
        skip_bad=skip_bad,
        after_batch=after_batch,
        from_line=from_line,
        on_validated=on_validated,
    )
