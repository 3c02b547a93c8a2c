"""Staged rollout of an extractor version and the scopes held for review: the canary's
status, a monitor run, lifting a rollback; listing and clearing write-rate holds."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from memwarden_extractor.canary import require_runnable, watch
from memwarden_extractor.versions import UnknownVersion
from memwarden_shared.config import Settings, parse_canary
from memwarden_shared.observe.anomaly import clear_hold
from memwarden_shared.observe.rollout import clear_rollback, is_rolled_back
from memwarden_shared.state.auth import Principal, Scope, authorize
from memwarden_shared.state.holds import ALL_TENANTS, list_holds
from memwarden_shared.store.db import unit_of_work

__all__ = [
    "UnknownVersion",
    "canary_check",
    "canary_clear",
    "canary_status",
    "clear_write_hold",
    "holds",
    "require_runnable_canary",
]


def canary_status(engine: Engine, settings: Settings) -> dict[str, Any]:
    """The canary setting, where sessions are routed now, and every rollback (lifted too)."""
    canary = parse_canary(settings.extractor_canary)
    with unit_of_work(engine) as uow:
        rolled = [h.as_json() for h in list_holds(uow.conn, ALL_TENANTS, active_only=False)]
        routed = canary is not None and not is_rolled_back(uow.conn, canary.version)
    return {
        "canary": None
        if canary is None
        else {"version": canary.version, "percent": canary.percent},
        "routing": "canary" if routed else "stable",
        "rollbacks": rolled,
    }


def canary_check(engine: Engine, settings: Settings, now: datetime) -> dict[str, Any] | None:
    """Run the monitor now (it rolls the canary back when it is worse); None without one."""
    with unit_of_work(engine) as uow:
        check = watch(uow.conn, settings, now)
        uow.commit()
    return None if check is None else check.as_json()


def canary_clear(engine: Engine, version: str, *, by: str, now: datetime) -> bool:
    """Lift a rollback of ``version``; False when none stood."""
    with unit_of_work(engine) as uow:
        cleared = clear_rollback(uow.conn, version, by=by, now=now)
        uow.commit()
    return cleared


def require_runnable_canary(settings: Settings) -> None:
    """An extractor worker refuses to start with a canary it cannot run (UnknownVersion)."""
    require_runnable(settings)


def holds(engine: Engine, tenant_id: str | None, *, active_only: bool) -> list[dict[str, Any]]:
    """Holds as JSON (of one tenant, or all), the cleared ones too unless ``active_only``."""
    with unit_of_work(engine) as uow:
        return [h.as_json() for h in list_holds(uow.conn, tenant_id, active_only=active_only)]


def clear_write_hold(
    engine: Engine, principal: Principal, tenant_id: str, scope: str, *, now: datetime
) -> dict[str, Any] | None:
    """An owner or reviewer (``memory:review``; ``Forbidden`` otherwise) clears a write-rate
    hold; returns it as it stood, None when none did."""
    authorize(principal, Scope.REVIEW, tenant_id)
    with unit_of_work(engine) as uow:
        hold = clear_hold(uow.conn, tenant_id, scope, by=principal.principal_id, now=now)
        uow.commit()
    return None if hold is None else hold.as_json()
