"""``memwarden`` exit codes in real subprocesses: one line on stderr, never a traceback
(issue 13, item 2). 0 ok, 1 refused, 2 usage or input error, 3 unavailable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)

BAD_PG = "postgresql+psycopg://nobody:s3cr3tpw@127.0.0.1:1/x"


def memwarden(
    tmp_path: Path, *args: str, database_url: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden.cli", *args],
        env={
            **os.environ,
            "COLUMNS": "300",
            "MEMWARDEN_DATABASE_URL": database_url,
            "MEMWARDEN_BROKER_URL": "",
            "MEMWARDEN_DATA_DIR": str(tmp_path / "data"),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize(
    "args",
    [
        ("memories", "--tenant", "t", "--subject", "s"),
        ("migrate",),
        ("pending", "--tenant", "t", "--api-key", "k"),
    ],
)
def test_cli_exit__an_unreachable_database_is_3_without_the_url(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    done = memwarden(tmp_path, *args, database_url=BAD_PG)
    line = one_line(done)
    assert done.returncode == 3, line
    assert "unavailable" in line
    assert "s3cr3tpw" not in line and "nobody" not in line and "127.0.0.1" not in line


@pytest.mark.parametrize("scheme", ["nosuchdb", "mysql", "mysql+pymysql", "oracle"])
def test_cli_exit__a_database_url_of_an_unsupported_kind_is_2_in_one_line(
    tmp_path: Path, scheme: str
) -> None:
    # issue 26 item 5: a configuration the user must change, not an outage (was exit 3, and
    # "internal error (ModuleNotFoundError)" with exit 1 for mysql://)
    done = memwarden(
        tmp_path,
        "memories",
        "--tenant",
        "t",
        "--subject",
        "s",
        database_url=f"{scheme}://user:s3cr3tpw@host/x",
    )
    line = one_line(done)
    assert done.returncode == 2, line
    assert "unsupported database URL scheme" in line and "PostgreSQL" in line
    assert "s3cr3tpw" not in line and "host" not in line.replace("MEMWARDEN", "")


@pytest.mark.postgres
def test_cli_exit__a_postgres_url_is_accepted(tmp_path: Path, pg_engine: Any) -> None:
    url = pg_engine.url.render_as_string(hide_password=False)
    heroku_style = "postgres://" + url.split("://", 1)[1]
    done = memwarden(
        tmp_path, "memories", "--tenant", "t", "--subject", "s", database_url=heroku_style
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_cli_exit__input_errors_are_2(tmp_path: Path) -> None:
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes('{"text": "caf\xe9"}\n'.encode("latin-1"))
    for args in (
        ("ingest", str(latin1), "--tenant", "t"),
        ("ingest", str(tmp_path), "--tenant", "t"),  # a directory
        ("ingest", str(tmp_path / "missing.jsonl"), "--tenant", "t"),
        ("submit", str(tmp_path / "missing.jsonl")),
        ("supersede", "--tenant", "t", "--message", "m", "--file", str(latin1)),
        ("memories", "--tenant", "t"),  # a required flag missing
        ("no-such-command",),
    ):
        done = memwarden(tmp_path, *args)
        line = one_line(done)
        assert done.returncode == 2, (args, line)
        assert line.startswith("error:"), line


def test_cli_exit__version_and_help(tmp_path: Path) -> None:
    done = memwarden(tmp_path, "--version")
    assert done.returncode == 0 and done.stdout.startswith("memwarden ")
    done = memwarden(tmp_path, "--help")
    assert done.returncode == 0
    assert "3  unavailable" in done.stdout
