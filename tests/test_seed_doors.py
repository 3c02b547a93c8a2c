"""The doors of issue 24 on an embedded store: `memwarden why|reads|switch|repair` in
process, and the HTTP routes of the commit switch and the repair queue with their scopes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from memwarden.cli import main
from memwarden_shared.config import get_settings
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import engine_for, migrate, unit_of_work
from tests.test_api import Keys, api_client, auth, make_keys, post_turns, turn


@pytest.fixture
def client(sqlite_engine: Engine) -> Iterator[TestClient]:
    with api_client(sqlite_engine) as c:
        yield c


@pytest.fixture
def keys(sqlite_engine: Engine, tenant: str) -> Keys:
    return make_keys(sqlite_engine, tenant)


def test_api_switch__reviewer_closes_only_admin_opens_with_a_reason(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    assert client.get("/v1/switch", headers=auth(keys.reader)).json()["commits"] == "flowing"
    r = client.post("/v1/switch/close", headers=auth(keys.reviewer), json={"reason": "drill"})
    assert r.status_code == 200 and r.json()["status"]["commits"] == "held"
    r = client.post(
        "/v1/switch/close", headers=auth(keys.reviewer), json={"reason": "x", "everyone": True}
    )
    assert r.status_code == 403  # the global switch is an admin's
    r = client.post("/v1/switch/open", headers=auth(keys.reviewer), json={"reason": "done"})
    assert r.status_code == 403
    r = client.post("/v1/switch/open", headers=auth(keys.admin), json={"reason": ""})
    assert r.status_code == 422  # a reason, always
    text = "I prefer vim."
    r = post_turns(client, keys.proposer, turn(None, text, "m-held"), extract=False)
    assert r.status_code == 200, r.text
    proposal = make_proposal(
        tenant, "m-held", text, normalized_key="preference.editor", value="vim"
    )
    r = client.post("/v1/proposals", headers=auth(keys.proposer), json={"proposals": [proposal]})
    [receipt] = r.json()["receipts"]
    assert (receipt["decision"], receipt["reasons"]) == ("QUARANTINE", ["commit_switch_closed"])
    held = client.get("/v1/switch/quarantine", headers=auth(keys.reviewer)).json()
    assert [q["would_be_decision"] for q in held["quarantined"]] == ["COMMIT"]
    r = client.post("/v1/switch/open", headers=auth(keys.admin), json={"reason": "drill over"})
    assert r.status_code == 200 and r.json()["changed"] is True
    assert r.json()["status"]["commits"] == "flowing"
    events = client.get("/v1/events", headers=auth(keys.reader)).json()["events"]
    topics = [e["topic"] for e in events]
    assert topics.count("commit_switch.closed") == 1 and topics.count("commit_switch.opened") == 1


def test_api_repairs__the_queue_and_its_refusals(client: TestClient, keys: Keys) -> None:
    r = client.get("/v1/repairs", headers=auth(keys.reader))
    assert r.status_code == 200 and r.json() == {"repairs": [], "open": 0}
    action = "act_" + "0" * 32
    r = client.post(f"/v1/repairs/{action}/close", headers=auth(keys.reviewer), json={"note": "x"})
    assert r.status_code == 409 and r.json()["code"] == "no_open_repair"
    r = client.post(f"/v1/repairs/{action}/close", headers=auth(keys.reader), json={"note": "x"})
    assert r.status_code == 403


def test_cli__why_reads_switch_and_repair_in_process(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "memwarden.db"
    monkeypatch.setenv("MEMWARDEN_DATABASE_URL", f"sqlite:///{db}")
    monkeypatch.setenv("MEMWARDEN_BROKER_URL", "")
    get_settings.cache_clear()
    engine = engine_for(f"sqlite:///{db}")
    migrate(engine)
    with unit_of_work(engine) as uow:
        admin_key = create_principal(uow.conn, "root", "acme", [Scope.ADMIN])
        uow.commit()
    turns = tmp_path / "turns.jsonl"
    turns.write_text(
        json.dumps(
            {
                "tenant_id": "acme",
                "subject_id": "ana",
                "session_id": "s1",
                "message_id": "m-1",
                "role": "user",
                "source": "user_message",
                "text": "I prefer pnpm for every project.",
                "created_at": "2026-05-01T09:00:00Z",
            }
        )
        + "\n"
    )
    try:
        assert main(["ingest", str(turns), "--tenant", "acme"]) == 0
        capsys.readouterr()
        assert main(["memories", "--tenant", "acme", "--subject", "ana"]) == 0
        [memory] = json.loads(capsys.readouterr().out)
        assert main(["recall", "--tenant", "acme", "--subject", "ana"]) == 0
        capsys.readouterr()
        assert main(["why", memory["memory_id"], "--tenant", "acme"]) == 0
        why = json.loads(capsys.readouterr().out)
        assert why["proposals"][0]["evidence"]["quote"] == "I prefer pnpm for every project."
        assert why["revoke"]["revoke_messages"][0]["cli"] == (
            "memwarden revoke --tenant acme --message m-1"
        )
        assert main(["reads", "--tenant", "acme", "--memory", memory["memory_id"]]) == 0
        assert json.loads(capsys.readouterr().out)["reads"][0]["principal_id"] == "operator"
        close = ["switch", "close", "--tenant", "acme", "--reason", "drill"]
        assert main([*close, "--api-key", admin_key]) == 0
        assert json.loads(capsys.readouterr().out)["status"]["commits"] == "held"
        reopen = ["switch", "open", "--tenant", "acme", "--reason", "over"]
        assert main([*reopen, "--api-key", admin_key]) == 0
        capsys.readouterr()
        assert main(["switch", "sweep", "--tenant", "acme"]) == 0
        assert json.loads(capsys.readouterr().out) == {"findings": [], "closed": []}
        assert main(["repair", "list", "--tenant", "acme"]) == 0
        assert json.loads(capsys.readouterr().out)["open"] == 0
    finally:
        engine.dispose()
        get_settings.cache_clear()
