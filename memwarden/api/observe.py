"""``/metrics`` and access logs for the API.

An access line names the method, the route *template* (``/v1/subjects/{subject_id}/recall``,
not the path), the status and the duration: never a body, a query string, a header or a
path parameter, because those carry conversation text, recall queries, ids and keys.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from functools import cached_property

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memwarden.api.strict_json import StrictJsonRoute
from memwarden_usecases import operate

access_log = logging.getLogger("memwarden.api.access")

# Reads answer in milliseconds; an embedded write drains the pipeline and can take seconds.
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
REQUESTS = Histogram(
    "memwarden_api_request_duration_seconds",
    "API requests by method, route template and status, with their duration",
    ["method", "route", "status"],
    buckets=_BUCKETS,
)
UNMATCHED = "(unmatched)"  # 404s of unknown paths: one label, whatever was asked

router = APIRouter(route_class=StrictJsonRoute, include_in_schema=False)


@router.get("/metrics")
def metrics(request: Request) -> Response:
    """Prometheus text format; no credentials (scrape it from inside the cluster only)."""
    body = generate_latest()
    # The API runs no relay, so it has no relay gauges (issue 26.10: they were exported as
    # 0); it answers the backlog and delivery names read from the store at scrape time.
    if REGISTRY.get_sample_value("memwarden_outbox_backlog") is None:
        body += _store_gauges(request)
    return Response(body, media_type=CONTENT_TYPE_LATEST)


def _store_gauges(request: Request) -> bytes:
    state = request.app.state.memwarden
    try:
        found = operate.delivery_gauges(
            state.engine, redeliver_seconds=state.settings.redeliver_seconds
        )
    except Exception:  # the store is down: say nothing rather than a made-up 0
        access_log.warning("metrics: delivery gauges not read from the store", exc_info=True)
        return b""
    registry = CollectorRegistry()
    Gauge(
        "memwarden_outbox_backlog", "Unsent outbox rows, read from the store", registry=registry
    ).set(found["unsent"])
    Gauge(
        "memwarden_outbox_oldest_unsent_age_seconds",
        "Age of the oldest unsent outbox row (0 when none), read from the store",
        registry=registry,
    ).set(found["oldest_unsent_age_seconds"])
    delivery = Gauge(
        "memwarden_delivery",
        "Delivery health read from the store: unsent, in_flight, overdue, parked, dead_letters",
        ["state"],
        registry=registry,
    )
    for name in ("unsent", "in_flight", "overdue", "parked", "dead_letters"):
        delivery.labels(name).set(found[name])
    return generate_latest(registry)


class AccessLogMiddleware:
    """One INFO line and one histogram observation per HTTP request."""

    def __init__(self, app: ASGIApp, templates: Callable[[], list[str]]) -> None:
        self.app = app
        self._templates = templates

    @cached_property
    def _patterns(self) -> list[tuple[re.Pattern[str], str]]:
        return [(compile_path(template)[0], template) for template in self._templates()]

    def _route(self, scope: Scope) -> str:
        """The matched route's template; for a request refused before routing (401 from
        authentication, 413), the documented template its path fits."""
        matched = getattr(scope.get("route"), "path", None)
        if matched:
            return str(matched)
        path = str(scope.get("path", ""))
        for pattern, template in self._patterns:
            if pattern.match(path):
                return template
        return UNMATCHED

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client gets if the app dies before it answers

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, record_status)
        finally:
            seconds = time.perf_counter() - started
            route = self._route(scope)
            method = str(scope.get("method", ""))
            REQUESTS.labels(method, route, str(status)).observe(seconds)
            access_log.info("%s %s %d %.1fms", method, route, status, seconds * 1000)


def install(app: FastAPI) -> None:
    """Serve ``/metrics`` and log every request; call after every other middleware so the
    access line also covers refusals made by authentication and the error barrier."""
    app.include_router(router)
    app.add_middleware(AccessLogMiddleware, templates=lambda: list(app.openapi()["paths"]))
