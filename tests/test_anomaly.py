"""Write-rate anomaly detection (issue 15 item 5): a burst switches its scopes to review;
steady traffic, however busy, does not. Real PostgreSQL, the gate's own batch path."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import Engine, select

from memwarden.cli import main
from memwarden_gate.io import decide_batch
from memwarden_gate.records import GateContext
from memwarden_ingest.io import ingest_turns
from memwarden_shared.config import get_settings
from memwarden_shared.contract.models import Decision, Receipt, Topic, Turn
from memwarden_shared.observe.anomaly import Rate, Thresholds, tripped
from memwarden_shared.observe.metrics import producer_label
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.state.holds import list_holds
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import outbox, write_counts
from tests.conftest import at, turn_dict

TEXT = "I prefer pnpm for all my JavaScript projects."
START = at("2026-05-02T08:00:00Z")
STEP = timedelta(seconds=61)  # one batch per window (60 s): a batch never shares a window


@pytest.fixture
def thresholds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in {
        "WINDOW_SECONDS": "60",
        "BASELINE_SECONDS": "1200",
        "FACTOR": "4",
        "MIN_SUBJECT": "5",
        "MIN_SESSION": "5",
        "MIN_PRODUCER": "5",
    }.items():
        monkeypatch.setenv(f"MEMWARDEN_ANOMALY_{name}", value)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


class Traffic:
    """Proposals of one subject, each citing a message of its own, decided in batches."""

    def __init__(self, engine: Engine, tenant: str, make: Callable[..., dict[str, Any]]) -> None:
        self.engine, self.tenant, self.make = engine, tenant, make
        self.sent = 0

    def batch(
        self, n: int, now: datetime, subject: str = "u1", version: str = "test-1"
    ) -> list[Receipt]:
        ids = [f"m-{subject}-{self.sent + i}" for i in range(n)]
        self.sent += n
        turns = [
            Turn.model_validate(
                turn_dict(
                    self.tenant,
                    TEXT,
                    message_id=m,
                    subject=subject,
                    session=f"s-{subject}",
                    created_at="2026-05-01T09:00:00Z",
                )
            )
            for m in ids
        ]
        ingest_turns(turns, engine=self.engine, extract=False)
        raws = [
            self.make(
                self.tenant,
                m,
                TEXT,
                subject_id=subject,
                scope={"kind": "user", "key": subject},
                extractor_version=version,
            )
            for m in ids
        ]
        return decide_batch(raws, engine=self.engine, ctx=GateContext(now=now))


def _held(r: Receipt) -> bool:
    return "write_rate_anomaly" in r.reasons


def _events(engine: Engine, tenant: str, topic: Topic) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(outbox).where(outbox.c.tenant_id == tenant, outbox.c.topic == topic.value)
        ).all()
    assert all(r.consumed_at is not None for r in rows)  # feed-only: born consumed
    return [json.loads(r.payload) for r in rows]


def test_tripped__needs_the_minimum_and_the_factor_over_baseline() -> None:
    th = Thresholds(window=60, baseline=1260, factor=4, minimum={})
    assert not tripped(Rate(recent=0, older=0), 4, 5, th)  # below the minimum
    assert tripped(Rate(recent=0, older=0), 5, 5, th)  # no history: the minimum decides
    # 1200 s of baseline at 8 per minute: 8 more in a minute is the usual rate
    assert not tripped(Rate(recent=0, older=160), 8, 5, th)
    assert not tripped(Rate(recent=8, older=160), 24, 5, th)  # 4x: not past the factor
    assert tripped(Rate(recent=0, older=160), 40, 5, th)  # 5x


def test_steady_traffic__does_not_trip_and_a_burst_on_the_same_subject_does(
    pg_engine: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    thresholds: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    traffic = Traffic(pg_engine, tenant, make_proposal)
    # History from before detection was switched on: 8 proposals a minute for 20 minutes.
    monkeypatch.setenv("MEMWARDEN_ANOMALY_ENABLED", "false")
    get_settings.cache_clear()
    now = START
    for _ in range(20):
        traffic.batch(8, now)
        now += STEP
    monkeypatch.setenv("MEMWARDEN_ANOMALY_ENABLED", "true")
    get_settings.cache_clear()

    # Normal traffic: the same busy rate, a bit above it, and other quiet subjects.
    for n in (8, 9, 7, 10, 8):
        receipts = traffic.batch(n, now) + traffic.batch(2, now, subject=f"quiet-{n}")
        assert not any(_held(r) for r in receipts)
        now += STEP
    with pg_engine.connect() as conn:
        assert list_holds(conn, tenant, active_only=True) == []
    assert _events(pg_engine, tenant, Topic.WRITE_RATE_HELD) == []

    # A burst of five times the usual rate: every proposal of it goes to review.
    burst = traffic.batch(40, now)
    assert all(r.decision == Decision.NEEDS_CONFIRMATION and _held(r) for r in burst)
    with pg_engine.connect() as conn:
        scopes = {h.scope for h in list_holds(conn, tenant, active_only=True)}
    assert scopes == {"subject:u1", "session:s-u1", "producer:test-1"}
    held = {e["scope"]: e for e in _events(pg_engine, tenant, Topic.WRITE_RATE_HELD)}
    assert held["subject:u1"]["metric"] == "proposals" and held["subject:u1"]["recent"] == 40


def test_burst_from_a_new_subject__goes_to_review_until_a_reviewer_clears_it(  # both stores
    store: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    thresholds: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("MEMWARDEN_ANOMALY_MIN_PRODUCER", "1000")
    get_settings.cache_clear()
    traffic = Traffic(store, tenant, make_proposal)
    assert not any(_held(r) for r in traffic.batch(3, START, subject="calm"))  # under minimum
    burst = traffic.batch(12, START, subject="u1")
    assert all(_held(r) and r.decision == Decision.NEEDS_CONFIRMATION for r in burst), [
        (r.decision, r.reasons) for r in burst
    ]
    assert not any(_held(r) for r in traffic.batch(1, START + STEP, subject="calm"))
    later = traffic.batch(1, START + STEP, subject="u1")  # the hold outlives the burst
    assert _held(later[0])

    with unit_of_work(store) as uow:
        key = create_principal(uow.conn, "reviewer-1", tenant, [Scope.REVIEW])
        uow.commit()
    monkeypatch.setenv("MEMWARDEN_DATABASE_URL", store.url.render_as_string(False))
    monkeypatch.delenv("MEMWARDEN_BROKER_URL", raising=False)
    get_settings.cache_clear()
    for scope in ("subject:u1", "session:s-u1"):
        args = ["holds", "clear", "--tenant", tenant, "--scope", scope, "--api-key", key]
        assert main(args) == 0
    assert (
        main(["holds", "clear", "--tenant", tenant, "--scope", "subject:u1", "--api-key", key]) == 2
    )
    assert "no write-rate hold" in capsys.readouterr().err

    # Cleared within the window that still holds the burst: it does not trip again at once.
    after = traffic.batch(1, START + 2 * STEP, subject="u1")
    assert (
        not _held(after[0]) and after[0].decision == Decision.COMMIT
    )  # the burst committed nothing
    cleared = _events(store, tenant, Topic.WRITE_RATE_CLEARED)
    assert {e["scope"] for e in cleared} == {"subject:u1", "session:s-u1"}
    assert {e["cleared_by"] for e in cleared} == {"reviewer-1"}


def test_holds_clear__refuses_a_principal_without_review(
    pg_engine: Engine,
    tenant: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with unit_of_work(pg_engine) as uow:
        key = create_principal(uow.conn, "reader-1", tenant, [Scope.READ])
        uow.commit()
    monkeypatch.setenv("MEMWARDEN_DATABASE_URL", pg_engine.url.render_as_string(False))
    monkeypatch.delenv("MEMWARDEN_BROKER_URL", raising=False)
    get_settings.cache_clear()
    try:
        args = ["holds", "clear", "--tenant", tenant, "--scope", "subject:u1", "--api-key", key]
        assert main(args) == 2
    finally:
        get_settings.cache_clear()
    assert "lacks memory:review" in capsys.readouterr().err


def test_producer_metrics__count_gate_decisions_per_extractor_version(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    labels = {"extractor_version": "metric-v1", "decision": "COMMIT"}

    def committed() -> float:
        return REGISTRY.get_sample_value("memwarden_producer_decisions_total", labels) or 0.0

    before = committed()
    receipts = Traffic(store, tenant, make_proposal).batch(1, START, version="metric-v1")
    assert receipts[0].decision == Decision.COMMIT
    assert committed() == before + 1
    assert producer_label("x" * 300) == "other"  # not a version: never a label of its own


def test_redelivered_batch__is_not_counted_twice(
    pg_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]], thresholds: None
) -> None:
    traffic = Traffic(pg_engine, tenant, make_proposal)
    first = traffic.batch(4, START)  # one under the minimum of 5
    assert not any(_held(r) for r in first)
    raws = [make_proposal(tenant, f"m-u1-{i}", TEXT) for i in range(4)]  # the same proposals
    again = decide_batch(raws, engine=pg_engine, ctx=GateContext(now=START + timedelta(seconds=5)))
    assert [r.model_dump() for r in again] == [r.model_dump() for r in first]  # exact replays
    with pg_engine.connect() as conn:
        assert list_holds(conn, tenant, active_only=True) == []


def test_counts__one_row_per_scope_and_bucket_however_many_batches(  # both stores
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]], thresholds: None
) -> None:
    """The windowed sums read what ``write_counts`` holds: rows must grow with time
    buckets, never with traffic (a row per batch grew to millions for a busy scope)."""
    traffic = Traffic(store, tenant, make_proposal)
    for i in range(4):  # four one-proposal batches in the same 3 s bucket (window 60 s / 20)
        traffic.batch(1, START + timedelta(milliseconds=500 * i))
    traffic.batch(1, START + timedelta(seconds=4))  # the next bucket
    with unit_of_work(store) as uow:
        rows = uow.conn.execute(
            select(write_counts).where(
                write_counts.c.tenant_id == tenant, write_counts.c.scope == "subject:u1"
            )
        ).all()
    assert sorted(r.proposals for r in rows) == [1, 4]
    assert len({r.writer for r in rows}) == 1  # this process's rows
