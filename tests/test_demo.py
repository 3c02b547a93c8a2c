"""``memwarden demo`` as a new user runs it: a real process, with a real database and broker
configured in the environment that it must leave alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from sqlalchemy import create_engine, func, select

from memwarden.reasons import in_words
from memwarden_shared.store.schema import messages, outbox, proposals
from tests.conftest import REDIS_URL

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)


def run_demo(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden.cli", "demo", *args],
        env={**os.environ, "COLUMNS": "200", **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.postgres
@pytest.mark.redis
def test_demo__runs_embedded_whatever_is_configured_and_shows_the_gate_refusing(
    fresh_pg_url: str, fresh_pg_owner_url: str, tmp_path: Path
) -> None:
    broker = redis.Redis.from_url(REDIS_URL)
    broker.flushdb()
    home = tmp_path / "default-data-dir"
    done = run_demo(
        {
            "MEMWARDEN_DATABASE_URL": fresh_pg_url,
            "MEMWARDEN_BROKER_URL": REDIS_URL,
            "MEMWARDEN_DATA_DIR": str(home),
        }
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for attempt, reason in [
        ("forged span", "evidence_mismatch"),
        ("secret", "secret"),
        ("tainted", "tainted_source"),
        ("cross-tenant", "message_not_found"),
    ]:
        # the attempt column is the first; a reason column may hold the same word
        [line] = [row for row in out.splitlines() if row.startswith(f"│ {attempt}")]
        assert in_words(reason) in line  # the receipt's reason, in words (memwarden.reasons)
    assert "ghp_" not in out + done.stderr  # the demo's fake token is never printed
    assert "recall(alice) after the cascade" in out
    # As the owner: the app role would count 0 rows anyway (no tenant scope, row-level
    # security), which would prove nothing.
    engine = create_engine(fresh_pg_owner_url)
    with engine.connect() as conn:
        for table in (messages, proposals, outbox):
            assert conn.execute(select(func.count()).select_from(table)).scalar() == 0
    engine.dispose()
    assert broker.dbsize() == 0
    assert not home.exists()  # not even the configured data dir: a temporary one, removed


def test_demo__keeps_its_store_in_the_data_dir_it_is_given(tmp_path: Path) -> None:
    done = run_demo({"MEMWARDEN_DATABASE_URL": ""}, "--data-dir", str(tmp_path / "kept"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "kept" / "memwarden.db").exists()
    assert f"MEMWARDEN_DATA_DIR={tmp_path / 'kept'} memwarden memories" in done.stdout
