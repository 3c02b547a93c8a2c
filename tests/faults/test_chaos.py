"""The chaos scenario of issue 9: 2,000 turns ingested twice at once through two relays, two
gate workers, two vector sinks, an extractor and revalidation, while workers, a relay and
Redis are killed; the pipeline must settle by itself and equal the embedded run."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tests.faults.harness import (
    Fleet,
    RedisServer,
    holds_transaction,
    kill_in_transaction,
    standard_fleet,
    wait_for,
)
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

# the test plays the stages, system processes over every tenant (row-level security)
pytestmark = [pytest.mark.faults, pytest.mark.spans_tenants, pytest.mark.slow, pytest.mark.postgres]

CHUNKS = 4  # the workload arrives in parts, so faults land while work is in flight


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def fleet(fresh_pg_url: str, redis_server: RedisServer, tmp_path: Path) -> Iterator[Fleet]:
    logs = tmp_path / "logs"
    logs.mkdir()
    fleet = Fleet(fresh_pg_url, redis_server.url, logs)
    names = standard_fleet(fleet)
    try:
        fleet.wait_ready(names)
        yield fleet
    finally:
        fleet.stop_all()
        print(fleet.log_tail(1500))


def _freeze_then_kill(fleet: Fleet, engine: Engine, name: str) -> None:
    """SIGSTOP an idle worker, let messages reach its socket, SIGKILL it: whatever its
    pending BRPOP popped dies with it and only the outbox remembers it."""
    wait_for(lambda: not holds_transaction(engine, name), 20, f"{name} idle", 0.01)
    fleet.signal(name, signal.SIGSTOP)
    time.sleep(3)
    fleet.kill(name)


def test_chaos__killed_workers_relay_and_redis_settle_to_the_embedded_state(
    fresh_pg_url: str, redis_server: RedisServer, fleet: Fleet, tmp_path: Path
) -> None:
    workload = build(subjects=100, turns_per_subject=20)
    outcome = Outcome("chaos (kills, redis -9, frozen worker)", len(workload.turns))
    engine = pg_engine_for(fresh_pg_url)
    size = len(workload.turns) // CHUNKS
    chunks = [
        Workload(workload.turns[i * size : (i + 1) * size], [], []).write_jsonl(
            tmp_path / f"turns-{i}.jsonl"
        )
        for i in range(CHUNKS)
    ]
    commands = CommandIssuer(engine, workload)
    ingests = ingest_twice(fleet, chunks[0], fleet.log_dir, "0")
    commands.start()

    def kill_mid_transaction(name: str) -> None:
        caught = kill_in_transaction(fleet, engine, name)
        outcome.faults[f"SIGKILL {name.split('-')[0]}{' in tx' if caught else ''}"] += 1
        fleet.restart(name)

    def kill_relay() -> None:
        caught = kill_in_transaction(fleet, engine, "relay-1", seconds=5)  # mid-claim if seen
        fleet.restart("relay-1")
        outcome.faults[f"SIGKILL relay{' in tx' if caught else ''}"] += 1

    def freeze_then_kill(name: str) -> None:
        _freeze_then_kill(fleet, engine, name)
        fleet.restart(name)
        outcome.faults[f"SIGSTOP+SIGKILL idle {name.split('-')[0]}"] += 1

    schedule = [
        lambda: kill_mid_transaction("extractor-1"),
        lambda: kill_mid_transaction("gate-1"),
        lambda: kill_mid_transaction("vector_sink-1"),
        kill_relay,
        lambda: kill_mid_transaction("extractor-1"),
        lambda: kill_mid_transaction("gate-2"),
        lambda: _redis_kill9(redis_server, outcome),
        lambda: kill_mid_transaction("gate-1"),
        lambda: freeze_then_kill("vector_sink-2"),
        lambda: kill_mid_transaction("vector_sink-1"),
        lambda: freeze_then_kill("gate-2"),
        lambda: kill_mid_transaction("extractor-1"),
        kill_relay,
    ]
    chunk_at = {k * len(schedule) // CHUNKS: k for k in range(1, CHUNKS)}
    for step, fault in enumerate(schedule):
        if step in chunk_at:
            ingests += ingest_twice(fleet, chunks[chunk_at[step]], fleet.log_dir, str(step))
        fault()
        time.sleep(1.0)
    outcome.ingest_exit_codes = [wait_exit(p, "ingest") for p in ingests]
    settle_and_compare(outcome, engine, workload, tmp_path, fleet, commands)
    engine.dispose()
    assert_clean(outcome)


def _redis_kill9(server: RedisServer, outcome: Outcome) -> None:
    server.kill9()
    time.sleep(1.0)
    server.start()  # same port and directory: the append-only file brings the queues back
    outcome.faults["kill -9 redis"] += 1
