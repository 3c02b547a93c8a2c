"""An interrupted ingest says what it stored and how to resume, and the resumed run stores
the rest exactly once (issue 26 item 8). A real process and a real Ctrl-C (SIGINT), sent
once the store shows progress; nothing here waits on a clock, only on progress."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # starts the CLI

LINES = 6_000
STALL_SECONDS = 120  # no batch stored for this long: the run is stuck, the test fails


def _env(data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "COLUMNS": "300",
        "MEMWARDEN_DATABASE_URL": "",
        "MEMWARDEN_BROKER_URL": "",
        "MEMWARDEN_DATA_DIR": str(data_dir),
    }


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
        except sqlite3.OperationalError:  # not migrated yet
            return 0


def test_ingest_interrupt__says_what_was_stored_and_resumes_exactly(tmp_path: Path) -> None:
    turns = tmp_path / "turns.jsonl"
    with turns.open("w") as out:
        for i in range(LINES):  # no message ids: a re-stored line would be a second message
            out.write(json.dumps({"user_id": f"u{i % 50}", "content": f"line {i}"}) + "\n")
    command = [sys.executable, "-m", "memwarden.cli", "ingest", str(turns)]
    flags = ["--tenant", "t", "--no-extract", "--batch", "20"]
    db = tmp_path / "data" / "memwarden.db"
    run = subprocess.Popen(
        [*command, *flags],
        env=_env(tmp_path / "data"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    started = time.monotonic()
    while _stored(db) == 0:  # wait for the first committed batch
        assert run.poll() is None, run.communicate()
        assert time.monotonic() - started < STALL_SECONDS, "no batch was ever stored"
        time.sleep(0.05)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=STALL_SECONDS)
    assert run.returncode == 130, err
    match = re.search(
        r"interrupted: (\d+) turns stored \(through line (\d+)\); resume with: (.+)", err
    )
    assert match, err
    reported, through, again = int(match[1]), int(match[2]), shlex.split(match[3])
    assert reported == through == _stored(db) and 0 < reported < LINES
    assert again[:3] == ["memwarden", "ingest", str(turns)]
    assert again[again.index("--from-line") + 1] == str(through + 1)
    seen = _stored(db)

    resumed = subprocess.run(
        [*command, *again[3:]],
        env=_env(tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=None,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["stored"] == LINES - seen
    assert _stored(db) == LINES
