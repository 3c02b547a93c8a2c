"""The doors to curate: ``memwarden curate …`` and ``/v1/curate/…``, end to end with real
principals (API keys) on SQLite; refusals come back as exit code 2 / HTTP 409."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from memwarden.cli import build_parser
from memwarden.cli.common import CliError
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import engine_scope
from tests.curate_helpers import sample_of, say_all, values
from tests.test_api import api_client, auth
from tests.test_curate import LINES


def keys(engine: Engine, tenant: str) -> dict[str, str]:
    with engine.begin() as conn:
        return {
            name: create_principal(conn, f"{name}-{tenant}", tenant, [scope])
            for name, scope in (
                ("planner", Scope.ADMIN),
                ("reviewer", Scope.REVIEW),
                ("attester", Scope.ADMIN),
            )
        }


def cli(capsys: pytest.CaptureFixture[str], engine: Engine, *argv: str, code: int = 0) -> Any:
    args = build_parser().parse_args(["curate", *argv])
    with engine_scope(engine):
        assert args.handler(args) == code
    return json.loads(capsys.readouterr().out)


def test_cli__snapshot_to_rollback_prints_run_stage_hash_and_counts(
    sqlite_engine: Engine, tenant: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    say_all(sqlite_engine, tenant, LINES)
    k = keys(sqlite_engine, tenant)
    before = values(sqlite_engine, tenant)
    snap = cli(
        capsys,
        sqlite_engine,
        "snapshot",
        "--tenant",
        tenant,
        "--subject",
        "u1",
        "--api-key",
        k["planner"],
    )
    run = snap["run_id"]
    assert list(snap)[:4] == ["run_id", "stage", "hash", "counts"]
    assert snap["stage"] == "snapshot" and snap["counts"]["sources"] == 10
    planned = cli(capsys, sqlite_engine, "plan", "--run", run, "--api-key", k["planner"])
    assert planned["stage"] == "planned" and planned["hash"] == planned["plan_hash"]
    assert (
        cli(capsys, sqlite_engine, "check", "--run", run, "--api-key", k["planner"])["problems"]
        == []
    )
    with pytest.raises(CliError, match="planner cannot review"):
        cli(capsys, sqlite_engine, "review", "--run", run, "--api-key", k["planner"])
    cli(capsys, sqlite_engine, "review", "--run", run, "--api-key", k["reviewer"])
    statement = tmp_path / "statement.json"
    statement.write_text(
        json.dumps(
            {
                "plan_hash": planned["plan_hash"],
                "saw_catalogue": True,
                "sampled": sample_of(sqlite_engine, tenant, run),
            }
        )
    )
    with pytest.raises(CliError, match="no attestation"):
        cli(capsys, sqlite_engine, "publish", "--run", run, "--api-key", k["planner"])
    attested = cli(
        capsys,
        sqlite_engine,
        "attest",
        "--run",
        run,
        "--statement",
        str(statement),
        "--api-key",
        k["attester"],
    )
    assert attested["stage"] == "attested" and attested["attestations"][0]["valid"]
    published = cli(capsys, sqlite_engine, "publish", "--run", run, "--api-key", k["planner"])
    assert published["stage"] == "published" and values(sqlite_engine, tenant) != before
    assert published["outcome"]["read_block_seconds"] >= 0
    with pytest.raises(CliError, match="publishes once"):
        cli(capsys, sqlite_engine, "publish", "--run", run, "--api-key", k["planner"])
    back = cli(capsys, sqlite_engine, "rollback", "--run", run, "--api-key", k["planner"])
    assert back["stage"] == "rolled_back" and values(sqlite_engine, tenant) == before
    status = cli(capsys, sqlite_engine, "status", "--run", run, "--api-key", k["reviewer"])
    assert [e["entry"] for e in status["ledger"]] == ["batch"]
    assert status["counts"]["writes"]["rollback_commit"] >= 1
    args = build_parser().parse_args(["curate", "export", "--run", run, "--api-key", k["reviewer"]])
    with engine_scope(sqlite_engine):
        assert args.handler(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert json.loads(lines[0])["header"]["notice"].startswith("untrusted historical data")
    assert len(lines) == 11


def test_api__the_same_stages_over_http_with_refusals_as_409(
    sqlite_engine: Engine, tenant: str
) -> None:
    say_all(sqlite_engine, tenant, LINES)
    k = keys(sqlite_engine, tenant)
    before = values(sqlite_engine, tenant)
    with api_client(sqlite_engine) as c:
        r = c.post("/v1/curate/runs", headers=auth(k["planner"]), json={"subjects": ["u1"]})
        assert r.status_code == 200, r.text
        run = r.json()["run_id"]
        base = f"/v1/curate/runs/{run}"
        planned = ok(c, "post", f"{base}/plan", k["planner"], {"rewriter": "rules"})
        assert ok(c, "post", f"{base}/check", k["reviewer"])["problems"] == []
        r = c.post(f"{base}/review", headers=auth(k["planner"]), json={})
        assert r.status_code == 409 and r.json()["code"] == "reviewer_is_planner"
        ok(c, "post", f"{base}/review", k["reviewer"], {"approve": True})
        r = c.post(f"{base}/publish", headers=auth(k["planner"]))
        assert r.status_code == 409 and r.json()["code"] == "not_attested"
        statement = {
            "plan_hash": planned["plan_hash"],
            "saw_catalogue": True,
            "sampled": sample_of(sqlite_engine, tenant, run),
        }
        r = c.post(f"{base}/attest", headers=auth(k["planner"]), json=statement)
        assert r.status_code == 409 and r.json()["code"] == "attester_is_planner"
        ok(c, "post", f"{base}/attest", k["attester"], statement)
        published = ok(c, "post", f"{base}/publish", k["planner"])
        assert published["stage"] == "published"
        r = c.post(f"{base}/publish", headers=auth(k["planner"]))
        assert r.status_code == 409 and r.json()["code"] == "already_published"
        assert ok(c, "post", f"{base}/rollback", k["planner"])["stage"] == "rolled_back"
        assert values(sqlite_engine, tenant) == before
        r = c.get(f"{base}/snapshot.jsonl", headers=auth(k["reviewer"]))
        assert r.status_code == 200 and len(r.text.splitlines()) == 11
        other = keys(sqlite_engine, tenant + "-x")["planner"]
        assert c.get(base, headers=auth(other)).status_code == 404  # another tenant's run


def ok(c: TestClient, method: str, path: str, key: str, body: Any = None) -> Any:
    r = c.request(method.upper(), path, headers=auth(key), json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_api__recall_during_a_publish_block_says_why_it_is_empty(
    sqlite_engine: Engine, tenant: str
) -> None:
    from memwarden_shared.state.curate_block import lift_blocks, set_blocks
    from memwarden_shared.store.db import utcnow

    say_all(sqlite_engine, tenant, LINES)
    with sqlite_engine.begin() as conn:
        read = create_principal(conn, f"reader-{tenant}", tenant, [Scope.READ])
        set_blocks(conn, tenant, ["u1"], "run-x", utcnow())
    with api_client(sqlite_engine) as c:
        r = c.get("/v1/subjects/u1/recall", headers=auth(read))
        assert r.status_code == 200
        assert r.json()["memories"] == [] and r.json()["protected_reason"] == "curate_publishing"
        assert c.get("/v1/subjects/u2/recall", headers=auth(read)).json()["memories"]
        with sqlite_engine.begin() as conn:
            lift_blocks(conn, tenant, "run-x")
        r = c.get("/v1/subjects/u1/recall", headers=auth(read))
        assert r.json()["memories"] and r.json()["protected_reason"] is None
