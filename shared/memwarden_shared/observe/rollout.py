"""Staged rollout of a new extractor version (issue 15 item 4).

``MEMWARDEN_EXTRACTOR_CANARY=<version>:<percent>`` sends that share of sessions, chosen by a
stable hash of (tenant, session), to ``version``; the rest stay on the stable extractor.
The monitor (:func:`check_canary`) compares the canary's REJECT, QUARANTINE and
NEEDS_CONFIRMATION rates with the stable version's over a sliding window of gate decisions
(``write_counts``, written by the gate in its batch transaction). Past the threshold it rolls
back: a hold on ``producer:<version>`` for every tenant (``state.holds``) that routing reads,
so every process returns to stable and the env setting alone cannot re-enable it, and that
the gate reads, so the canary's proposals still waiting for the gate go to review; plus an
``extractor.rolled_back`` event on each affected tenant's feed.

Pure: :func:`routes_to_canary`, :func:`compare` (the setting's shape, ``Canary`` and
``parse_canary``, is checked where settings are read, in ``config``). The rest takes a
connection inside the caller's transaction.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, func, select

from memwarden_shared.config import Canary, get_settings, parse_canary
from memwarden_shared.contract.models import Topic
from memwarden_shared.delivery.outbox import emit_many
from memwarden_shared.observe import metrics
from memwarden_shared.observe.write_counts import COUNT_COLUMNS
from memwarden_shared.state import commit_switch
from memwarden_shared.state.holds import (
    ALL_TENANTS,
    HoldReason,
    ScopeKind,
    arm,
    clear,
    holds_for,
    scope_name,
)
from memwarden_shared.store.schema import write_counts

# Hash buckets: percent with two decimals maps onto 0..9999 exactly.
BUCKETS = 10_000
# The refusal rates the monitor compares (seed 000: refusal and quarantine rates).
WATCHED = ("reject", "quarantine", "needs_confirmation")


def session_bucket(tenant_id: str, session_id: str) -> int:
    """A session's place in 0..9999: sha256, so it is the same in every process and run and
    independent of the version (raising the percent keeps the sessions already routed)."""
    digest = hashlib.sha256(f"{tenant_id}\x00{session_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % BUCKETS


def routes_to_canary(canary: Canary, tenant_id: str, session_id: str) -> bool:
    return session_bucket(tenant_id, session_id) < round(canary.percent * BUCKETS / 100)


@dataclass(frozen=True)
class VersionRates:
    """One extractor version's gate decisions in the window."""

    decisions: int = 0
    committed: int = 0
    noop: int = 0
    needs_confirmation: int = 0
    confirm_replace: int = 0
    quarantined: int = 0
    conflicted: int = 0
    rejected: int = 0

    def rate(self, name: str) -> float:
        """acceptance, quarantine, conflict, reject or needs_confirmation, as a share."""
        if not self.decisions:
            return 0.0
        count = {
            "acceptance": self.committed + self.noop,
            "quarantine": self.quarantined,
            "conflict": self.conflicted + self.confirm_replace,
            "reject": self.rejected,
            "needs_confirmation": self.needs_confirmation,
        }[name]
        return count / self.decisions

    def rates(self) -> dict[str, float]:
        names = ("acceptance", "quarantine", "conflict", "reject", "needs_confirmation")
        return {n: round(self.rate(n), 4) for n in names}


def compare(
    stable: VersionRates, canary: VersionRates, *, min_decisions: int, max_increase: float
) -> list[str]:
    """The watched rates on which the canary is worse than stable by more than
    ``max_increase`` (absolute share); [] while either side has fewer than ``min_decisions``
    decisions in the window (too few to judge)."""
    if canary.decisions < min_decisions or stable.decisions < min_decisions:
        return []
    return [n for n in WATCHED if canary.rate(n) - stable.rate(n) > max_increase]


_COLUMNS = COUNT_COLUMNS[1:]  # the decisions, without the proposal count


def window_rates(
    conn: Connection, versions: list[str], since: datetime
) -> tuple[dict[str, VersionRates], dict[str, set[str]]]:
    """Each version's decisions since ``since`` over every tenant, and the tenants that had
    any (one query)."""
    c = write_counts.c
    scopes = {scope_name(ScopeKind.PRODUCER, v): v for v in versions}
    rows = conn.execute(
        select(
            c.scope,
            c.tenant_id,
            func.sum(c.proposals).label("decisions"),
            *[func.sum(getattr(c, col)).label(col) for col in _COLUMNS],
        )
        .where(c.scope.in_(list(scopes)), c.counted_at >= since)
        .group_by(c.scope, c.tenant_id)
    )
    sums: dict[str, dict[str, int]] = {
        v: dict.fromkeys(("decisions", *_COLUMNS), 0) for v in versions
    }
    tenants: dict[str, set[str]] = {v: set() for v in versions}
    for r in rows:
        version = scopes[r.scope]
        tenants[version].add(r.tenant_id)
        for col in ("decisions", *_COLUMNS):
            sums[version][col] += int(getattr(r, col) or 0)
    return {v: VersionRates(**s) for v, s in sums.items()}, tenants


def rollback_scope(version: str) -> str:
    return scope_name(ScopeKind.PRODUCER, version)


def is_rolled_back(conn: Connection, version: str) -> bool:
    """True while a rollback of ``version`` stands (every process reads the same row)."""
    return any(
        h.active and h.reason == HoldReason.EXTRACTOR_ROLLED_BACK and h.tenant_id == ALL_TENANTS
        for h in holds_for(conn, set(), {rollback_scope(version)})
    )


def active_canary(conn: Connection, setting: str) -> Canary | None:
    """The canary to route to now: the setting's, unless it was rolled back."""
    canary = parse_canary(setting)
    if canary is None or is_rolled_back(conn, canary.version):
        return None
    return canary


@dataclass(frozen=True)
class CanaryCheck:
    stable_version: str
    canary_version: str
    stable: VersionRates
    canary: VersionRates
    tripped: list[str]
    rolled_back: bool  # this check placed the rollback

    def as_json(self) -> dict[str, Any]:
        return {
            "stable_version": self.stable_version,
            "canary_version": self.canary_version,
            "stable": {"counts": asdict(self.stable), "rates": self.stable.rates()},
            "canary": {"counts": asdict(self.canary), "rates": self.canary.rates()},
            "tripped": self.tripped,
            "rolled_back": self.rolled_back,
        }


def check_canary(
    conn: Connection,
    canary: Canary,
    stable_version: str,
    now: datetime,
    *,
    window_seconds: float,
    min_decisions: int,
    max_increase: float,
) -> CanaryCheck:
    """Compare the canary with stable over the window; roll it back when it is worse."""
    since = now - timedelta(seconds=window_seconds)
    rates, tenants = window_rates(conn, [stable_version, canary.version], since)
    for version, r in rates.items():
        for name, value in r.rates().items():
            metrics.PRODUCER_RATE.labels(metrics.producer_label(version), name).set(value)
    stable, tried = rates[stable_version], rates[canary.version]
    tripped = compare(stable, tried, min_decisions=min_decisions, max_increase=max_increase)
    rolled = False
    if tripped:
        detail = {
            "stable_version": stable_version,
            "percent": canary.percent,
            "tripped": tripped,
            "window_seconds": window_seconds,
            "stable": stable.rates() | {"decisions": stable.decisions},
            "canary": tried.rates() | {"decisions": tried.decisions},
        }
        rolled = roll_back(conn, canary.version, now, detail, tenants[canary.version])
    return CanaryCheck(stable_version, canary.version, stable, tried, tripped, rolled)


def roll_back(
    conn: Connection, version: str, now: datetime, detail: dict[str, Any], tenants: set[str]
) -> bool:
    """Hold ``version`` for every tenant and announce it on each affected tenant's feed;
    False when it was already rolled back (a concurrent check announced it)."""
    if not arm(
        conn, ALL_TENANTS, rollback_scope(version), HoldReason.EXTRACTOR_ROLLED_BACK, detail, now
    ):
        return False
    metrics.CANARY_ROLLBACKS.inc()
    # hard rollback (seed 000): the tenants the canary wrote for stop committing until an
    # admin has looked, whatever else the rollback of the version does
    scope = get_settings().commit_switch_scope
    for tenant in sorted(tenants):
        commit_switch.trip(
            conn,
            tenant,
            commit_switch.Trigger.CANARY_REFUSAL_JUMP,
            {"extractor_version": version, "tripped": detail.get("tripped", [])},
            scope=scope,
            now=now,
        )
    metrics.HOLDS_PLACED.labels(
        HoldReason.EXTRACTOR_ROLLED_BACK.value, ScopeKind.PRODUCER.value
    ).inc()
    emit_many(
        conn,
        [
            (
                Topic.EXTRACTOR_ROLLED_BACK,
                f"{version}:{now.isoformat()}",
                tenant,
                {"extractor_version": version, "reason": "canary_rates_exceeded", **detail},
            )
            for tenant in sorted(tenants)
        ],
    )
    return True


def clear_rollback(conn: Connection, version: str, *, by: str, now: datetime) -> bool:
    """Lift a rollback: routing follows the setting again and the gate stops holding the
    version's proposals. False when none stood."""
    if clear(conn, ALL_TENANTS, rollback_scope(version), by=by, now=now) is None:
        return False
    emit_many(
        conn,
        [
            (
                Topic.EXTRACTOR_ROLLBACK_CLEARED,
                f"{version}:cleared:{now.isoformat()}",
                ALL_TENANTS,
                {"extractor_version": version, "cleared_by": by},
            )
        ],
    )
    return True
