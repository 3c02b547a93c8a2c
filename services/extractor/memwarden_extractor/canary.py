"""The extractor stage's side of a staged rollout: watch the canary, then route each turn.

The monitor runs here, in the extractor's batch transaction, because routing is decided here:
a batch that finds the canary worse than stable rolls it back and is itself routed to stable.
It reads the counts the gate wrote in its own batch transactions (``observe.rollout``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Connection

from memwarden_extractor.versions import extractor_for_version, stable_version
from memwarden_shared.config import Canary, Settings, parse_canary
from memwarden_shared.contract.models import ProposalBody, Turn
from memwarden_shared.contract.registry import Registry
from memwarden_shared.observe.rollout import (
    CanaryCheck,
    active_canary,
    check_canary,
    routes_to_canary,
)

ExtractTurn = Callable[[Turn], list[ProposalBody]]


def watch(conn: Connection, settings: Settings, now: datetime) -> CanaryCheck | None:
    """Run the monitor when a canary is routed to (None when none is)."""
    canary = active_canary(conn, settings.extractor_canary)
    if canary is None:
        return None
    return _check(conn, canary, settings, now)


def _check(conn: Connection, canary: Canary, settings: Settings, now: datetime) -> CanaryCheck:
    return check_canary(
        conn,
        canary,
        stable_version(settings),
        now,
        window_seconds=settings.canary_window_seconds,
        min_decisions=settings.canary_min_decisions,
        max_increase=settings.canary_max_rate_increase,
    )


def routed(
    conn: Connection,
    settings: Settings,
    registry: Registry,
    stable: ExtractTurn,
    now: datetime,
) -> ExtractTurn:
    """``stable``, or a function sending the canary's share of sessions to the canary."""
    canary = active_canary(conn, settings.extractor_canary)
    if canary is None or _check(conn, canary, settings, now).rolled_back:
        return stable
    tried = extractor_for_version(canary.version, settings)

    def extract_turn(turn: Turn) -> list[ProposalBody]:
        if routes_to_canary(canary, turn.tenant_id, turn.session_id):
            return tried(turn, registry)
        return stable(turn)

    return extract_turn


def require_runnable(settings: Settings) -> None:
    """Refuse to start an extractor stage whose canary it cannot run (UnknownVersion)."""
    canary = parse_canary(settings.extractor_canary)
    if canary is not None:
        extractor_for_version(canary.version, settings)
        stable_version(settings)
