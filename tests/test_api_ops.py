"""The API as operations see it: /metrics, access logs without content, /docs offline."""

from __future__ import annotations

import logging
import re

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Engine

from memwarden.api.app import create_app
from memwarden_shared.config import Settings
from memwarden_shared.state.auth import Scope, create_principal

SECRET_QUERY = "what-did-alice-say-about-her-bank"


@pytest.fixture
def client(sqlite_engine: Engine) -> TestClient:
    return TestClient(create_app(sqlite_engine, settings=Settings(broker_url="")))


def _sample(metrics_text: str, route: str, status: str) -> float:
    for family in text_string_to_metric_families(metrics_text):
        for sample in family.samples:
            if sample.name == "memwarden_api_request_duration_seconds_count" and (
                sample.labels == {"method": "GET", "route": route, "status": status}
            ):
                return float(sample.value)
    return 0.0


def test_api_ops__metrics_count_requests_by_route_template_not_by_path(
    client: TestClient, sqlite_engine: Engine
) -> None:
    with sqlite_engine.begin() as conn:
        key = create_principal(conn, "reader", "t1", [Scope.READ])
    route = "/v1/subjects/{subject_id}/recall"
    before = _sample(client.get("/metrics").text, route, "200")
    for subject in ("alice", "bob"):
        r = client.get(
            f"/v1/subjects/{subject}/recall",
            params={"query": SECRET_QUERY},
            headers={"Authorization": f"Bearer {key}"},
        )
        assert r.status_code == 200
    metrics = client.get("/metrics")
    assert metrics.headers["content-type"].startswith("text/plain")
    assert _sample(metrics.text, route, "200") == before + 2
    assert "alice" not in metrics.text and SECRET_QUERY not in metrics.text


def test_api_ops__access_log_names_the_route_and_status_never_bodies_or_queries(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    body = {"turns": [{"subject_id": "alice", "text": "my pin is 4921"}]}
    with caplog.at_level(logging.INFO, logger="memwarden.api.access"):
        client.post("/v1/turns", json=body, headers={"Authorization": "Bearer mwk_nope"})
        client.get(f"/v1/subjects/alice/recall?query={SECRET_QUERY}")
        client.get("/no/such/path/alice")
    lines = [r.getMessage() for r in caplog.records if r.name == "memwarden.api.access"]
    assert len(lines) == 3
    assert lines[0].startswith("POST /v1/turns 401 ")
    assert lines[1].startswith("GET /v1/subjects/{subject_id}/recall 401 ")
    assert lines[2].startswith("GET (unmatched) 404 ")
    logged = "\n".join(lines)
    for content in ("4921", "alice", SECRET_QUERY, "mwk_nope"):
        assert content not in logged


def test_api_ops__docs_load_swagger_ui_from_this_server_only(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sources and all(s.startswith("/docs/assets/") for s in sources), sources
    assert "cdn" not in page.text.lower() and "https://" not in page.text
    for source in sources:
        asset = client.get(source)
        assert asset.status_code == 200 and len(asset.content) > 100, source
    assert "SwaggerUIBundle" in client.get("/docs/assets/swagger-ui-bundle.js").text
    assert client.get("/docs/assets/..%2Findex.html").status_code == 404
    assert client.get("/docs/assets/index.j2").status_code == 404
    assert client.get("/redoc").status_code == 404  # FastAPI's ReDoc page is a CDN page
