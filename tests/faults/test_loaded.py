"""The chaos scenario on a loaded machine (issue 22 item 5): the test starts its own niced CPU
hogs, one per core, beside the fleet, then kills workers, a relay and Redis while the
workload flows. The pipeline must still settle by itself and equal the embedded run; every
wait follows progress (``harness.wait_progressing``), so slower is allowed, stuck is not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.harness import Fleet, RedisServer, kill_in_transaction, standard_fleet
from tests.faults.scenario import (
    CommandIssuer,
    Outcome,
    assert_clean,
    ingest_twice,
    pg_engine_for,
    settle_and_compare,
    wait_exit,
)
from tests.faults.workload import Workload, build

pytestmark = [pytest.mark.faults, pytest.mark.spans_tenants, pytest.mark.slow, pytest.mark.postgres]

CHUNKS = 3


@pytest.fixture
def cpu_hogs() -> Iterator[int]:
    """One niced busy loop per core for the whole test; killed by pid afterwards."""
    hogs = [
        subprocess.Popen(["nice", "-n", "5", sys.executable, "-c", "while 1: pass"])
        for _ in range(os.cpu_count() or 2)
    ]
    try:
        yield len(hogs)
    finally:
        for hog in hogs:
            hog.send_signal(signal.SIGKILL)
            hog.wait()


def test_loaded_chaos__settles_beside_cpu_hogs(
    cpu_hogs: int, fresh_pg_url: str, tmp_path: Path
) -> None:
    redis_server = RedisServer(tmp_path / "redis")
    redis_server.start()
    logs = tmp_path / "logs"
    logs.mkdir()
    fleet = Fleet(fresh_pg_url, redis_server.url, logs)
    engine = pg_engine_for(fresh_pg_url)
    workload = build(subjects=30, turns_per_subject=20, seed=22)
    outcome = Outcome(f"loaded chaos ({cpu_hogs} CPU hogs)", len(workload.turns))
    size = len(workload.turns) // CHUNKS
    chunks = [
        Workload(workload.turns[i * size : (i + 1) * size], [], []).write_jsonl(
            tmp_path / f"turns-{i}.jsonl"
        )
        for i in range(CHUNKS)
    ]
    try:
        fleet.wait_ready(standard_fleet(fleet))
        commands = CommandIssuer(engine, workload)
        ingests = ingest_twice(fleet, chunks[0], logs, "0")
        commands.start()
        for step, name in enumerate(["gate-1", "extractor-1", "relay-1", "vector_sink-1"]):
            caught = kill_in_transaction(fleet, engine, name)
            fleet.restart(name)
            outcome.faults[f"SIGKILL {name.split('-')[0]}{' in tx' if caught else ''}"] += 1
            if 0 < step < CHUNKS:
                ingests += ingest_twice(fleet, chunks[step], logs, str(step))
            time.sleep(1.0)
        redis_server.kill9()
        redis_server.start()
        outcome.faults["kill -9 redis"] += 1
        outcome.ingest_exit_codes = [wait_exit(p, "ingest") for p in ingests]
        settle_and_compare(outcome, engine, workload, tmp_path, fleet, commands)
    finally:
        engine.dispose()
        fleet.stop_all()
        redis_server.stop()
        print(fleet.log_tail(1500))
    print(f"load average at the end: {os.getloadavg()}")
    assert_clean(outcome)
