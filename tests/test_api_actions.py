"""The action gate over HTTP (SPEC §14), through FastAPI's TestClient on both backends."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from memwarden_shared.state.auth import Scope, create_principal
from tests.test_api import api_client, auth, turn


@dataclass
class ActionKeys:
    agent: str
    approver: str
    reader: str
    owner: str  # memory:admin: ingests and revokes


def keys(engine: Engine, tenant: str) -> ActionKeys:
    tag = uuid.uuid4().hex[:6]
    with engine.begin() as conn:

        def key(name: str, scopes: list[Scope]) -> str:
            return create_principal(conn, f"{name}-{tag}", tenant, scopes)

        return ActionKeys(
            agent=key("agent", [Scope.ACTION_REQUEST]),
            approver=key("approver", [Scope.ACTION_APPROVE]),
            reader=key("reader", [Scope.READ]),
            owner=key("owner", [Scope.ADMIN]),
        )


@pytest.fixture
def client(store: Engine) -> Iterator[TestClient]:
    with api_client(store) as c:
        yield c


def memory_id_of(client: TestClient, k: ActionKeys) -> str:
    r = client.get("/v1/subjects/u1/recall", headers=auth(k.owner))
    assert r.status_code == 200, r.text
    return str(r.json()["memories"][0]["memory_id"])


def body(memory: str, key: str, **extra: object) -> dict[str, object]:
    return {
        "subject_id": "u1",
        "intent": "package.install",
        "params": {"package": "express"},
        "uses": [memory],
        "idempotency_key": key,
        **extra,
    }


def test_api_actions__allow_duplicate_conflict_outcome_and_repair(
    client: TestClient, store: Engine, tenant: str
) -> None:
    k = keys(store, tenant)
    r = client.post(
        "/v1/turns",
        headers=auth(k.owner),
        json={"turns": [turn(None, "I use npm for every project", "m1")]},
    )
    assert r.status_code == 200, r.text
    memory = memory_id_of(client, k)
    first = client.post("/v1/actions", headers=auth(k.agent), json=body(memory, "k1"))
    assert first.status_code == 200, first.text
    assert first.json()["decision"] == "ALLOW"
    again = client.post("/v1/actions", headers=auth(k.agent), json=body(memory, "k1"))
    assert (again.json()["decision"], again.json()["action_id"]) == (
        "DUPLICATE",
        first.json()["action_id"],
    )
    clash = client.post(
        "/v1/actions", headers=auth(k.agent), json=body(memory, "k1", params={"package": "koa"})
    )
    assert clash.status_code == 409
    assert clash.json()["code"] == "key_conflict"
    action = first.json()["action_id"]
    done = client.post(
        f"/v1/actions/{action}/outcome",
        headers=auth(k.agent),
        json={"status": "executed", "external_ref": "job-1"},
    )
    assert done.json()["state"] == "executed"
    r = client.post("/v1/messages/m1/revoke", headers=auth(k.owner))
    assert r.status_code == 200, r.text
    listed = client.get("/v1/actions", params={"memory": memory}, headers=auth(k.reader))
    assert [(a["state"], a["outcome"]["external_ref"]) for a in listed.json()["actions"]] == [
        ("needs_repair", "job-1")
    ]
    feed = client.get("/v1/events", headers=auth(k.reader)).json()["events"]
    assert [e["payload"]["external_ref"] for e in feed if e["topic"] == "action.needs_repair"] == [
        "job-1"
    ]


def test_api_actions__approval_needs_another_principal_with_action_approve(
    client: TestClient, store: Engine, tenant: str
) -> None:
    k = keys(store, tenant)
    asked = client.post(
        "/v1/actions",
        headers=auth(k.agent),
        json={
            "subject_id": "u1",
            "intent": "deploy.production",
            "params": {"service": "api"},
            "idempotency_key": "d1",
        },
    ).json()
    assert asked["decision"] == "NEEDS_APPROVAL"
    url = f"/v1/actions/{asked['action_id']}/approve"
    hashed = {"request_hash": asked["request_hash"]}
    assert client.post(url, headers=auth(k.agent), json=hashed).status_code == 403
    wrong = client.post(url, headers=auth(k.approver), json={"request_hash": "0" * 64})
    assert wrong.status_code == 409
    ok = client.post(url, headers=auth(k.approver), json=hashed)
    assert ok.status_code == 200, ok.text
    assert ok.json()["state"] == "allowed"


def test_api_actions__reader_is_denied_not_authorised_and_unknown_intent_is_denied(
    client: TestClient, store: Engine, tenant: str
) -> None:
    k = keys(store, tenant)
    denied = client.post(
        "/v1/actions",
        headers=auth(k.reader),
        json={"subject_id": "u1", "intent": "email.send", "idempotency_key": "r1"},
    )
    assert (denied.json()["decision"], denied.json()["reasons"]) == ("DENY", ["not_authorised"])
    unknown = client.post(
        "/v1/actions",
        headers=auth(k.agent),
        json={"subject_id": "u1", "intent": "rocket.launch", "idempotency_key": "r2"},
    )
    assert unknown.status_code == 200, unknown.text
    assert (unknown.json()["decision"], unknown.json()["reasons"]) == ("DENY", ["unknown_intent"])
    missing = client.get("/v1/actions/act_" + "0" * 32, headers=auth(k.agent))
    assert missing.status_code == 404
