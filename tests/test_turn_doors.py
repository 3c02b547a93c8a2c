"""The one turn format at each door (issue 26 item 2): the same minimal OpenAI-style turn
is stored with the same defaults by the client, ``memwarden ingest`` and ``POST /v1/turns``;
and ingest refuses an unreachable broker unless ``--store-only`` (item 5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from memwarden import Memory
from memwarden.api.app import create_app
from memwarden_shared.config import Settings
from memwarden_shared.contract.turn_lines import parse_line
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import engine_for, migrate
from memwarden_shared.store.schema import messages

DEFAULTS = {"session_id": "default", "role": "user", "source": "user_message"}


def _stored(engine: Engine, tenant: str) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(select(messages).where(messages.c.tenant_id == tenant)).all()
    return [{k: getattr(r, k) for k in DEFAULTS} for r in rows]


def test_turn_doors__client_ingest_and_api_store_the_same_minimal_turn(tmp_path: Path) -> None:
    subject, text = "u-" + uuid.uuid4().hex[:6], "I prefer bun for my scripts."
    minimal = {"user_id": subject, "role": "user", "content": text}

    with Memory(data_dir=tmp_path / "client", tenant="t-client") as memory:
        memory.add(minimal, extract=False)
    client_rows = _stored(
        engine_for(f"sqlite:///{tmp_path / 'client' / 'memwarden.db'}"), "t-client"
    )

    line = parse_line(json.dumps(minimal).encode(), "t-ingest")
    assert not isinstance(line, str), line
    ingest_row = {k: str(getattr(line, k)) for k in DEFAULTS}

    api_engine = engine_for(f"sqlite:///{tmp_path / 'api' / 'memwarden.db'}")
    migrate(api_engine)
    with api_engine.begin() as conn:
        key = create_principal(conn, "doors", "t-api", [Scope.ADMIN])
    app = create_app(api_engine, settings=Settings(broker_url=""), event_settle_seconds=0)
    with TestClient(app) as http:
        answer = http.post(
            "/v1/turns",
            headers={"Authorization": f"Bearer {key}"},
            json={"turns": [minimal], "extract": False},
        )
    assert answer.status_code == 200, answer.text
    api_rows = _stored(api_engine, "t-api")

    assert client_rows == api_rows == [DEFAULTS]
    assert ingest_row == DEFAULTS


def _ingest(tmp_path: Path, database_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    lines = tmp_path / "turns.jsonl"
    lines.write_text(
        "".join(
            json.dumps({"user_id": "u1", "role": "user", "content": f"note {i}"}) + "\n"
            for i in range(3)
        )
    )
    return subprocess.run(
        [sys.executable, "-m", "memwarden.cli", "ingest", str(lines), "--tenant", "t", *extra],
        env={
            **os.environ,
            "COLUMNS": "300",
            "MEMWARDEN_DATABASE_URL": database_url,
            "MEMWARDEN_BROKER_URL": "redis://127.0.0.1:1/0",  # nothing listens there
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.postgres
def test_turn_doors__ingest_refuses_an_unreachable_broker_unless_store_only(
    tmp_path: Path, pg_engine: Engine
) -> None:
    url = pg_engine.url.render_as_string(hide_password=False)
    refused = _ingest(tmp_path, url)
    assert refused.returncode == 3, refused.stderr
    assert "broker is unreachable" in refused.stderr and "--store-only" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert refused.stdout == ""  # nothing stored, nothing reported

    stored = _ingest(tmp_path, url, "--store-only")
    assert stored.returncode == 0, stored.stderr
    assert "warning" in stored.stderr and "outbox" in stored.stderr
    assert json.loads(stored.stdout)["stored"] == 3
