"""Write-rate anomaly detection (memory poisoning, issue 15 item 5).

A subject, session or extractor version (in a tenant) whose proposal or commit rate jumps
far above its own baseline is *held*: its new proposals go to review (NEEDS_CONFIRMATION,
receipt reason ``write_rate_anomaly``) instead of auto-commit, and a ``write_rate.held``
event goes on the feed. An owner or reviewer clears the hold (``memwarden holds clear``).

The gate calls two functions per batch, each a fixed number of statements whatever the
batch size: :func:`screen` before deciding (reads the holds and the windowed counts of the
batch's scopes, and trips scopes whose *proposal* rate, this batch included, is anomalous),
and :func:`record` after (adds this batch's counts, trips scopes whose *commit* rate is
anomalous, so later batches go to review, and places the holds). Counts are kept per scope,
time bucket and gate process (``shared.write_counts``), so concurrent gate processes never
wait on a shared counter row and the sums stay bounded whatever the traffic.

The rule (:func:`tripped`, pure): the window holds at least ``minimum`` events *and* its
rate exceeds ``factor`` times the rate of the baseline period before it. A scope with no
history has a baseline of zero, so its first ``minimum`` events in one window trip it.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, delete, select

from memwarden_shared.config import Settings
from memwarden_shared.contract.models import Decision, Topic
from memwarden_shared.delivery.outbox import emit_many
from memwarden_shared.observe import metrics
from memwarden_shared.observe.write_counts import (
    BUCKETS_PER_WINDOW,
    ScopeReads,
    add_counts,
    bucket_start,
    read_scopes,
    window_edges,
)
from memwarden_shared.state.holds import (
    ALL_TENANTS,
    Hold,
    HoldReason,
    ScopeKind,
    arm,
    clear,
    holds_for,
    scope_name,
)
from memwarden_shared.store.dialect import pairs_in
from memwarden_shared.store.schema import proposals, write_counts

# the write_counts column each gate decision is counted in
DECISION_COLUMN = {
    Decision.COMMIT: "committed",
    Decision.NOOP: "noop",
    Decision.NEEDS_CONFIRMATION: "needs_confirmation",
    Decision.CONFIRM_REPLACE: "confirm_replace",
    Decision.QUARANTINE: "quarantined",
    Decision.CONFLICT: "conflicted",
    Decision.REJECT: "rejected",
}
PRUNE_EVERY_SECONDS = 60.0
_paused: ContextVar[bool] = ContextVar("memwarden_rate_watch_paused", default=False)


@contextmanager
def paused() -> Iterator[None]:
    """Neither count nor hold in this context: an eval run plays labelled cases back to back,
    a burst by design, whose decisions must not depend on how fast it ran."""
    token = _paused.set(True)
    try:
        yield
    finally:
        _paused.reset(token)


def is_paused() -> bool:
    return _paused.get()


_next_prune = 0.0  # per process: pruning is housekeeping, once a minute is plenty


@dataclass(frozen=True)
class Write:
    """One proposal the gate is about to decide, as the detector sees it."""

    tenant_id: str
    subject_id: str
    session_id: str | None  # None when its message is not stored (the gate refuses it)
    extractor_version: str
    proposal_id: str = ""

    def scopes(self) -> list[str]:
        out = [
            scope_name(ScopeKind.SUBJECT, self.subject_id),
            scope_name(ScopeKind.PRODUCER, self.extractor_version),
        ]
        if self.session_id is not None:
            out.append(scope_name(ScopeKind.SESSION, self.session_id))
        return out


@dataclass(frozen=True)
class Thresholds:
    window: float
    baseline: float
    factor: float
    minimum: dict[ScopeKind, int]
    enabled: bool = True

    @classmethod
    def from_settings(cls, s: Settings) -> Thresholds:
        return cls(
            window=s.anomaly_window_seconds,
            baseline=max(s.anomaly_baseline_seconds, s.anomaly_window_seconds),
            factor=s.anomaly_factor,
            minimum={
                ScopeKind.SUBJECT: s.anomaly_min_subject,
                ScopeKind.SESSION: s.anomaly_min_session,
                ScopeKind.PRODUCER: s.anomaly_min_producer,
            },
            enabled=s.anomaly_enabled,
        )


@dataclass(frozen=True)
class Rate:
    """Events of one scope: in the recent window, and in the baseline period before it."""

    recent: int = 0
    older: int = 0


def tripped(rate: Rate, batch: int, minimum: int, th: Thresholds) -> bool:
    """True when the window (``rate.recent`` plus this ``batch``) holds at least ``minimum``
    events and its rate exceeds ``th.factor`` times the baseline rate."""
    recent = rate.recent + batch
    if recent < minimum:
        return False
    span = th.baseline - th.window
    baseline_rate = rate.older / span if span > 0 else 0.0
    return recent / th.window > th.factor * baseline_rate


def _kind(scope: str) -> ScopeKind:
    return ScopeKind(scope.partition(":")[0])


@dataclass
class Guard:
    """One gate batch's view of the holds: what :func:`screen` found, then what
    :func:`record` adds."""

    now: datetime
    th: Thresholds
    holds: dict[tuple[str, str], Hold] = field(default_factory=dict)
    proposal_rates: dict[tuple[str, str], Rate] = field(default_factory=dict)
    commit_rates: dict[tuple[str, str], Rate] = field(default_factory=dict)
    # scopes tripped by this batch, with what tripped them, not yet placed
    trips: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    # the batch's proposals by position (the gate's bookkeeping)
    writes: dict[int, Write] = field(default_factory=dict)

    def reasons(self, w: Write) -> list[str]:
        """The review reasons the holds give a proposal ([] when none applies)."""
        out = []
        for scope in w.scopes():
            for tenant in (w.tenant_id, ALL_TENANTS):
                key = (tenant, scope)
                hold = self.holds.get(key)
                if hold is not None and hold.active:
                    out.append(hold.reason)
                elif key in self.trips:
                    out.append(HoldReason.WRITE_RATE_ANOMALY.value)
        return list(dict.fromkeys(out))

    def _may_trip(self, key: tuple[str, str]) -> bool:
        hold = self.holds.get(key)
        if hold is None:
            return key not in self.trips
        if hold.active:
            return False
        # Cleared within the window: the burst the owner accepted is still in it.
        return hold.cleared_at is None or hold.cleared_at <= self.now - timedelta(
            seconds=self.th.window
        )

    def _trip(self, key: tuple[str, str], metric: str, rate: Rate, batch: int) -> None:
        self.trips[key] = {
            "metric": metric,
            "window_seconds": self.th.window,
            "recent": rate.recent + batch,
            "baseline": rate.older,
            "baseline_seconds": self.th.baseline - self.th.window,
            "factor": self.th.factor,
        }


@dataclass(frozen=True)
class Proposed:
    """A proposal as the gate knows it before reading the store: its session is read with
    the holds and counts (:func:`screen`)."""

    tenant_id: str
    subject_id: str
    message_id: str
    extractor_version: str
    proposal_id: str


def screen(
    conn: Connection, proposed: list[Proposed], now: datetime, th: Thresholds
) -> tuple[Guard, list[Write]]:
    """Before a batch is decided: its scopes' holds, and the scopes whose proposal rate with
    this batch is anomalous (their proposals in this batch already go to review); with the
    batch as :class:`Write`s, in order. One round trip for the reads (``read_scopes``)."""
    guard = Guard(now, th)
    if not proposed:
        return guard, []
    window = window_edges(now, th.window, th.baseline) if th.enabled else None
    messages = {(p.tenant_id, p.message_id) for p in proposed}
    reads = read_scopes(conn, messages, _named_scopes(proposed), window=window)
    writes = [_write(p, reads.sessions.get((p.tenant_id, p.message_id))) for p in proposed]
    keys = {(w.tenant_id, s) for w in writes for s in w.scopes()}
    scopes = {s for _, s in keys}
    guard.holds = {(h.tenant_id, h.scope): h for h in reads.holds if h.scope in scopes}
    if th.enabled:
        _take_rates(guard, reads, keys)
        _trip_on_proposals(conn, guard, writes)
    return guard, writes


def _named_scopes(proposed: list[Proposed]) -> set[str]:
    """The scopes a batch names before its sessions are read: subjects and producers."""
    return {
        scope_name(kind, key)
        for p in proposed
        for kind, key in (
            (ScopeKind.SUBJECT, p.subject_id),
            (ScopeKind.PRODUCER, p.extractor_version),
        )
    }


def _write(p: Proposed, session_id: str | None) -> Write:
    return Write(p.tenant_id, p.subject_id, session_id, p.extractor_version, p.proposal_id)


def _take_rates(guard: Guard, reads: ScopeReads, keys: set[tuple[str, str]]) -> None:
    for key, (p_recent, p_older, c_recent, c_older) in reads.counts.items():
        if key in keys:  # the lists match a superset
            guard.proposal_rates[key] = Rate(p_recent, p_older)
            guard.commit_rates[key] = Rate(c_recent, c_older)


def _trip_on_proposals(conn: Connection, guard: Guard, writes: list[Write]) -> None:
    """Trip the scopes whose proposal rate with this batch is anomalous."""
    if not _proposal_trips(guard, writes):
        return
    # A redelivered batch is counted already: judge only proposals not yet decided. Read
    # only when something would trip, so the usual batch pays nothing for it.
    decided = _decided(conn, {(w.tenant_id, w.proposal_id) for w in writes})
    guard.trips = {}
    _proposal_trips(guard, [w for w in writes if (w.tenant_id, w.proposal_id) not in decided])


def _proposal_trips(guard: Guard, writes: list[Write]) -> bool:
    batch = Counter((w.tenant_id, s) for w in writes for s in w.scopes())
    for key, n in sorted(batch.items()):
        rate = guard.proposal_rates.get(key, Rate())
        if guard._may_trip(key) and tripped(rate, n, guard.th.minimum[_kind(key[1])], guard.th):
            guard._trip(key, "proposals", rate, n)
    return bool(guard.trips)


def _decided(conn: Connection, pids: set[tuple[str, str]]) -> set[tuple[str, str]]:
    rows = conn.execute(
        select(proposals.c.tenant_id, proposals.c.proposal_id).where(
            pairs_in(conn, proposals.c.tenant_id, proposals.c.proposal_id, pids)
        )
    )
    return {(r.tenant_id, r.proposal_id) for r in rows}


def record(
    conn: Connection, guard: Guard, decided: list[tuple[Write, Decision]], now: datetime
) -> list[tuple[str, str]]:
    """After a batch is decided: append its counts, trip scopes whose commit rate is
    anomalous, place the holds and announce the new ones; returns the holds placed."""
    tallies: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for w, decision in decided:
        metrics.record_producer_decision(w.extractor_version, decision.value)
        for scope in w.scopes():
            tally = tallies[(w.tenant_id, scope)]
            tally["proposals"] += 1
            tally[DECISION_COLUMN[decision]] += 1
    add_counts(conn, bucket_start(now, guard.th.window / BUCKETS_PER_WINDOW), tallies)
    if guard.th.enabled:
        for key, tally in sorted(tallies.items()):
            rate = guard.commit_rates.get(key, Rate())
            minimum = guard.th.minimum[_kind(key[1])]
            n = tally["committed"]
            if n and guard._may_trip(key) and tripped(rate, n, minimum, guard.th):
                guard._trip(key, "commits", rate, n)
    placed = _place(conn, guard, now)
    _prune(conn, now, guard.th)
    return placed


def _place(conn: Connection, guard: Guard, now: datetime) -> list[tuple[str, str]]:
    placed = []
    events = []
    for (tenant, scope), detail in sorted(guard.trips.items()):
        if not arm(conn, tenant, scope, HoldReason.WRITE_RATE_ANOMALY, detail, now):
            continue  # a concurrent batch placed it first and announced it
        placed.append((tenant, scope))
        metrics.HOLDS_PLACED.labels(HoldReason.WRITE_RATE_ANOMALY.value, _kind(scope).value).inc()
        events.append(
            (
                Topic.WRITE_RATE_HELD,
                f"{tenant}:{scope}:{now.isoformat()}",
                tenant,
                {"scope": scope, "reason": HoldReason.WRITE_RATE_ANOMALY.value, **detail},
            )
        )
    emit_many(conn, events)
    return placed


def _prune(conn: Connection, now: datetime, th: Thresholds) -> None:
    global _next_prune
    tick = time.monotonic()
    if tick < _next_prune:
        return
    _next_prune = tick + PRUNE_EVERY_SECONDS
    # the canary monitor's window may be longer than the baseline; keep the longer
    keep = max(th.baseline, th.window) * 2
    cutoff = now - timedelta(seconds=keep)
    conn.execute(delete(write_counts).where(write_counts.c.counted_at < cutoff))


def clear_hold(
    conn: Connection, tenant_id: str, scope: str, *, by: str, now: datetime
) -> Hold | None:
    """An owner or reviewer clears a write-rate hold: the scope auto-commits again, and a
    ``write_rate.cleared`` event says who cleared it. A rollback hold is not cleared here
    (``memwarden canary clear``). Returns the hold as it was, None when none stood."""
    holds = [h for h in holds_for(conn, {tenant_id}, {scope}) if h.tenant_id == tenant_id]
    if not holds or not holds[0].active or holds[0].reason != HoldReason.WRITE_RATE_ANOMALY:
        return None
    hold = clear(conn, tenant_id, scope, by=by, now=now)
    if hold is not None:
        emit_many(
            conn,
            [
                (
                    Topic.WRITE_RATE_CLEARED,
                    f"{tenant_id}:{scope}:cleared:{now.isoformat()}",
                    tenant_id,
                    {"scope": scope, "cleared_by": by},
                )
            ],
        )
    return hold
