"""Bounded work per request (issue 22 item 4): hostile bodies get answers of bounded size
and bounded error lists, an oversize batch is refused before any item is validated, every
route has a body limit, and a request that does not answer in time gets a 503.

The properties assert the bounds themselves (bytes of the answer, errors listed, the count
reported), not only the status codes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from memwarden.api.limits import SMALL_BODY_BYTES, TimeoutMiddleware, batch_body_bytes
from memwarden.api.problems import MAX_ERRORS
from memwarden_shared.config import Settings
from tests.test_api import api_client, auth, make_keys

MAX_BATCH = 5
# A problem document: 20 errors of at most a few 100-character loc parts, plus the rest.
MAX_PROBLEM_BYTES = 16 * 1024
BOUNDED = settings(
    max_examples=15,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
BATCH_ROUTES = [("/v1/turns", "turns"), ("/v1/proposals", "proposals")]

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.text(max_size=30).filter(lambda t: "\x00" not in t),
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.text(min_size=1, max_size=300), inner, max_size=6)
    ),
    max_leaves=40,
)


@pytest.fixture
def hostile(sqlite_engine: Engine, tenant: str) -> tuple[TestClient, dict[str, str]]:
    client = api_client(sqlite_engine, max_batch=MAX_BATCH, max_text_chars=50)
    keys = make_keys(sqlite_engine, tenant)
    return client, auth(keys.proposer)


def _problem(r: Any) -> dict[str, Any]:
    assert len(r.content) <= MAX_PROBLEM_BYTES, len(r.content)
    assert r.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = r.json()
    errors = body.get("errors")
    if errors is not None:
        assert len(errors) <= MAX_ERRORS
        assert body["error_count"] >= len(errors)
    return body


@given(size=st.integers(MAX_BATCH + 1, 600), item=JSON)
@BOUNDED
def test_bounds__an_oversize_batch_is_413_before_any_item_is_validated(
    hostile: tuple[TestClient, dict[str, str]], size: int, item: Any
) -> None:
    client, headers = hostile
    limit = batch_body_bytes(Settings(max_batch=MAX_BATCH, max_text_chars=50))
    for route, field in BATCH_ROUTES:
        content = json.dumps({field: [item] * size}).encode()
        r = client.post(
            route, headers={**headers, "Content-Type": "application/json"}, content=content
        )
        body = _problem(r)
        # within the body limit: counted and refused; past it: refused unread
        code = "batch_too_large" if len(content) <= limit else "too_large"
        assert (r.status_code, body["code"]) == (413, code), r.text
        assert "errors" not in body  # no item was validated, so none is listed


@given(items=st.lists(JSON, min_size=1, max_size=MAX_BATCH), extra=JSON)
@BOUNDED
def test_bounds__hostile_items_get_a_bounded_answer_and_a_capped_error_list(
    hostile: tuple[TestClient, dict[str, str]], items: list[Any], extra: Any
) -> None:
    client, headers = hostile
    for route, field in BATCH_ROUTES:
        r = client.post(route, headers=headers, json={field: items, "x": extra})
        assert r.status_code < 500, r.text
        if r.status_code >= 400:
            _problem(r)


def test_bounds__many_errors_are_the_first_n_and_their_count(
    hostile: tuple[TestClient, dict[str, str]],
) -> None:
    """Each turn breaks many rules (unknown keys, no subject, no text): far more errors than
    are listed."""
    client, headers = hostile
    broken = {f"unknown_{i}": i for i in range(MAX_ERRORS)}
    r = client.post("/v1/turns", headers=headers, json={"turns": [broken] * MAX_BATCH})
    body = _problem(r)
    assert r.status_code == 422
    assert len(body["errors"]) == MAX_ERRORS < body["error_count"]


def test_bounds__every_route_without_a_batch_has_the_small_body_limit(
    hostile: tuple[TestClient, dict[str, str]],
) -> None:
    client, headers = hostile
    pad = "z" * (SMALL_BODY_BYTES + 1)
    for route in ("/v1/curate/runs", "/v1/actions", "/v1/messages/m1/revisions"):
        r = client.post(route, headers=headers, content=json.dumps({"pad": pad}).encode())
        assert (r.status_code, _problem(r)["code"]) == (413, "too_large"), route


def _call(app: Any) -> list[dict[str, Any]]:
    """Run an ASGI app once with a bare GET; the messages it sent."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/v1/x", "headers": []}
    asyncio.run(app(scope, receive, send))
    return sent


def test_bounds__a_request_that_never_answers_gets_a_503() -> None:
    async def stuck(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.Event().wait()  # never set

    sent = _call(TimeoutMiddleware(stuck, seconds=0.05))
    assert sent[0]["status"] == 503
    assert json.loads(sent[1]["body"])["code"] == "request_timeout"


def test_bounds__a_request_that_answers_is_passed_through() -> None:
    async def quick(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    sent = _call(TimeoutMiddleware(quick, seconds=60))
    assert [m.get("status") for m in sent] == [204, None]
