"""A curate rollback killed mid-way (issue 22 item 5): the process is SIGKILLed as soon as
its recall block is up. Whatever it had done, recall of the run's subject is then either
the rolled-back state or protected empty, never a mixture; a second rollback finishes the
job, and the subject recalls exactly what it recalled before the publish."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from memwarden_curate.publish import rollback
from memwarden_recall.query import ProtectedEmpty, recall
from memwarden_shared.config import get_settings
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import engine_for, unit_of_work
from memwarden_shared.store.schema import curate_blocks, curate_runs
from memwarden_shared.store.tenant_scope import all_tenants
from tests.curate_helpers import curate, people, say_all, values

pytestmark = [pytest.mark.faults, pytest.mark.slow, pytest.mark.spans_tenants]

REPO = Path(__file__).resolve().parents[2]
PLANTS = ("fern", "cactus", "orchid", "basil", "ivy", "palm", "bamboo", "lemon tree")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _pairs() -> list[tuple[str, str, str]]:
    """Notes said twice, the second time with one more function word: the rules rewriter
    folds each pair into one, so the publish writes a version per pair and the rollback has
    as many to restore."""
    lines = []
    for n, (plant, day) in enumerate(itertools.product(PLANTS, DAYS)):
        lines.append((f"m{n}a", "u1", f"Remember that I water the {plant} only on {day}s."))
        lines.append((f"m{n}b", "u1", f"Remember that I water the {plant} only on the {day}s."))
    return lines


def _blocked(engine: Engine, run_id: str) -> bool:
    with all_tenants("test watches the block"), engine.connect() as conn:
        return (
            conn.execute(
                select(curate_blocks.c.run_id).where(curate_blocks.c.run_id == run_id)
            ).first()
            is not None
        )


def _stage(engine: Engine, run_id: str) -> str:
    with all_tenants("test reads the stage"), engine.connect() as conn:
        return str(
            conn.execute(
                select(curate_runs.c.stage).where(curate_runs.c.run_id == run_id)
            ).scalar_one()
        )


def test_curate_rollback__killed_once_its_block_is_up_then_run_again(
    fresh_pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a hundred notes of one subject at once is a burst the rate watch would hold for review
    monkeypatch.setenv("MEMWARDEN_ANOMALY_ENABLED", "false")
    get_settings.cache_clear()
    engine = engine_for(fresh_pg_url)
    tenant = "t-" + uuid.uuid4().hex[:8]
    say_all(engine, tenant, _pairs())
    before = values(engine, tenant)
    run_id = curate(engine, tenant, subjects=["u1"])["run_id"]
    assert values(engine, tenant) != before  # the publish changed what recall returns
    with unit_of_work(engine) as uow:
        key = create_principal(uow.conn, "killed-admin", tenant, [Scope.ADMIN])
        uow.commit()

    env = {
        **os.environ,
        "MEMWARDEN_DATABASE_URL": fresh_pg_url,
        "MEMWARDEN_DATA_DIR": str(tmp_path / "data"),
    }
    env.pop("MEMWARDEN_BROKER_URL", None)
    command = [sys.executable, "-m", "memwarden.cli", "curate", "rollback"]
    proc = subprocess.Popen(
        [*command, "--run", run_id, "--api-key", key],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Killed the moment its block is up: its restore is then under way, or not begun.
        while proc.poll() is None and not _blocked(engine, run_id):
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(30)

    seen = recall(tenant, "u1", engine=engine, k=1000)
    finished = _stage(engine, run_id) == "rolled_back"
    print(f"\ncurate rollback killed: {len(before)} memories, finished before the kill: {finished}")
    if finished:
        assert sorted(str(m.value) for m in seen) == before  # it finished before the kill
    else:
        # fail closed: nothing, not a mixture of published and restored versions
        assert isinstance(seen, ProtectedEmpty) and seen.reason == "curate_publishing"
        assert rollback(people(tenant)["planner"], run_id, engine=engine)["stage"] == (
            "rolled_back"
        )
    assert not _blocked(engine, run_id)
    assert values(engine, tenant) == before
    engine.dispose()
    get_settings.cache_clear()
