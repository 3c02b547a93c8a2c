"""Property-based API tests from the app's own OpenAPI document (Schemathesis, in-process ASGI).

Two properties over every operation, with schema-valid and schema-violating requests alike:
no request ever gets a 5xx, and no request without credentials ever succeeds. Bounded: 25
examples per operation, a deadline per example, derandomised so a CI run is repeatable.

Schemathesis' own pytest loader for fixtures (``schemathesis.pytest.from_fixture``) touches a
pytest internal that pytest 9 removed, so the tests draw from each operation's public
Hypothesis strategy (``APIOperation.as_strategy``) instead.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from sqlalchemy import Engine, create_engine

from memwarden.api.app import create_app
from memwarden_shared.config import Settings
from memwarden_shared.state.auth import Scope, create_principal
from tests.test_api import turn

UNPROTECTED = ("/healthz", "/readyz")
BOUNDED = settings(
    max_examples=25,
    deadline=timedelta(seconds=5),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _operations() -> list[tuple[str, str]]:
    # Building the document needs no database: the engine is never connected here.
    document = create_app(create_engine("sqlite://")).openapi()
    return [
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    ]


OPERATIONS = _operations()


def _app(engine: Engine, tenant: str) -> tuple[Any, str]:
    with engine.begin() as conn:
        key = create_principal(conn, f"fuzz-{tenant}", tenant, [Scope.ADMIN])
    app = create_app(engine, settings=Settings(broker_url=""), event_settle_seconds=0)
    # Something to find, so that not every generated lookup is a miss.
    r = TestClient(app).post(
        "/v1/turns",
        headers={"Authorization": f"Bearer {key}"},
        json={"turns": [turn(None, "I prefer pnpm for all my JavaScript projects.", "m1")]},
    )
    assert r.status_code == 200, r.text
    return app, key


def _cases(app: Any, method: str, path: str) -> st.SearchStrategy[Any]:
    operation = schemathesis.openapi.from_asgi("/openapi.json", app).find_operation_by_path(
        method, path
    )
    assert operation is not None, (method, path)
    return st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )


def _describe(case: Any, response: Any) -> str:
    # Status and path only: generated bodies are noise in a failure message.
    return f"{case.method} {case.formatted_path} -> {response.status_code}"


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_api_schema__authenticated_requests_never_get_a_server_error(
    store: Engine, tenant: str, method: str, path: str
) -> None:
    app, key = _app(store, tenant)

    @BOUNDED
    @given(case=_cases(app, method, path))
    def run(case: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {key}"}
        response = case.call()
        assert response.status_code < 500, _describe(case, response)

    run()


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_api_schema__unauthenticated_requests_never_succeed(
    sqlite_engine: Engine, tenant: str, method: str, path: str
) -> None:
    app, _key = _app(sqlite_engine, tenant)

    @BOUNDED
    @given(case=_cases(app, method, path))
    def run(case: Any) -> None:
        case.headers = {
            k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"
        }
        response = case.call()
        assert response.status_code < 500, _describe(case, response)
        if path not in UNPROTECTED:
            assert response.status_code == 401, _describe(case, response)
            assert response.headers["content-type"][0].startswith("application/problem+json")

    run()
