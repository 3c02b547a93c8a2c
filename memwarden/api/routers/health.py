"""Liveness and readiness probes (no credentials; they reveal no data and no URLs)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text

from memwarden.api import problems
from memwarden.api.problems import problem_response
from memwarden.api.schemas import Health
from memwarden.api.state import ApiState, StateDep
from memwarden.api.strict_json import StrictJsonRoute

log = logging.getLogger("memwarden.api")

router = APIRouter(route_class=StrictJsonRoute, tags=["health"])

BROKER_TIMEOUT_SECONDS = 2  # whole seconds: kombu takes an int total timeout


@router.get("/healthz", response_model=Health, summary="The process is alive")
def healthz() -> Health:
    return Health(status="ok")


@router.get(
    "/readyz",
    response_model=Health,
    summary="The database answers (the broker is reported, not required)",
    responses=problems.responses(503),
)
def readyz(state: StateDep) -> Health | JSONResponse:
    """Ready when the database answers: every route needs it. The broker is only reported:
    writes commit to the outbox and the relay publishes later, and reads never touch it,
    so a Redis outage must not pull every API pod (recall included) out of service."""
    checks = {"database": _check(_database, state), "broker": "not configured"}
    if state.settings.broker_url:
        checks["broker"] = _check(_broker, state)
    if checks["database"] == "unreachable":
        return problem_response(503, "unreachable: database", code="not_ready")
    return Health(status="ready", checks=checks)


def _check(probe: Callable[[ApiState], None], state: ApiState) -> str:
    try:
        probe(state)
    except Exception as exc:  # the reason is logged; the URL (and its password) is not
        log.warning("readiness: %s failed (%s)", probe.__name__.lstrip("_"), type(exc).__name__)
        return "unreachable"
    return "ok"


def _database(state: ApiState) -> None:
    with state.engine.connect() as conn:
        conn.execute(text("SELECT 1"))


def _broker(state: ApiState) -> None:
    from kombu import Connection

    with Connection(state.settings.broker_url, connect_timeout=BROKER_TIMEOUT_SECONDS) as conn:
        conn.ensure_connection(
            max_retries=1, interval_start=0, interval_step=0, timeout=BROKER_TIMEOUT_SECONDS
        )
