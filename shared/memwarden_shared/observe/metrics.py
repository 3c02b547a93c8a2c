"""Prometheus metrics of every stage (docs/operations.md says what each one means).

A leaf: the metric definitions and the small functions that count into them, importing
nothing of memwarden, so every layer may count. What reads the store or the broker to set a
gauge is in ``observe.samplers``.

The metrics live in prometheus_client's default registry of the process that observes
them: decisions in gate workers, latencies in whichever worker ran the task, backlog and
queue depth only in relays (``relay_gauges``). Each process serves its own ``/metrics`` on
``MEMWARDEN_METRICS_PORT`` (``serve``), so a machine running several workers gives each its
own port.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterable
from typing import Any
from wsgiref.simple_server import WSGIServer

from celery import signals
from prometheus_client import Counter, Gauge, Histogram, start_http_server

log = logging.getLogger("memwarden.metrics")

# A task carries a batch of up to 200 keys: milliseconds idle, seconds under load.
_TASK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
# From a turn or a revocation to the index: sub-second when healthy, hours behind a backlog
# or an owner who takes a day to confirm.
_PIPELINE_BUCKETS = (0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 86400)
_REASON = re.compile(r"[a-z][a-z0-9_]{0,59}")

DECISIONS = Counter(
    "memwarden_gate_decisions", "Gate decisions, one per decided proposal", ["decision"]
)
DECISION_REASONS = Counter(
    "memwarden_gate_decision_reasons",
    "Reasons given with gate decisions (a decision may carry several)",
    ["decision", "reason"],
)
TASK_DURATION = Histogram(
    "memwarden_task_duration_seconds",
    "Wall time of one stage task (one batch) in a worker",
    ["task", "state"],
    buckets=_TASK_BUCKETS,
)
TURN_TO_RECALLABLE = Histogram(
    "memwarden_turn_to_recallable_seconds",
    "From the evidence message's arrival to its memory version being indexed",
    ["path"],
    buckets=_PIPELINE_BUCKETS,
)
REVOCATION_DRAIN = Histogram(
    "memwarden_revocation_drain_seconds",
    "From a message's revocation or supersession to the vector row it supported being dropped",
    ["cause"],
    buckets=_PIPELINE_BUCKETS,
)


def record_decision(decision: str, reasons: Iterable[str]) -> None:
    """Count one gate decision and each of its reasons (a closed vocabulary)."""
    DECISIONS.labels(str(decision)).inc()
    for reason in reasons:
        # Reasons are code-made words; anything else is folded so label cardinality stays bounded.
        label = reason if _REASON.fullmatch(reason) else "other"
        DECISION_REASONS.labels(str(decision), label).inc()


def observe_turn_to_recallable(seconds: float, *, auto: bool) -> None:
    """``auto``: committed by the gate; otherwise it waited for an owner's approval."""
    TURN_TO_RECALLABLE.labels("auto" if auto else "reviewed").observe(max(seconds, 0.0))


def observe_revocation_drain(seconds: float, *, cause: str) -> None:
    REVOCATION_DRAIN.labels(cause).observe(max(seconds, 0.0))


_started: dict[str, float] = {}
_started_lock = threading.Lock()


def _task_prerun(task_id: str | None = None, **_: Any) -> None:
    if task_id:
        with _started_lock:
            _started[task_id] = time.perf_counter()


def _task_postrun(
    task_id: str | None = None, task: Any = None, state: str | None = None, **_: Any
) -> None:
    with _started_lock:
        began = _started.pop(task_id or "", None)
    if began is not None and task is not None:
        TASK_DURATION.labels(task.name, state or "UNKNOWN").observe(time.perf_counter() - began)


def install_task_timing() -> None:
    """Time every task this process runs (Celery's ``task_prerun``/``task_postrun``).

    Idempotent. In a prefork worker the signals fire in the child processes, whose metrics
    the parent's ``/metrics`` cannot see: run ``--pool solo`` or ``threads`` per process.
    """
    signals.task_prerun.connect(_task_prerun, weak=False, dispatch_uid="memwarden-prerun")
    signals.task_postrun.connect(_task_postrun, weak=False, dispatch_uid="memwarden-postrun")


def serve(port: int) -> WSGIServer | None:
    """Serve ``/metrics`` on ``port`` in a daemon thread (None when ``port`` is 0: off)."""
    if not port:
        return None
    server, _thread = start_http_server(port)
    log.info("metrics on :%d/metrics", port)
    return server


CONSUMER_EVENTS = Counter(
    "memwarden_consumer_events",
    "Events a stage's consumer saw, by outcome: processed, duplicate, held, dead_letter",
    ["stage", "outcome"],
)
CONSUMER_RETRIES = Counter(
    "memwarden_consumer_retries",
    "Batches a stage rolled back and retried after a transient error",
    ["stage"],
)
DEAD_LETTERS = Counter(
    "memwarden_dead_letters", "Events a stage set aside as dead letters", ["stage"]
)
CONSUMER_BATCH = Histogram(
    "memwarden_consumer_batch_seconds",
    "Wall time of one consumer batch (one transaction, retries included)",
    ["stage"],
    buckets=_TASK_BUCKETS,
)


def observe_batch(stage: str, result: Any, seconds: float) -> None:
    """Count one consumer batch (``delivery.consume.ConsumeResult``)."""
    for outcome, n in (
        ("processed", result.processed - result.dead),
        ("duplicate", result.duplicates),
        ("held", result.held),
        ("dead_letter", result.dead),
    ):
        if n:
            CONSUMER_EVENTS.labels(stage, outcome).inc(n)
    CONSUMER_BATCH.labels(stage).observe(seconds)


# Per producer (extractor version), seed 002's metrics: acceptance, quarantine and conflict
# rates are ratios of these counters (docs/operations.md has the PromQL), e.g. quarantine:
#   sum by (extractor_version) (rate(memwarden_producer_decisions_total{decision="QUARANTINE"}[5m]))
#     / sum by (extractor_version) (rate(memwarden_producer_decisions_total[15m]))
PRODUCER_DECISIONS = Counter(
    "memwarden_producer_decisions",
    "Gate decisions per extractor version (the proposal's producer)",
    ["extractor_version", "decision"],
)
PRODUCER_RATE = Gauge(
    "memwarden_producer_rate",
    "Share of an extractor version's decisions in the canary monitor's window: acceptance "
    "(COMMIT, NOOP), quarantine, conflict (CONFLICT, CONFIRM_REPLACE), reject, "
    "needs_confirmation; set by the extractor stage while a canary runs",
    ["extractor_version", "rate"],
)
CANARY_ROLLBACKS = Counter(
    "memwarden_canary_rollbacks", "Canary extractor versions rolled back by the monitor"
)
HOLDS_PLACED = Counter(
    "memwarden_review_holds_placed",
    "Scopes switched to review: write_rate_anomaly (subject, session, producer) or "
    "extractor_rolled_back",
    ["reason", "kind"],
)
# External submitters name their own extractor version: the label set is capped per process.
MAX_PRODUCER_LABELS = 50
_producers: set[str] = set()
_VERSION_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,99}")


def producer_label(version: str) -> str:
    """The label an extractor version is counted under ("other" past the cap)."""
    if version in _producers:
        return version
    if len(_producers) >= MAX_PRODUCER_LABELS or not _VERSION_LABEL.fullmatch(version):
        return "other"
    _producers.add(version)
    return version


def record_producer_decision(version: str, decision: str) -> None:
    PRODUCER_DECISIONS.labels(producer_label(version), decision).inc()


# Repair that closes (seed 002, retraction as repair steps 5-7).
ACTION_RECHECKS_FAILED = Counter(
    "memwarden_action_rechecks_failed",
    "Actions re-asked after a retraction that no longer pass (cancelled), by reason",
    ["reason"],
)
TIME_TO_REPAIR = Histogram(
    "memwarden_time_to_repair_seconds",
    "From an action needing repair to its repair being closed",
    ["outcome"],
    buckets=_PIPELINE_BUCKETS,
)
UNREPAIRED_EFFECTS = Gauge(
    "memwarden_unrepaired_effects",
    "Executed actions whose memory was retracted and whose repair is still open (as last listed)",
)
EXPIRED_BUT_RETRIEVED = Counter(
    "memwarden_expired_but_retrieved",
    "Memory versions a read returned although expired (must stay 0: a tripwire)",
    ["surface"],
)
RECALLED_VERSIONS = Counter(
    "memwarden_recalled_versions",
    "Memory versions recall returned, by whether they cite active evidence (the evidence ratio "
    "is with_evidence / all)",
    ["evidence"],
)


class RelayGauges:
    """What a relay samples (backlog, queue depths, delivery health, stuck work).

    Registered only in a process that runs a relay (``relay_gauges``), so no other process
    exports them as zeros it never measured (issue 26.10). The API answers the same backlog
    and delivery names from the store at scrape time instead (``memwarden.api.observe``).
    """

    def __init__(self) -> None:
        self.backlog = Gauge("memwarden_outbox_backlog", "Unsent outbox rows, sampled by the relay")
        self.oldest_age = Gauge(
            "memwarden_outbox_oldest_unsent_age_seconds",
            "Age of the oldest unsent outbox row (0 when none), sampled by the relay",
        )
        self.queue_depth = Gauge(
            "memwarden_queue_depth",
            "Messages (batches) waiting in a stage's Redis list, sampled by the relay",
            ["queue"],
        )
        self.events = Counter("memwarden_relay_events", "Outbox rows this relay published")
        self.last_round = Gauge(
            "memwarden_relay_last_round_timestamp_seconds",
            "Unix time of this relay's last successful round (claimed, published, committed)",
        )
        self.delivery = Gauge(
            "memwarden_delivery",
            "Delivery health sampled by the relay: unsent, in_flight, overdue (published, not "
            "consumed past the redelivery deadline), dead_letters",
            ["state"],
        )
        self.stuck_work = Gauge(
            "memwarden_stuck_work",
            "Work that looks done but is not, sampled by the relay every minute: "
            "undecided_candidates, current_without_vector (capped at 10,000)",
            ["kind"],
        )


_relay_gauges: RelayGauges | None = None
_relay_lock = threading.Lock()


def relay_gauges() -> RelayGauges:
    """The relay's gauges, registered on first use (by a relay's sampler)."""
    global _relay_gauges  # one registration per process, made on demand
    with _relay_lock:
        if _relay_gauges is None:
            _relay_gauges = RelayGauges()
        return _relay_gauges
