"""API principals (docs/api.md, authentication): create one (its key is shown once; only
its sha256 is stored), list a tenant's, disable one, rotate a key. One transaction each."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from memwarden_shared.state.auth import (
    PrincipalExists,
    Scope,
    UnknownPrincipal,
    create_principal,
    disable_principal,
    list_principals,
    rotate_key,
)

__all__ = ["PrincipalExists", "UnknownPrincipal", "create", "disable", "listing", "rotate"]


def create(engine: Engine, name: str, tenant_id: str, scopes: list[Scope]) -> str:
    """A new principal; returns its API key. :class:`PrincipalExists` for a taken name."""
    with engine.begin() as conn:
        return create_principal(conn, name, tenant_id, scopes)


def listing(engine: Engine, tenant_id: str) -> list[dict[str, Any]]:
    """A tenant's principals by name: scopes and dates, never a key or its hash."""
    with engine.connect() as conn:
        return list_principals(conn, tenant_id)


def disable(engine: Engine, tenant_id: str, name: str) -> bool:
    """Refuse the principal's key from now on; False when it was disabled already."""
    with engine.begin() as conn:
        return disable_principal(conn, tenant_id, name)


def rotate(engine: Engine, tenant_id: str, name: str) -> str:
    """A new key for an enabled principal; the old one is refused from the commit on."""
    with engine.begin() as conn:
        return rotate_key(conn, tenant_id, name)
