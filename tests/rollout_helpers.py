"""Traffic shared by the canary rollout tests (in-process and with worker processes)."""

from __future__ import annotations

from sqlalchemy import Engine

from memwarden_extractor import versions
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from tests.conftest import turn_dict

TEXT = "I prefer pnpm for all my JavaScript projects."


def ingest_round(engine: Engine, tenant: str, sessions: list[str], minute: int) -> None:
    """One turn of TEXT per session (its own subject), said at 09:``minute`` UTC."""
    turns = [
        Turn.model_validate(
            turn_dict(
                tenant,
                TEXT,
                message_id=f"m-{s}-{minute}",
                subject=f"u-{s}",
                session=s,
                created_at=f"2026-05-01T09:{minute:02d}:00Z",
            )
        )
        for s in sessions
    ]
    ingest_turns(turns, engine=engine)


def unregister_version(version: str) -> None:
    """Undo ``versions.register_version`` (a test's bad extractor must not outlive it)."""
    versions._registered.pop(version, None)
