"""``memwarden act`` and ``memwarden actions …`` as a user runs them (embedded store)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import turn_dict

pytestmark = pytest.mark.slow  # every test here starts a process (tests/conftest.py)


def cli(tmp_path: Path, *args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMWARDEN_DATA_DIR": str(tmp_path), "MEMWARDEN_LOG_LEVEL": "WARNING"}
    for name in ("MEMWARDEN_DATABASE_URL", "MEMWARDEN_BROKER_URL", "MEMWARDEN_API_KEY"):
        env.pop(name, None)
    if key:
        env["MEMWARDEN_API_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "memwarden.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def ok(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout) if done.stdout.strip().startswith(("{", "[")) else done.stdout


def test_cli__act_prints_the_receipt_and_affected_prints_the_repair_list(tmp_path: Path) -> None:
    turns = tmp_path / "turns.jsonl"
    turns.write_text(json.dumps(turn_dict("t1", "I use npm for every project", message_id="m1")))
    ok(cli(tmp_path, "ingest", str(turns)))
    agent = ok(
        cli(tmp_path, "principal", "--tenant", "t1", "--name", "bot", "--scope", "action:request")
    )["api_key"]
    [memory] = ok(cli(tmp_path, "recall", "--tenant", "t1", "--subject", "u1"))
    act = [
        "act",
        "--tenant",
        "t1",
        "--subject",
        "u1",
        "--intent",
        "package.install",
        "--params",
        '{"package": "chalk"}',
        "--uses",
        memory["memory_id"],
        "--idempotency-key",
        "k1",
    ]
    first = ok(cli(tmp_path, *act, key=agent))
    assert first["decision"] == "ALLOW"
    assert first["memory_versions"] == [f"{memory['memory_id']}:{memory['version']}"]
    assert ok(cli(tmp_path, *act, key=agent))["decision"] == "DUPLICATE"
    clash = cli(tmp_path, *act[:-4], "--params", '{"package": "koa"}', *act[-4:], key=agent)
    assert clash.returncode == 1
    assert json.loads(clash.stdout)["decision"] == "KEY_CONFLICT"
    ok(
        cli(
            tmp_path,
            "actions",
            "outcome",
            "--tenant",
            "t1",
            "--action",
            first["action_id"],
            "--status",
            "executed",
            "--external-ref",
            "job-5",
            key=agent,
        )
    )
    ok(cli(tmp_path, "revoke", "--tenant", "t1", "--message", "m1"))
    repair = ok(cli(tmp_path, "actions", "affected", "--tenant", "t1", "--message", "m1"))
    assert [(a["state"], a["external_ref"], a["owner"]) for a in repair["actions"]] == [
        ("needs_repair", "job-5", "bot")
    ]
    assert repair["memories"][0]["status"] == "revoked"
    block = ok(cli(tmp_path, "recall", "--tenant", "t1", "--subject", "u1", "--format", "context"))
    assert block == "(no remembered context)\n"


def test_cli__act_refuses_bad_input_clearly(tmp_path: Path) -> None:
    bad = cli(
        tmp_path,
        "act",
        "--tenant",
        "t1",
        "--subject",
        "u1",
        "--intent",
        "email.send",
        "--params",
        "{not json",
        "--idempotency-key",
        "k",
    )
    assert bad.returncode == 2
    assert "--params is not JSON" in bad.stdout + bad.stderr
