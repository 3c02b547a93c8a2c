"""Only ``memwarden migrate`` changes a shared database's schema; every other process checks
the revision at start and refuses, in one line, when it is behind."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

from memwarden_shared.store.db import MIGRATIONS_DIR
from memwarden_shared.store.schema_version import (
    SchemaBehind,
    head_revisions,
    require_current_schema,
)
from tests.conftest import PG_URL, REDIS_URL, admin


@pytest.fixture
def empty_pg_url() -> Iterator[str]:
    """A database with no schema at all, as a new deployment starts."""
    name = "mw_empty_" + uuid.uuid4().hex[:10]
    with admin() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    with admin() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def memwarden(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden.cli", *args],
        # Wide: the one line must not be cut by the terminal width.
        env={
            **os.environ,
            "COLUMNS": "300",
            "MEMWARDEN_DATABASE_URL": url,
            "MEMWARDEN_BROKER_URL": REDIS_URL,
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.postgres
def test_schema_version__processes_refuse_an_unmigrated_database_until_migrate_runs(
    empty_pg_url: str,
) -> None:
    for args in (
        ["relay"],
        ["worker", "gate"],
        ["api"],
        ["memories", "--tenant", "t", "--subject", "s"],
    ):
        done = memwarden(empty_pg_url, *args)
        output = done.stdout + done.stderr
        assert done.returncode == 3, (args, output)
        assert "never migrated" in output and "memwarden migrate" in output
        assert "Traceback" not in output
        assert len(output.strip().splitlines()) == 1
    engine = create_engine(empty_pg_url)
    assert inspect(engine).get_table_names() == []  # nobody migrated behind our back
    assert memwarden(empty_pg_url, "migrate").returncode == 0
    done = memwarden(empty_pg_url, "memories", "--tenant", "t", "--subject", "s")
    assert (done.returncode, done.stdout.strip()) == (0, "[]")
    require_current_schema(engine)
    engine.dispose()


@pytest.mark.postgres
def test_schema_version__an_older_revision_is_named_in_the_refusal(empty_pg_url: str) -> None:
    engine = create_engine(empty_pg_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")
    with pytest.raises(SchemaBehind) as behind:
        require_current_schema(engine)
    assert "at revision 0001" in str(behind.value)
    assert all(head in str(behind.value) for head in head_revisions())
    engine.dispose()


@pytest.mark.slow
def test_schema_version__an_embedded_sqlite_store_migrates_itself(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memwarden.cli",
            "memories",
            "--tenant",
            "t",
            "--subject",
            "s",
        ],
        env={
            **os.environ,
            "MEMWARDEN_DATABASE_URL": "",
            "MEMWARDEN_BROKER_URL": "",
            "MEMWARDEN_DATA_DIR": str(tmp_path),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    require_current_schema(create_engine(f"sqlite:///{tmp_path / 'memwarden.db'}"))


@pytest.mark.postgres
def test_schema_version__the_python_client_refuses_an_unmigrated_shared_database(
    empty_pg_url: str,
) -> None:
    from memwarden import Memory, Unavailable

    with pytest.raises(Unavailable) as refused:
        Memory(database_url=empty_pg_url, broker_url=REDIS_URL)
    assert refused.value.code == "schema_behind" and "memwarden migrate" in str(refused.value)
