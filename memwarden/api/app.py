"""The app factory: ``create_app(engine)`` wires routers, authentication, limits and errors."""

from __future__ import annotations

from importlib import metadata
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from sqlalchemy import Engine

from memwarden.api import observe, problems
from memwarden.api.limits import BodyLimitMiddleware, TimeoutMiddleware, batch_body_bytes
from memwarden.api.routers import (
    actions,
    console,
    curate,
    docs,
    events,
    health,
    ingest,
    memories,
    messages,
    repair,
    review,
    switch,
)
from memwarden.api.security import AuthenticationMiddleware
from memwarden.api.state import ApiState
from memwarden_shared.config import Settings, get_settings
from memwarden_shared.store.db import get_engine
from memwarden_shared.store.dialect import is_embedded_store

DESCRIPTION = """\
A memory write gate for AI agents. Backends send turns and external proposals; reviewers
confirm or reject pending candidates and revoke or forget; readers recall and follow the
event feed. Every `/v1` call needs `Authorization: Bearer mwk_…`; errors are RFC 9457
problem details. See docs/api.md.
"""

# PostgreSQL takes an outbox id at insert time, not at commit; see ApiState.
PG_EVENT_SETTLE_SECONDS = 2.0


def _version() -> str:
    try:
        return metadata.version("memwarden")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0"


def create_app(
    engine: Engine | None = None,
    *,
    settings: Settings | None = None,
    event_settle_seconds: float | None = None,
) -> FastAPI:
    """The HTTP API over ``engine`` (default: the configured store, already migrated).

    With no broker configured (embedded mode) every write drains the outbox in-process
    before it answers, as the CLI does. ``event_settle_seconds`` defaults to 0 on SQLite
    (a single writer: ids are committed in order) and to 2 s on PostgreSQL.
    """
    engine = engine or get_engine()
    settings = settings or get_settings()
    if event_settle_seconds is None:
        event_settle_seconds = 0.0 if is_embedded_store(engine) else PG_EVENT_SETTLE_SECONDS
    # docs_url/redoc_url off: FastAPI's pages load from a CDN; routers/docs.py serves /docs
    # from a pip package instead.
    app = FastAPI(
        title="memwarden",
        version=_version(),
        description=DESCRIPTION,
        docs_url=None,
        redoc_url=None,
    )
    app.state.memwarden = ApiState(engine, settings, event_settle_seconds)
    problems.install(app)
    for module in (
        ingest,
        review,
        messages,
        memories,
        events,
        actions,
        health,
        console,
        curate,
        switch,
        repair,
        docs,
    ):
        app.include_router(module.router)
    # Starlette runs the middleware added last first: authentication comes before anything
    # reads the body, so an unauthenticated caller only ever gets 401.
    app.add_middleware(BodyLimitMiddleware, max_bytes=batch_body_bytes(settings))
    app.add_middleware(TimeoutMiddleware, seconds=settings.request_timeout_seconds)
    app.add_middleware(AuthenticationMiddleware)
    app.add_middleware(problems.ErrorBarrierMiddleware)
    observe.install(app)  # outermost: the access line covers every refusal too
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    problem = problems.ProblemDetail.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(problem.pop("$defs", {}))
    components["ProblemDetail"] = problem
    app.openapi_schema = schema
    return schema
