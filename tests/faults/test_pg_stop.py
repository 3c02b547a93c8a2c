"""PostgreSQL stopped with ``-m immediate`` (a crash: open transactions are lost) while stages
hold transactions, for longer than the consumers' retry budget; then restarted. Nothing may
be lost: the outbox redelivers what the exhausted retries gave up, with no operator.

The suite owns a scratch cluster for this (initdb in a temp dir; as root the server runs
as the ``postgres`` user). Where the machine cannot run one, the test says why and skips:
stopping the shared test server would break every other test running against it.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from memwarden_shared.config import get_settings
from memwarden_shared.store.db import migrate
from tests.faults.harness import (
    Fleet,
    RedisServer,
    ScratchCluster,
    ScratchUnavailable,
    holds_transaction,
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
from tests.faults.workload import build

# the test plays the stages, system processes over every tenant (row-level security)
pytestmark = [pytest.mark.faults, pytest.mark.spans_tenants, pytest.mark.slow]

# A short retry budget for the consumers (about 0.5 + 1 s of backoff), so an outage of
# OUTAGE_SECONDS certainly exhausts it: recovery must then come from outbox redelivery.
RETRY_ENV = {
    "MEMWARDEN_CONSUMER_ATTEMPTS": "3",
    "MEMWARDEN_BACKOFF_BASE_SECONDS": "0.5",
    "MEMWARDEN_BACKOFF_MAX_SECONDS": "2",
    "MEMWARDEN_RELAY_LEASE_SECONDS": "3",
    # the scratch cluster has no system login: its workers connect as its owner, which sees
    # every tenant (the suite's own system login exists only in the shared cluster)
    "MEMWARDEN_SYSTEM_DB_USER": "",
}
OUTAGE_SECONDS = 20


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScratchCluster]:
    """A migrated ``memwarden`` database in a cluster of the test's own. It has no system
    login, so this process, as its workers (``RETRY_ENV``), connects as the cluster's owner."""
    monkeypatch.setenv("MEMWARDEN_SYSTEM_DB_USER", "")
    get_settings.cache_clear()
    # /tmp, not tmp_path: the postgres user must reach it through every parent directory
    scratch = ScratchCluster(Path(tempfile.mkdtemp(prefix="mw-scratch-")))
    try:
        scratch.init()
    except ScratchUnavailable as exc:
        scratch.destroy()
        pytest.skip(f"no scratch PostgreSQL cluster on this machine: {exc}")
    try:
        admin = create_engine(scratch.url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text("CREATE DATABASE memwarden"))
        admin.dispose()
        scratch.database = "memwarden"
        engine = create_engine(scratch.url)
        migrate(engine)
        engine.dispose()
        yield scratch
    finally:
        scratch.destroy()
        monkeypatch.undo()
        get_settings.cache_clear()


def test_pg_stop__an_immediate_stop_longer_than_the_retry_budget_settles_by_itself(
    cluster: ScratchCluster, tmp_path: Path
) -> None:
    redis_server = RedisServer(tmp_path / "redis")
    redis_server.start()
    logs = tmp_path / "logs"
    logs.mkdir()
    fleet = Fleet(cluster.url, redis_server.url, logs, extra_env=RETRY_ENV)
    names = standard_fleet(fleet)
    engine = pg_engine_for(cluster.url)
    workload = build(subjects=30, turns_per_subject=20, seed=11)
    outcome = Outcome("postgres immediate stop", len(workload.turns))
    try:
        fleet.wait_ready(names)
        path = workload.write_jsonl(tmp_path / "turns.jsonl")
        commands = CommandIssuer(engine, workload)
        ingests = ingest_twice(fleet, path, logs, "all")
        outcome.ingest_exit_codes = [wait_exit(p, "ingest") for p in ingests]
        commands.start()
        # stop while some stage holds a transaction open (or after 20 s, whatever runs)
        busy = ["extractor-1", "gate-1", "gate-2", "vector_sink-1", "vector_sink-2"]
        in_tx = ""
        with suppress(AssertionError):
            wait_for(
                lambda: any(holds_transaction(engine, n) for n in busy), 20, "a stage in tx", 0.01
            )
            in_tx = " while a stage was in tx"
        cluster.stop_immediate()
        outcome.faults[f"postgres stop -m immediate{in_tx}"] += 1
        time.sleep(OUTAGE_SECONDS)
        cluster.start()
        settle_and_compare(outcome, engine, workload, tmp_path, fleet, commands)
    finally:
        engine.dispose()
        fleet.stop_all()
        redis_server.stop()
        print(fleet.log_tail(1500))
    assert_clean(outcome)
