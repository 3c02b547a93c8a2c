"""``memwarden outbox status|requeue``: re-publishing what a broker lost is safe."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from memwarden.cli import build_parser
from memwarden.cli.common import CliError
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.store.db import engine_scope, utcnow
from memwarden_shared.store.schema import current_memories, memory_versions, vector_index
from memwarden_usecases.pipeline import drain
from tests.conftest import turn_dict


def run(capsys: pytest.CaptureFixture[str], engine: Engine, *argv: str) -> dict[str, Any]:
    args = build_parser().parse_args(["outbox", *argv])
    with engine_scope(engine):
        assert args.handler(args) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def counts(engine: Engine) -> tuple[int, ...]:
    with engine.connect() as conn:
        return tuple(
            conn.execute(select(func.count()).select_from(table)).scalar_one()
            for table in (memory_versions, current_memories, vector_index)
        )


def test_outbox_requeue__republished_rows_change_nothing_downstream(
    sqlite_engine: Engine, tenant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before_publish = utcnow()
    turns = [
        turn_dict(tenant, "I prefer pnpm for all my JavaScript projects.", message_id="m1"),
        turn_dict(tenant, "我更喜欢深色主题。", message_id="m2"),
    ]
    ingest_turns([Turn.model_validate(t) for t in turns], engine=sqlite_engine)
    drain(sqlite_engine)
    settled = counts(sqlite_engine)
    assert settled[0] == 2
    assert run(capsys, sqlite_engine, "status")["unsent"] == 0

    since = before_publish.isoformat()
    dry = run(capsys, sqlite_engine, "requeue", "--since", since, "--dry-run")
    assert dry["requeued"] == 0 and int(str(dry["matched"])) >= 4  # turns, proposals, commits
    assert run(capsys, sqlite_engine, "status")["unsent"] == 0

    done = run(capsys, sqlite_engine, "requeue", "--since", since)
    assert done["requeued"] == dry["matched"]
    status = run(capsys, sqlite_engine, "status")
    assert status["unsent"] == done["requeued"]
    assert float(str(status["oldest_unsent_age_seconds"])) >= 0

    drain(sqlite_engine)  # every consumer sees its events a second time
    assert counts(sqlite_engine) == settled
    assert run(capsys, sqlite_engine, "status")["unsent"] == 0


def test_outbox_requeue__only_rows_sent_inside_the_window(
    sqlite_engine: Engine, tenant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest_turns([Turn.model_validate(turn_dict(tenant, "I prefer vim."))], engine=sqlite_engine)
    drain(sqlite_engine)
    later = (utcnow() + timedelta(minutes=5)).replace(tzinfo=None).isoformat()  # naive = UTC
    assert run(capsys, sqlite_engine, "requeue", "--since", later)["requeued"] == 0
    since, until = (utcnow() - timedelta(hours=h) for h in (2, 1))
    window = ["--since", since.isoformat(), "--until", until.isoformat()]
    assert run(capsys, sqlite_engine, "requeue", *window)["requeued"] == 0
    assert run(capsys, sqlite_engine, "requeue", "--since", since.isoformat())["requeued"] >= 2


def test_outbox_requeue__a_topic_limits_it_to_one_stage(
    sqlite_engine: Engine, tenant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    since = utcnow().isoformat()
    turns = [turn_dict(tenant, "I prefer vim.", message_id="m1")]
    ingest_turns([Turn.model_validate(t) for t in turns], engine=sqlite_engine)
    drain(sqlite_engine)
    gate_only = ["--since", since, "--topic", "proposal.submitted"]
    assert run(capsys, sqlite_engine, "requeue", *gate_only, "--dry-run")["matched"] == 1
    everything = run(capsys, sqlite_engine, "requeue", "--since", since, "--dry-run")
    assert int(str(everything["matched"])) == 3  # turn.received, proposal, memory.committed


def test_outbox_requeue__refuses_an_empty_window_and_a_bad_time(
    sqlite_engine: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(
        ["outbox", "requeue", "--since", "2026-05-02T00:00:00Z", "--until", "2026-05-01T00:00:00Z"]
    )
    with engine_scope(sqlite_engine), pytest.raises(CliError, match="--until"):
        args.handler(args)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["outbox", "requeue", "--since", "yesterday"])
    assert "not an ISO 8601 time" in capsys.readouterr().err
