"""Drain: run every queued event (and the events it causes) in this process.

The doors call this one function; how the events are carried in process is the delivery
layer's business (``pipeline.drain``), so a change there changes nothing here.
"""

from __future__ import annotations

from sqlalchemy import Engine

from memwarden_shared.config import Settings
from memwarden_usecases import pipeline


def drain(engine: Engine) -> int:
    """Process every pending event; returns how many."""
    return pipeline.drain(engine)


def drain_if_embedded(engine: Engine, settings: Settings) -> int:
    """Embedded mode (no broker): settle the write before answering; otherwise the relay and
    the workers do it, and nothing runs here."""
    return drain(engine) if settings.embedded else 0
