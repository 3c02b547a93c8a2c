"""The four stages and the relay as separate OS processes on PostgreSQL + Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from sqlalchemy import create_engine, select

from services.ingest.io import ingest_turns
from services.recall.query import recall
from services.revalidation.io import revoke_message
from shared.models import Turn
from shared.schema import memory_versions, vector_index
from tests.conftest import REDIS_URL, turn_dict

STAGES = ["extractor", "gate", "revalidation", "vector_sink"]


@pytest.fixture
def pipeline_processes(fresh_pg_url: str, tmp_path: Path) -> Iterator[str]:
    redis.Redis.from_url(REDIS_URL).flushdb()
    env = {**os.environ, "MEMWARDEN_DATABASE_URL": fresh_pg_url,
           "MEMWARDEN_BROKER_URL": REDIS_URL, "MEMWARDEN_RELAY_POLL_SECONDS": "0.05",
           "MEMWARDEN_LOG_LEVEL": "INFO"}
    procs = []
    for args in [["worker", s] for s in STAGES] + [["relay"]]:
        log = (tmp_path / f"{'-'.join(args)}.log").open("w")
        procs.append((subprocess.Popen([sys.executable, "-m", "services.cli", *args], env=env,
                                       stdout=log, stderr=subprocess.STDOUT), log))
    try:
        yield fresh_pg_url
    finally:
        for proc, _ in procs:
            proc.terminate()
        for proc, log in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
            log.close()
        for path in sorted(tmp_path.glob("*.log")):
            sys.stderr.write(f"--- {path.name}\n{path.read_text()[-3000:]}\n")


def wait_for(condition: Callable[[], bool], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_distributed__turns_become_indexed_memories_and_a_revocation_removes_one(
        pipeline_processes: str) -> None:
    engine = create_engine(pipeline_processes)
    tenant = "dist"
    turns = [Turn.model_validate(turn_dict(tenant, text, message_id=mid, created_at=at))
             for mid, text, at in [
                 ("m1", "I prefer pnpm for all my JavaScript projects.", "2026-05-01T09:00:00Z"),
                 ("m2", "请记住，我喜欢简洁直接的回答。", "2026-05-01T09:01:00Z"),
                 ("m3", "My colleague lives in Beijing.", "2026-05-01T09:02:00Z"),
                 ("m4", "我更喜欢深色主题。", "2026-05-01T09:03:00Z")]]
    ingest_turns(turns, engine=engine)

    def indexed() -> set[str]:
        with engine.connect() as conn:
            return set(conn.execute(select(vector_index.c.memory_id)
                                    .where(vector_index.c.tenant_id == tenant)).scalars())

    wait_for(lambda: len(indexed()) == 3)
    values = sorted(str(m.value) for m in recall(tenant, "u1", engine=engine))
    assert "pnpm" in values and "dark" in values
    assert not any("Beijing" in v for v in values)

    pnpm = next(m for m in recall(tenant, "u1", engine=engine) if m.value == "pnpm")
    revoke_message(tenant, "m1", engine=engine)
    # Protected empty: gone from recall the moment the revocation commits.
    assert "pnpm" not in [m.value for m in recall(tenant, "u1", engine=engine)]
    wait_for(lambda: pnpm.memory_id not in indexed())
    with engine.connect() as conn:
        status = conn.execute(select(memory_versions.c.status).where(
            memory_versions.c.memory_id == pnpm.memory_id)).scalar_one()
    assert status == "revoked"
    assert len(indexed()) == 2
    engine.dispose()
