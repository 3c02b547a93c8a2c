"""The HTTP API over a real store (SQLite and PostgreSQL), through FastAPI's TestClient."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, select

from memwarden.api.app import create_app
from memwarden_shared.config import Settings
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import utcnow
from memwarden_shared.store.dialect import insert_ignore
from memwarden_shared.store.schema import receipts, tenant_policies
from memwarden_shared.store.tenant_scope import all_tenants
from tests.conftest import turn_dict

FIRST, SECOND = "I prefer vim.", "Actually, I prefer emacs."
PNPM = "I prefer pnpm for all my JavaScript projects."


@dataclass
class Keys:
    proposer: str
    reviewer: str
    reader: str
    admin: str
    other_reviewer: str  # memory:admin in another tenant
    other_tenant: str


def make_keys(engine: Engine, tenant: str) -> Keys:
    """A principal per role in ``tenant``, and an all-powerful one in a tenant of its own."""
    other = "other-" + uuid.uuid4().hex[:8]
    tag = uuid.uuid4().hex[:6]
    # Setup as an operator would (`memwarden principal`): principals of two tenants.
    with all_tenants("test setup: principals of two tenants"), engine.begin() as conn:

        def key(name: str, scopes: list[Scope], in_tenant: str = tenant) -> str:
            return create_principal(conn, f"{name}-{tag}", in_tenant, scopes)

        return Keys(
            proposer=key("proposer", [Scope.PROPOSE]),
            reviewer=key("reviewer", [Scope.REVIEW]),
            reader=key("reader", [Scope.READ]),
            admin=key("admin", [Scope.ADMIN]),
            other_reviewer=key("intruder", [Scope.ADMIN], other),
            other_tenant=other,
        )


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def set_policy(engine: Engine, tenant: str, profile: str) -> None:
    with engine.begin() as conn:
        insert_ignore(
            conn,
            tenant_policies,
            {"tenant_id": tenant, "profile": profile, "updated_at": utcnow()},
            ["tenant_id"],
        )


def api_client(engine: Engine, **settings: Any) -> TestClient:
    """Embedded mode (no broker): writes drain the outbox before they answer."""
    app = create_app(engine, settings=Settings(broker_url="", **settings), event_settle_seconds=0)
    return TestClient(app)


@pytest.fixture
def client(store: Engine) -> Iterator[TestClient]:
    with api_client(store) as c:
        yield c


@pytest.fixture
def keys(store: Engine, tenant: str) -> Keys:
    return make_keys(store, tenant)


def turn(tenant: str | None, text: str, message_id: str, **extra: Any) -> dict[str, Any]:
    body = turn_dict(tenant or "x", text, message_id=message_id, **extra)
    if tenant is None:
        del body["tenant_id"]
    return body


def post_turns(client: TestClient, key: str, *turns: dict[str, Any], extract: bool = True) -> Any:
    return client.post(
        "/v1/turns", headers=auth(key), json={"turns": list(turns), "extract": extract}
    )


def pending_replacement(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> dict[str, Any]:
    """vim is committed, then emacs (a replacement) waits for the owner: its receipt."""
    for i, (text, value) in enumerate([(FIRST, "vim"), (SECOND, "emacs")]):
        r = post_turns(
            client,
            keys.proposer,
            turn(None, text, f"m{i}", created_at=f"2026-05-0{i + 1}T09:00:00Z"),
            extract=False,
        )
        assert r.status_code == 200, r.text
        proposal = make_proposal(
            tenant, f"m{i}", text, normalized_key="preference.editor", value=value
        )
        r = client.post(
            "/v1/proposals", headers=auth(keys.proposer), json={"proposals": [proposal]}
        )
        assert r.status_code == 200, r.text
    [receipt] = r.json()["receipts"]
    assert receipt["decision"] == "CONFIRM_REPLACE"
    return dict(receipt)


def recalled(client: TestClient, key: str, subject: str = "u1", **params: Any) -> list[Any]:
    r = client.get(f"/v1/subjects/{subject}/recall", headers=auth(key), params=params)
    assert r.status_code == 200, r.text
    return [m["value"] for m in r.json()["memories"]]


def assert_problem(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert {"type", "title", "status"} <= body.keys() and body["status"] == status
    if code is not None:
        assert body["code"] == code, body
    return dict(body)


# --- authentication and tenancy -------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [None, "Basic dXNlcjpwYXNz", "Bearer ", "Bearer not-a-key", "Bearer mwk_unknown"],
)
def test_api__missing_or_bad_credentials_are_401_before_anything_else(
    sqlite_engine: Engine, tenant: str, header: str | None
) -> None:
    client = api_client(sqlite_engine)
    headers = {"Authorization": header} if header else {}
    calls = [
        ("GET", "/v1/review/pending", None),
        ("GET", "/v1/subjects/u1/recall", None),
        ("GET", "/v1/events", None),
        ("POST", "/v1/turns", {"turns": "not even valid"}),  # 401, not 422: auth comes first
        ("POST", "/v1/messages/m1/revoke", None),
        ("GET", "/v1/no-such-route", None),
    ]
    for method, path, body in calls:
        r = client.request(method, path, headers=headers, json=body)
        problem = assert_problem(r, 401, "unauthenticated")
        assert r.headers["www-authenticate"] == "Bearer"
        assert "dXNlcjpwYXNz" not in r.text and problem["detail"]


def test_api__a_principal_without_the_scope_is_403(
    client: TestClient, keys: Keys, tenant: str
) -> None:
    assert_problem(post_turns(client, keys.reader, turn(None, PNPM, "m1")), 403, "missing_scope")
    assert_problem(client.get("/v1/review/pending", headers=auth(keys.proposer)), 403)
    assert_problem(client.post("/v1/messages/m1/revoke", headers=auth(keys.proposer)), 403)
    assert_problem(client.post("/v1/messages/m1/forget", headers=auth(keys.reader)), 403)
    assert_problem(client.get("/v1/subjects/u1/recall", headers=auth(keys.reviewer)), 403)
    assert_problem(client.get("/v1/events", headers=auth(keys.proposer)), 403)
    r = client.post(
        "/v1/messages/m1/revisions", headers=auth(keys.reviewer), json={"text": "edited."}
    )
    assert_problem(r, 403)


def test_api__writing_into_another_tenant_is_403(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    r = post_turns(client, keys.proposer, turn(keys.other_tenant, PNPM, "m1"))
    assert_problem(r, 403, "cross_tenant")
    proposal = make_proposal(keys.other_tenant, "m1", PNPM, value="pnpm")
    r = client.post("/v1/proposals", headers=auth(keys.proposer), json={"proposals": [proposal]})
    assert_problem(r, 403, "cross_tenant")


def test_api__another_tenants_objects_are_404_and_its_lists_are_empty(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = pending_replacement(client, keys, tenant, make_proposal)
    intruder = auth(keys.other_reviewer)
    pid = receipt["proposal_id"]
    r = client.post(
        f"/v1/review/{pid}/approve",
        headers=intruder,
        json={"payload_hash": receipt["payload_hash"]},
    )
    assert_problem(r, 404, "unknown_proposal")
    assert_problem(client.post(f"/v1/review/{pid}/reject", headers=intruder), 404)
    assert_problem(client.get(f"/v1/proposals/{pid}/receipt", headers=intruder), 404)
    [memory] = client.get("/v1/subjects/u1/recall", headers=auth(keys.reader)).json()["memories"]
    versions = client.get(f"/v1/memories/{memory['memory_id']}/versions", headers=intruder)
    assert_problem(versions, 404, "unknown_memory")
    for verb in ("revoke", "forget"):
        assert_problem(client.post(f"/v1/messages/m0/{verb}", headers=intruder), 404)
    r = client.post("/v1/messages/m0/revisions", headers=intruder, json={"text": "I prefer nano."})
    assert_problem(r, 404, "unknown_message")
    assert client.get("/v1/review/pending", headers=intruder).json() == {"pending": []}
    assert recalled(client, keys.other_reviewer) == []
    assert client.get("/v1/events", headers=intruder).json()["events"] == []
    # and the owner's side is untouched
    assert recalled(client, keys.reader) == ["vim"]
    assert len(client.get("/v1/review/pending", headers=auth(keys.reviewer)).json()["pending"]) == 1


# --- ingest ---------------------------------------------------------------------------------


def test_api__ingest_is_idempotent_by_message_id(
    client: TestClient, keys: Keys, tenant: str
) -> None:
    batch = [turn(None, PNPM, "m1"), turn(tenant, "Thanks!", "m2")]
    r = post_turns(client, keys.proposer, *batch)
    assert r.json() == {"stored": 2, "duplicates": 0}
    r = post_turns(client, keys.proposer, *batch)
    assert r.json() == {"stored": 0, "duplicates": 2}
    assert recalled(client, keys.reader) == ["pnpm"]


def test_api__a_conflicting_duplicate_is_409_and_the_batch_stores_nothing(
    client: TestClient, keys: Keys, tenant: str
) -> None:
    post_turns(client, keys.proposer, turn(None, PNPM, "m1"))
    r = post_turns(
        client,
        keys.proposer,
        turn(None, "I prefer dark mode.", "m2"),
        turn(None, "I prefer yarn for all my JavaScript projects.", "m1"),
    )
    problem = assert_problem(r, 409, "message_conflict")
    assert "yarn" not in r.text and "dark" not in problem["detail"]
    assert post_turns(client, keys.proposer, turn(None, "I prefer dark mode.", "m2")).json() == {
        "stored": 1,
        "duplicates": 0,
    }


def test_api__oversize_text_and_batches_are_413_and_bad_bodies_422_without_echo(
    sqlite_engine: Engine, tenant: str
) -> None:
    client = api_client(sqlite_engine, max_text_chars=50, max_batch=3)
    keys = make_keys(sqlite_engine, tenant)
    r = post_turns(client, keys.proposer, turn(None, "x" * 51, "m1"))
    assert_problem(r, 413, "text_too_long")
    r = post_turns(client, keys.proposer, *[turn(None, "Hi.", f"m{i}") for i in range(4)])
    assert_problem(r, 413, "batch_too_large")
    r = client.post("/v1/messages/m1/revisions", headers=auth(keys.admin), json={"text": "y" * 51})
    assert_problem(r, 413, "text_too_long")
    secret = "sk-live-" + "Q" * 32
    bad = turn(None, secret, "m1", role="owner", password=secret)
    r = post_turns(client, keys.proposer, bad)
    problem = assert_problem(r, 422, "validation_failed")
    assert secret not in r.text and "owner" not in r.text and "password" not in r.text
    assert {(tuple(e["loc"]), e["type"]) for e in problem["errors"]} == {
        (("body", "turns", 0, "role"), "enum"),
        (("body", "turns", 0, "(unknown field)"), "extra_forbidden"),
    }
    r = client.post(
        "/v1/turns",
        headers={**auth(keys.proposer), "Content-Type": "application/json"},
        content=b'{"turns": [' + secret.encode(),
    )
    assert_problem(r, 422, "validation_failed")
    assert secret not in r.text


def test_api__a_raw_body_over_the_limit_is_413_whether_declared_or_streamed(
    sqlite_engine: Engine, tenant: str
) -> None:
    client = api_client(sqlite_engine, max_text_chars=10, max_batch=1)  # limit ≈ 68 KiB
    keys = make_keys(sqlite_engine, tenant)
    headers = {**auth(keys.proposer), "Content-Type": "application/json"}
    body = b'{"turns": [], "pad": "' + b"z" * 100_000 + b'"}'
    assert_problem(client.post("/v1/turns", headers=headers, content=body), 413, "too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while it streams
        yield body[:50_000]
        yield body[50_000:]

    assert_problem(client.post("/v1/turns", headers=headers, content=chunks()), 413, "too_large")
    r = client.get("/v1/subjects/u1%00/recall", headers=auth(keys.reader))
    assert_problem(r, 422, "validation_failed")
    r = post_turns(client, keys.proposer, turn(None, "I prefer\x00 pnpm.", "m1"))
    assert_problem(r, 422, "validation_failed")


# --- proposals, review, receipts ------------------------------------------------------------


def test_api__pending_shows_the_evidence_sentence_inside_its_message(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = pending_replacement(client, keys, tenant, make_proposal)
    [item] = client.get("/v1/review/pending", headers=auth(keys.reviewer)).json()["pending"]
    assert (item["proposal_id"], item["payload_hash"]) == (
        receipt["proposal_id"],
        receipt["payload_hash"],
    )
    assert (item["normalized_key"], item["value"], item["scope"]) == (
        "preference.editor",
        "emacs",
        {"kind": "user", "key": "u1"},
    )
    ev = item["evidence"]
    assert ev["message_text"][ev["start"] : ev["end"]] == SECOND
    assert (ev["message_id"], ev["revision"], ev["message_status"]) == ("m1", 1, "active")


def test_api__approval_is_bound_to_the_payload_hash(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = pending_replacement(client, keys, tenant, make_proposal)
    url = f"/v1/review/{receipt['proposal_id']}/approve"
    r = client.post(url, headers=auth(keys.reviewer), json={"payload_hash": "0" * 64})
    assert_problem(r, 409, "payload_hash_mismatch")
    assert recalled(client, keys.reader) == ["vim"]
    r = client.post(
        url, headers=auth(keys.reviewer), json={"payload_hash": receipt["payload_hash"]}
    )
    assert r.status_code == 200, r.text
    assert (r.json()["state"], r.json()["memory_version"]) == ("committed", 2)
    assert recalled(client, keys.reader) == ["emacs"]
    r = client.post(
        url, headers=auth(keys.reviewer), json={"payload_hash": receipt["payload_hash"]}
    )
    assert_problem(r, 409, "not_pending")
    memory_id = _memory_id(client, keys)
    versions = client.get(f"/v1/memories/{memory_id}/versions", headers=auth(keys.reader)).json()[
        "versions"
    ]
    assert [(v["version"], v["status"], v["value"], v["current"]) for v in versions] == [
        (1, "superseded", "vim", False),
        (2, "committed", "emacs", True),
    ]


def _memory_id(client: TestClient, keys: Keys) -> str:
    [memory] = client.get("/v1/subjects/u1/recall", headers=auth(keys.reader)).json()["memories"]
    return str(memory["memory_id"])


def test_api__reject_and_the_proposer_cannot_approve_its_own_candidate(
    client: TestClient, store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    keys = make_keys(store, tenant)
    with store.begin() as conn:
        both = create_principal(conn, f"both-{tenant}", tenant, [Scope.PROPOSE, Scope.REVIEW])
    receipt = pending_replacement(
        client, Keys(**{**keys.__dict__, "proposer": both}), tenant, make_proposal
    )
    pid = receipt["proposal_id"]
    r = client.post(
        f"/v1/review/{pid}/approve",
        headers=auth(both),
        json={"payload_hash": receipt["payload_hash"]},
    )
    assert_problem(r, 409, "self_approval")
    assert client.post(f"/v1/review/{pid}/reject", headers=auth(keys.reviewer)).json()["state"] == (
        "rejected"
    )
    assert client.get("/v1/review/pending", headers=auth(keys.reviewer)).json() == {"pending": []}


def test_api__a_receipt_is_the_stored_body_byte_for_byte(
    client: TestClient,
    store: Engine,
    keys: Keys,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
) -> None:
    post_turns(client, keys.proposer, turn(None, PNPM, "m1"), extract=False)
    proposal = make_proposal(tenant, "m1", PNPM, value="pnpm")
    r = client.post("/v1/proposals", headers=auth(keys.proposer), json={"proposals": [proposal]})
    [receipt] = r.json()["receipts"]
    assert receipt["decision"] == "COMMIT"
    with store.connect() as conn:
        stored = conn.execute(
            select(receipts.c.body).where(
                receipts.c.tenant_id == tenant, receipts.c.proposal_id == proposal["proposal_id"]
            )
        ).scalar_one()
    for key in (keys.proposer, keys.reader, keys.reviewer):
        r = client.get(f"/v1/proposals/{proposal['proposal_id']}/receipt", headers=auth(key))
        assert r.status_code == 200
        assert r.headers["content-type"] == "application/json"
        assert r.content == stored.encode("utf-8")
    replay = client.post(
        "/v1/proposals", headers=auth(keys.proposer), json={"proposals": [proposal]}
    ).json()["receipts"]
    assert replay == [receipt]  # an exact replay answers with the first receipt


def test_api__a_forged_proposal_id_gets_a_reject_receipt_and_no_stored_receipt(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    post_turns(client, keys.proposer, turn(None, PNPM, "m1"), extract=False)
    forged = make_proposal(tenant, "m1", PNPM, value="pnpm", proposal_id="ab" * 32)
    r = client.post("/v1/proposals", headers=auth(keys.proposer), json={"proposals": [forged]})
    [receipt] = r.json()["receipts"]
    assert (receipt["decision"], receipt["reasons"]) == ("REJECT", ["proposal_id_mismatch"])
    assert_problem(client.get(f"/v1/proposals/{'ab' * 32}/receipt", headers=auth(keys.reader)), 404)


# --- recall, revocation, supersede, forget --------------------------------------------------


def test_api__recall_then_revoke_then_recall_is_empty(
    client: TestClient, keys: Keys, tenant: str
) -> None:
    post_turns(
        client, keys.proposer, turn(None, PNPM, "m1"), turn(None, "我更喜欢深色主题。", "m2")
    )
    assert sorted(recalled(client, keys.reader)) == ["dark", "pnpm"]
    assert recalled(client, keys.reader, query="package manager", k=1) == ["pnpm"]
    assert recalled(client, keys.reader, scope_kind="session") == []
    r = client.post("/v1/messages/m1/revoke", headers=auth(keys.reviewer))
    assert r.json() == {"message_id": "m1", "revoked": True}
    assert recalled(client, keys.reader) == ["dark"]
    r = client.post("/v1/messages/m1/revoke", headers=auth(keys.admin))
    assert r.json() == {"message_id": "m1", "revoked": False}
    assert_problem(client.post("/v1/messages/nope/revoke", headers=auth(keys.reviewer)), 404)


def test_api__a_revision_stops_recall_until_the_same_sentence_stands_again(
    client: TestClient, keys: Keys, tenant: str
) -> None:
    post_turns(client, keys.proposer, turn(None, PNPM, "m1"))
    r = client.post(
        "/v1/messages/m1/revisions", headers=auth(keys.proposer), json={"text": "Hello there."}
    )
    assert r.json() == {"message_id": "m1", "revision": 2}
    assert recalled(client, keys.reader) == []
    r = client.post("/v1/messages/m1/revoke", headers=auth(keys.reviewer))
    r = client.post("/v1/messages/m1/revisions", headers=auth(keys.proposer), json={"text": PNPM})
    assert_problem(r, 409, "message_revoked")
    r = client.post("/v1/messages/m1/revisions", headers=auth(keys.proposer), json={"text": "  "})
    assert_problem(r, 422, "empty_text")


def test_api__forget_erases_and_suppresses(client: TestClient, keys: Keys, tenant: str) -> None:
    post_turns(client, keys.proposer, turn(None, PNPM, "m1"))
    memory_id = _memory_id(client, keys)
    r = client.post("/v1/messages/m1/forget", headers=auth(keys.reviewer))
    assert r.json() == {"message_id": "m1", "memory_versions_forgotten": 1}
    assert recalled(client, keys.reader) == []
    [version] = client.get(f"/v1/memories/{memory_id}/versions", headers=auth(keys.reader)).json()[
        "versions"
    ]
    assert (version["status"], version["value"]) == ("forgotten", None)
    post_turns(client, keys.proposer, turn(None, PNPM, "m2"))  # the same words again
    assert recalled(client, keys.reader) == []


# --- the event feed -------------------------------------------------------------------------


def test_api__the_event_feed_follows_commits_and_revocations_by_cursor(
    client: TestClient, keys: Keys, tenant: str
) -> None:
    reader = auth(keys.reader)
    start = client.get("/v1/events", headers=reader).json()
    assert start == {"events": [], "next_cursor": 0}
    post_turns(
        client, keys.proposer, turn(None, PNPM, "m1"), turn(None, "I prefer dark mode.", "m2")
    )
    page = client.get("/v1/events", headers=reader, params={"limit": 1}).json()
    [first] = page["events"]
    assert first["topic"] == "memory.committed" and page["next_cursor"] == first["id"]
    rest = client.get("/v1/events", headers=reader, params={"after": page["next_cursor"]}).json()
    [second] = rest["events"]
    assert second["topic"] == "memory.committed" and second["id"] > first["id"]
    committed = {e["payload"]["memory_id"] for e in (first, second)}
    client.post("/v1/messages/m1/revoke", headers=auth(keys.reviewer))
    tail = client.get("/v1/events", headers=reader, params={"after": rest["next_cursor"]}).json()
    assert [e["topic"] for e in tail["events"]] == ["memory.revoked"]
    assert tail["events"][0]["payload"]["memory_id"] in committed
    again = client.get("/v1/events", headers=reader, params={"after": tail["next_cursor"]}).json()
    assert again == {"events": [], "next_cursor": tail["next_cursor"]}


def test_api__the_event_feed_holds_back_rows_younger_than_the_settle_window(
    sqlite_engine: Engine, tenant: str
) -> None:
    app = create_app(sqlite_engine, settings=Settings(broker_url=""), event_settle_seconds=3600)
    client = TestClient(app)
    keys = make_keys(sqlite_engine, tenant)
    post_turns(client, keys.proposer, turn(None, PNPM, "m1"))
    assert recalled(client, keys.reader) == ["pnpm"]
    assert client.get("/v1/events", headers=auth(keys.reader)).json() == {
        "events": [],
        "next_cursor": 0,
    }


# --- health, docs, console ------------------------------------------------------------------


def test_api__health_readiness_openapi_and_console_need_no_key(sqlite_engine: Engine) -> None:
    client = api_client(sqlite_engine)
    assert client.get("/healthz").json() == {"status": "ok", "checks": {}}
    assert client.get("/readyz").json() == {
        "status": "ready",
        "checks": {"database": "ok", "broker": "not configured"},
    }
    schema = client.get("/openapi.json").json()
    assert "/v1/turns" in schema["paths"] and "ProblemDetail" in schema["components"]["schemas"]
    assert client.get("/docs").status_code == 200
    page = client.get("/console")
    assert page.status_code == 200 and "review console" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/console/assets/console.js").status_code == 200
    assert_problem(client.get("/console/assets/..%2F..%2Fapp.py"), 404)


def test_api__an_unhandled_error_is_a_500_problem_and_its_message_is_not_logged(
    sqlite_engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(sqlite_engine, settings=Settings(broker_url=""))

    def boom() -> None:
        leaked = "hunter" + "2"  # not in the source line the traceback quotes
        raise RuntimeError(f"INSERT … parameters: ('my password is {leaked}',)")

    app.add_api_route("/boom", boom)
    with caplog.at_level("ERROR"):
        r = TestClient(app).get("/boom")  # the barrier answers: nothing is re-raised
    assert_problem(r, 500, "internal_error")
    assert "RuntimeError" in caplog.text and "hunter2" not in caplog.text + r.text


def test_api__readiness_reports_an_unreachable_broker_but_stays_ready(
    sqlite_engine: Engine,
) -> None:
    # Writes go to the outbox and reads never touch Redis: a broker outage must not pull
    # every API pod, recall included.
    app = create_app(sqlite_engine, settings=Settings(broker_url="redis://127.0.0.1:9/0"))
    r = TestClient(app).get("/readyz")
    assert r.status_code == 200
    assert r.json()["checks"] == {"database": "ok", "broker": "unreachable"}
    assert "redis://" not in r.text


def test_api__readiness_fails_closed_when_the_database_is_unreachable() -> None:
    engine = create_engine("postgresql+psycopg://memwarden@127.0.0.1:9/none")
    app = create_app(engine, settings=Settings(broker_url=""))
    r = TestClient(app).get("/readyz")
    problem = assert_problem(r, 503, "not_ready")
    assert problem["detail"] == "unreachable: database" and "127.0.0.1:9" not in r.text
    assert TestClient(app).get("/healthz").status_code == 200  # alive, just not ready


def test_api__a_review_all_tenant_sends_extracted_candidates_to_the_console_queue(
    client: TestClient, store: Engine, keys: Keys, tenant: str
) -> None:
    set_policy(store, tenant, "review_all")
    post_turns(client, keys.proposer, turn(None, PNPM, "m1"))
    assert recalled(client, keys.reader) == []
    [item] = client.get("/v1/review/pending", headers=auth(keys.reviewer)).json()["pending"]
    assert (item["value"], item["decision"]) == ("pnpm", "NEEDS_CONFIRMATION")
