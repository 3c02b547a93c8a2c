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

from fastapi import APIRouter, FastAPI
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, Histogram, generate_latest
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memwarden.api.strict_json import StrictJsonRoute

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
def metrics() -> Response:
    """Prometheus text format; no credentials (scrape it from inside the cluster only)."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


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
