"""``memwarden ingest`` streams its file (issue 13, item 4): bounded memory, batches, and the
bad-line policy replay shares (refuse by default, ``--skip-bad`` goes on and exits 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select

from memwarden_ingest.io import IngestRefused
from memwarden_ingest.stream import BatchStored, ingest_file
from memwarden_shared.store.schema import messages

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def turn_line(i: int, tenant: str | None = None, text: str = "I prefer pnpm.") -> str:
    row = {
        "subject_id": f"u{i % 7}",
        "session_id": f"s{i // 8}",
        "message_id": f"m{i}",
        "role": "user",
        "source": "user_message",
        "text": text,
        "created_at": (START + timedelta(seconds=i)).isoformat(),
    }
    if tenant:
        row["tenant_id"] = tenant
    return json.dumps(row, ensure_ascii=False)


def stored(engine: Engine, tenant: str) -> int:
    with engine.connect() as conn:
        return conn.execute(
            select(func.count()).select_from(messages).where(messages.c.tenant_id == tenant)
        ).scalar_one()


def test_ingest_file__a_bad_line_late_in_the_file_refuses_it_before_storing_anything(
    store: Engine, tenant: str, tmp_path: Path
) -> None:
    path = tmp_path / "turns.jsonl"
    lines = [turn_line(i, tenant) for i in range(1200)]
    lines[1100] = '{"text": "My PIN is 4921", "role": '  # cut off: not JSON
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(IngestRefused) as refused:
        ingest_file(path, engine=store, batch_size=100, extract=False)
    assert f"{path}:1101: not I-JSON: not_json" in str(refused.value)
    assert "4921" not in str(refused.value)
    assert stored(store, tenant) == 0


def test_ingest_file__skip_bad_stores_the_rest_in_batches_and_names_the_skipped(
    store: Engine, tenant: str, tmp_path: Path
) -> None:
    path = tmp_path / "turns.jsonl"
    lines = [turn_line(i, tenant) for i in range(250)]
    lines[3] = "[1, 2]"
    lines[200] = turn_line(200, tenant, text="x" * 50)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    batches: list[BatchStored] = []
    result = ingest_file(
        path,
        engine=store,
        batch_size=100,
        extract=False,
        skip_bad=True,
        max_text_chars=40,
        after_batch=batches.append,
    )
    assert (result.stored, result.skipped) == (248, 2)
    assert result.skipped_lines == [
        {"line": 4, "error": "not a JSON object"},
        {"line": 201, "error": "text has 50 characters, limit 40"},
    ]
    assert [b.turns for b in batches] == [100, 100, 48]
    assert batches[-1].bytes_read == path.stat().st_size
    assert stored(store, tenant) == 248
    again = ingest_file(
        path, engine=store, batch_size=100, extract=False, skip_bad=True, max_text_chars=40
    )
    assert (again.stored, again.duplicates) == (0, 248)


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEMWARDEN_DATA_DIR": str(tmp_path / "data"), "COLUMNS": "300"}
    env.pop("MEMWARDEN_DATABASE_URL", None)
    env.pop("MEMWARDEN_BROKER_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "memwarden.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_ingest_cli__skipped_lines_exit_1_and_refusal_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_text(turn_line(0) + "\nnot json\n" + turn_line(1) + "\n", encoding="utf-8")
    refused = cli(tmp_path, "ingest", str(path), "--tenant", "acme", "--no-extract")
    assert refused.returncode == 2 and refused.stdout == ""
    assert f"{path}:2: not I-JSON" in refused.stderr and "Traceback" not in refused.stderr
    skipped = cli(tmp_path, "ingest", str(path), "--tenant", "acme", "--no-extract", "--skip-bad")
    assert skipped.returncode == 1, skipped.stderr
    body = json.loads(skipped.stdout)
    assert (body["stored"], body["skipped"], body["skipped_lines"][0]["line"]) == (2, 1, 2)
    assert "1 bad line(s) skipped" in skipped.stderr
