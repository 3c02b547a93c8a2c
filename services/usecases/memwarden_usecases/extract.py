"""Extraction on demand: run the built-in extractor again over stored messages, and run it
under another version for a while (an evaluation compares versions; the version is part of
every proposal id, so each version proposes anew)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine

from memwarden_extractor.io import extractor_version_scope, reextract_messages
from memwarden_shared.observe.anomaly import paused

__all__ = ["as_labelled_burst", "reextract"]


def reextract(engine: Engine, tenant_id: str, message_ids: list[str]) -> int:
    """Extract again from stored messages, bypassing the inbox; unchanged candidates replay
    their stored receipts and write nothing. Returns how many proposals were sent."""
    return reextract_messages(tenant_id, message_ids, engine=engine)


@contextmanager
def as_labelled_burst(version: str | None) -> Iterator[None]:
    """Labelled cases played back to back: the extractor under ``version``, and no write-rate
    counting or holds (a burst by design, whose decisions must not depend on its speed)."""
    with extractor_version_scope(version), paused():
        yield
