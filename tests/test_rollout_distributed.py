"""A canary rolled back across OS processes: the four stage workers and the relay on
PostgreSQL + Redis, the canary an LLM extractor version whose (fake, local) model proposes
values the sentence does not say. Prints its timeline (``pytest -s``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import Engine, select

from memwarden_extractor.llm_client import extractor_version_for
from memwarden_extractor.rules import EXTRACTOR_VERSION
from memwarden_shared.config import Canary
from memwarden_shared.contract.models import Topic
from memwarden_shared.observe.rollout import is_rolled_back, routes_to_canary
from memwarden_shared.store.db import engine_for, utcnow
from memwarden_shared.store.schema import outbox, proposals
from tests.conftest import REDIS_URL
from tests.rollout_helpers import ingest_round
from tests.test_distributed import STAGES, wait_for
from tests.test_llm_extractor import MODEL, ChatServer, answer, cand

CANARY = extractor_version_for(MODEL)


@pytest.fixture
def lying_model() -> Iterator[ChatServer]:
    """Every answer claims the sentence said npm (the gate finds no such value in it)."""
    server = ChatServer()
    server.script(*[answer([cand(0, "preference.package_manager", "npm")]) for _ in range(500)])
    yield server
    server.close()


@pytest.fixture
def processes(fresh_pg_url: str, tmp_path: Path, lying_model: ChatServer) -> Iterator[Engine]:
    redis.Redis.from_url(REDIS_URL).flushdb()
    env = {
        **os.environ,
        "MEMWARDEN_DATABASE_URL": fresh_pg_url,
        "MEMWARDEN_BROKER_URL": REDIS_URL,
        "MEMWARDEN_RELAY_POLL_SECONDS": "0.05",
        "MEMWARDEN_EXTRACTOR_CANARY": f"{CANARY}:50",
        "MEMWARDEN_CANARY_MIN_DECISIONS": "5",
        "MEMWARDEN_LLM_BASE_URL": lying_model.url,
        "MEMWARDEN_LLM_MODEL": MODEL,
    }
    procs = []
    for args in [["worker", s] for s in STAGES] + [["relay"]]:
        log = (tmp_path / f"{'-'.join(args)}.log").open("w")
        cmd = [sys.executable, "-m", "memwarden.cli", *args]
        procs.append((subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT), log))
    engine = engine_for(fresh_pg_url)  # the tenant-scope hook (row-level security)
    try:
        yield engine
    finally:
        engine.dispose()
        for proc, _ in procs:
            proc.terminate()
        for proc, log in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:  # a loaded machine: reap it, or its Popen warns
                proc.kill()
                proc.wait()
            log.close()


def _decided(engine: Engine, tenant: str) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(proposals).where(proposals.c.tenant_id == tenant)))


# reads the rollback, a row of every tenant (tenant '*'), as the workers do
@pytest.mark.spans_tenants
@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_rollout_distributed__workers_roll_a_lying_canary_back(
    processes: Engine, tenant: str
) -> None:
    engine = processes
    timeline: list[str] = []

    def note(line: str) -> None:
        timeline.append(f"{utcnow().strftime('%H:%M:%S.%f')[:-3]}  {line}")

    first = [f"a{i}" for i in range(30)]
    routed = {s for s in first if routes_to_canary(Canary(CANARY, 50), tenant, s)}
    assert 5 <= len(routed) <= 25
    note(f"canary {CANARY} at 50% in the extractor worker; stable {EXTRACTOR_VERSION}")
    ingest_round(engine, tenant, first, 1)
    wait_for(lambda: len({p.message_id for p in _decided(engine, tenant)}) == 30, 300)
    mix = Counter((p.extractor_version, p.decision) for p in _decided(engine, tenant))
    note(f"round 1 decided by the gate worker: {dict(sorted(mix.items()))}")
    assert mix[(CANARY, "COMMIT")] == 0 and sum(n for (v, _), n in mix.items() if v == CANARY) > 0

    second = [f"b{i}" for i in range(20)] + sorted(routed)
    ingest_round(engine, tenant, second, 2)
    wait_for(lambda: len({p.message_id for p in _decided(engine, tenant)}) == 30 + len(second), 300)
    with engine.connect() as conn:
        assert is_rolled_back(conn, CANARY)
        event = conn.execute(
            select(outbox).where(
                outbox.c.tenant_id == tenant, outbox.c.topic == Topic.EXTRACTOR_ROLLED_BACK.value
            )
        ).one()
    note(f"rollback stored; extractor.rolled_back on the feed at {event.created_at:%H:%M:%S.%f}")
    late = [p for p in _decided(engine, tenant) if p.message_id.endswith("-2")]
    assert {p.extractor_version for p in late} == {EXTRACTOR_VERSION}
    note(f"round 2: {len(late)} proposals, all {EXTRACTOR_VERSION}, formerly canary sessions too")
    print("\ndistributed rollout timeline\n" + "\n".join(timeline))
