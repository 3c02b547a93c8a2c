"""Staged rollout of an extractor version (issue 15 item 4): routing, the monitor, rollback.

The timeline test runs the stages' own batch functions (as their workers do) on real
PostgreSQL, and prints its timeline (``pytest -s``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from memwarden.cli import main
from memwarden_extractor.canary import require_runnable
from memwarden_extractor.io import extract_batch
from memwarden_extractor.rules import EXTRACTOR_VERSION, extract
from memwarden_extractor.versions import UnknownVersion, register_version
from memwarden_gate.io import run_gate_stage
from memwarden_shared.config import Canary, get_settings, parse_canary
from memwarden_shared.contract.models import ProposalBody, Topic, Turn
from memwarden_shared.contract.registry import Registry
from memwarden_shared.delivery.events import event_of_row
from memwarden_shared.observe.rollout import (
    VersionRates,
    compare,
    is_rolled_back,
    routes_to_canary,
)
from memwarden_shared.store.db import engine_for, unit_of_work, utcnow
from memwarden_shared.store.schema import outbox, proposals, switch_quarantine
from tests.rollout_helpers import ingest_round, unregister_version

BAD = "bad-canary-1"


def bad_extractor(turn: Turn, registry: Registry) -> list[ProposalBody]:
    """A deliberately broken version: each of the rules' proposals, plus a copy citing a
    message that does not exist (the gate refuses those)."""
    out = []
    for body in extract(turn, registry, extractor_version=BAD):
        out.append(body)
        forged = body.evidence.model_copy(update={"message_id": body.evidence.message_id + "x"})
        ordinal = body.stable_candidate_ordinal + 100
        out.append(
            body.model_copy(update={"evidence": forged, "stable_candidate_ordinal": ordinal})
        )
    return out


@pytest.fixture
def own_engine(fresh_pg_url: str) -> Iterator[Engine]:
    """A database of its own: a rollback holds for every tenant of its store."""
    engine = engine_for(fresh_pg_url)
    yield engine
    engine.dispose()


@pytest.fixture
def canary_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    register_version(BAD, bad_extractor)
    monkeypatch.setenv("MEMWARDEN_EXTRACTOR_CANARY", f"{BAD}:30")
    monkeypatch.setenv("MEMWARDEN_CANARY_MIN_DECISIONS", "5")
    monkeypatch.setenv("MEMWARDEN_CANARY_MAX_RATE_INCREASE", "0.2")
    get_settings.cache_clear()
    yield
    unregister_version(BAD)
    get_settings.cache_clear()


def test_parse_canary__accepts_version_and_percent_and_refuses_the_rest() -> None:
    assert parse_canary("") is None
    assert parse_canary("rules-1.1:5") == Canary("rules-1.1", 5.0)
    assert parse_canary("llm-qwen2.5:7b-1:12.5") == Canary("llm-qwen2.5:7b-1", 12.5)
    for bad in ("rules-1.1", "rules-1.1:0", "rules-1.1:101", ":5", "rules 1:5", "v:5.123"):
        with pytest.raises(ValueError, match="<version>:<percent>"):
            parse_canary(bad)


def test_routes_to_canary__is_stable_and_close_to_the_share() -> None:
    canary = Canary("v2", 10)
    chosen = [routes_to_canary(canary, "t", f"s{i}") for i in range(5000)]
    assert chosen == [routes_to_canary(canary, "t", f"s{i}") for i in range(5000)]
    assert 400 < sum(chosen) < 600
    wider = Canary("v3", 50)  # raising the share keeps the sessions already routed
    assert all(routes_to_canary(wider, "t", f"s{i}") for i, c in enumerate(chosen) if c)


def test_compare__needs_a_sample_and_a_margin() -> None:
    stable = VersionRates(decisions=100, committed=80, rejected=20)
    worse = VersionRates(decisions=20, committed=5, rejected=15)
    assert compare(stable, worse, min_decisions=50, max_increase=0.1) == []  # too few
    assert compare(stable, worse, min_decisions=10, max_increase=0.1) == ["reject"]
    same = VersionRates(decisions=20, committed=16, rejected=4)
    assert compare(stable, same, min_decisions=10, max_increase=0.1) == []


def test_bad_canary_setting__one_line_and_no_start(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MEMWARDEN_EXTRACTOR_CANARY", "rules-2;50")
    get_settings.cache_clear()
    try:
        assert main(["canary", "status"]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "MEMWARDEN_EXTRACTOR_CANARY must be <version>:<percent>" in err
    assert "rules-2;50" not in err


@pytest.mark.slow
def test_bad_setting__the_command_line_refuses_before_importing_anything_else(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "MEMWARDEN_DATA_DIR": str(tmp_path), "MEMWARDEN_EXTRACTOR_CANARY": "v;5"}
    env.pop("MEMWARDEN_DATABASE_URL", None)
    env.pop("MEMWARDEN_BROKER_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "memwarden.cli", "worker", "extractor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: invalid configuration: MEMWARDEN_EXTRACTOR_CANARY must be <version>:<percent>,"
        " e.g. rules-1.1:5, with 0 < percent <= 100 (at most two decimals)"
    ]


def test_unknown_canary_version__the_extractor_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMWARDEN_EXTRACTOR_CANARY", "nobody-knows-1:5")
    get_settings.cache_clear()
    try:
        with pytest.raises(UnknownVersion, match="cannot run"):
            require_runnable(get_settings())
    finally:
        get_settings.cache_clear()


def _envelopes(engine: Engine, tenant: str, topic: Topic) -> list[dict[str, Any]]:
    """The tenant's unconsumed events of ``topic``, as the relay would hand them on."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(outbox)
            .where(
                outbox.c.tenant_id == tenant,
                outbox.c.topic == topic.value,
                outbox.c.consumed_at.is_(None),
            )
            .order_by(outbox.c.id)
        ).all()
    return [event_of_row(r._mapping).envelope() for r in rows]


def _proposals(engine: Engine, tenant: str) -> list[Any]:
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(proposals).where(proposals.c.tenant_id == tenant).order_by(proposals.c.id)
            )
        )


def _sessions(canary: Canary, tenant: str) -> tuple[list[str], set[str]]:
    """40 sessions, every third of the first 36 routed to the canary (12 in all): 10 among
    the first 30 the gate decides, 2 among the 10 left undecided."""
    names = (f"s{i}" for i in range(100_000))
    to_canary = [s for s in names if routes_to_canary(canary, tenant, s)][:12]
    names = (f"s{i}" for i in range(100_000))
    to_stable = [s for s in names if not routes_to_canary(canary, tenant, s)][:28]
    order = [to_canary.pop(0) if i % 3 == 0 and i < 36 else to_stable.pop(0) for i in range(40)]
    return order, {s for s in order if routes_to_canary(canary, tenant, s)}


# plays the extractor and gate stages, which run as consumers over every tenant
@pytest.mark.spans_tenants
def test_rollout__a_bad_canary_is_rolled_back_and_its_pending_proposals_go_to_review(
    own_engine: Engine, tenant: str, canary_env: None
) -> None:
    pg_engine = own_engine
    timeline: list[str] = []

    def note(line: str) -> None:
        timeline.append(f"{utcnow().strftime('%H:%M:%S.%f')[:-3]}  {line}")

    canary = parse_canary(get_settings().extractor_canary)
    assert canary is not None
    first, routed = _sessions(canary, tenant)
    note(f"canary {BAD} at {canary.percent:g}%; stable {EXTRACTOR_VERSION}")

    # Round 1: 40 sessions extracted; the gate decides those of the first 30 sessions.
    ingest_round(pg_engine, tenant, first, 1)
    extract_batch(_envelopes(pg_engine, tenant, Topic.TURN_RECEIVED), engine=pg_engine)
    early = {f"m-{s}-1" for s in first[:30]}
    submitted = _envelopes(pg_engine, tenant, Topic.PROPOSAL_SUBMITTED)
    run_gate_stage(
        [e for e in submitted if e["payload"]["message_id"].rstrip("x") in early], engine=pg_engine
    )
    decided_early = {p.proposal_id for p in _proposals(pg_engine, tenant)}
    by_version = Counter((p.extractor_version, p.decision) for p in _proposals(pg_engine, tenant))
    note(
        f"round 1: {len(routed)} of 40 sessions routed to canary; the gate decided 30 sessions:"
        f" {dict(sorted(by_version.items()))}"
    )
    assert by_version[(BAD, "REJECT")] >= 5
    with pg_engine.connect() as conn:
        assert not is_rolled_back(conn, BAD)

    # Round 2: the extractor's monitor sees the canary's refusals jump and rolls back.
    second = [f"r{i}" for i in range(20)]
    ingest_round(pg_engine, tenant, second + sorted(routed)[:3], 2)
    extract_batch(_envelopes(pg_engine, tenant, Topic.TURN_RECEIVED), engine=pg_engine)
    with pg_engine.connect() as conn:
        assert is_rolled_back(conn, BAD)
    note("round 2: the extractor's monitor rolled the canary back (reject rate jumped)")

    # The rest: round 1's undecided proposals (canary ones among them) and round 2's.
    run_gate_stage(_envelopes(pg_engine, tenant, Topic.PROPOSAL_SUBMITTED), engine=pg_engine)
    rows = _proposals(pg_engine, tenant)
    late = [p for p in rows if p.message_id.endswith("-2")]
    assert late and all(p.extractor_version == EXTRACTOR_VERSION for p in late)
    note(f"round 2: {len(late)} proposals, all {EXTRACTOR_VERSION} (formerly canary sessions too)")
    leftovers = [
        p for p in rows if p.extractor_version == BAD and p.proposal_id not in decided_early
    ]
    # Undecided canary proposals: the rollback also closed the tenant's commit switch (hard
    # rollback, issue 24), so they are held with the decision they would have had (review,
    # extractor_rolled_back); forged ones stay refused; none committed.
    held = [p for p in leftovers if p.decision == "QUARANTINE"]
    assert held and all(json.loads(p.reasons) == ["commit_switch_closed"] for p in held)
    with pg_engine.connect() as conn:
        would_be = {
            r.proposal_id: (r.would_be_decision, json.loads(r.would_be_reasons))
            for r in conn.execute(
                select(switch_quarantine).where(switch_quarantine.c.tenant_id == tenant)
            )
        }
    assert all(would_be[p.proposal_id][0] == "NEEDS_CONFIRMATION" for p in held)
    assert all("extractor_rolled_back" in would_be[p.proposal_id][1] for p in held)
    assert {p.decision for p in leftovers} == {"QUARANTINE", "REJECT"}
    note(f"round 1 leftovers: {len(held)} canary proposals held by the switch, none committed")

    # Round 3: the env still names the canary; the stored rollback keeps routing on stable.
    assert get_settings().extractor_canary == f"{BAD}:30"
    ingest_round(pg_engine, tenant, sorted(routed), 3)
    extract_batch(_envelopes(pg_engine, tenant, Topic.TURN_RECEIVED), engine=pg_engine)
    run_gate_stage(_envelopes(pg_engine, tenant, Topic.PROPOSAL_SUBMITTED), engine=pg_engine)
    third = [p for p in _proposals(pg_engine, tenant) if p.message_id.endswith("-3")]
    assert third and all(p.extractor_version == EXTRACTOR_VERSION for p in third)
    note(f"round 3: {len(third)} formerly-canary sessions, all routed to stable")

    with pg_engine.connect() as conn:
        events = conn.execute(
            select(outbox).where(
                outbox.c.tenant_id == tenant, outbox.c.topic == Topic.EXTRACTOR_ROLLED_BACK.value
            )
        ).all()
    assert len(events) == 1 and events[0].consumed_at is not None  # feed-only: born consumed
    payload = json.loads(events[0].payload)
    assert payload["extractor_version"] == BAD and "reject" in payload["tripped"]
    note(f"feed: extractor.rolled_back {json.dumps(payload['canary'])}")
    print("\nrollout timeline\n" + "\n".join(timeline))


# plays the extractor and gate stages, which run as consumers over every tenant
@pytest.mark.spans_tenants
def test_canary_clear__lets_the_setting_route_again(
    own_engine: Engine, tenant: str, canary_env: None
) -> None:
    pg_engine = own_engine
    from memwarden_shared.observe.rollout import roll_back

    with unit_of_work(pg_engine) as uow:
        assert roll_back(uow.conn, BAD, utcnow(), {"why": "test"}, {tenant})
        assert not roll_back(uow.conn, BAD, utcnow(), {"why": "again"}, {tenant})
        uow.commit()
    from memwarden_shared.observe.rollout import active_canary, clear_rollback

    with unit_of_work(pg_engine) as uow:
        assert active_canary(uow.conn, get_settings().extractor_canary) is None
        assert clear_rollback(uow.conn, BAD, by="sre-1", now=utcnow())
        assert active_canary(uow.conn, get_settings().extractor_canary) == Canary(BAD, 30)
