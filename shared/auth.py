"""Principals (SPEC §10): API keys stored hashed, each bound to one tenant and a set of scopes.

Everything fails closed: a missing, unknown or disabled key is refused, a principal never
acts outside its tenant, and a scope it lacks is never implied except by ``memory:admin``.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy import Connection, select

from shared.canonical import sha256_hex
from shared.db import utcnow
from shared.schema import principals

KEY_PREFIX = "mwk_"


class Scope(StrEnum):
    PROPOSE = "memory:propose"
    REVIEW = "memory:review"
    READ = "memory:read"
    ADMIN = "memory:admin"
    ACTION_REQUEST = "action:request"
    ACTION_APPROVE = "action:approve"


class Unauthenticated(PermissionError):
    """No valid credential (HTTP 401)."""


class Forbidden(PermissionError):
    """A valid principal asked for something outside its tenant or scopes (HTTP 403)."""


@dataclass(frozen=True)
class Principal:
    principal_id: str
    tenant_id: str
    scopes: frozenset[Scope]

    def allows(self, scope: Scope) -> bool:
        return scope in self.scopes or Scope.ADMIN in self.scopes


def create_principal(
    conn: Connection, principal_id: str, tenant_id: str, scopes: list[Scope]
) -> str:
    """Store a new principal; returns its API key, which is not stored and never shown again."""
    if not scopes:
        raise ValueError("a principal needs at least one scope")
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    conn.execute(
        principals.insert().values(
            principal_id=principal_id,
            tenant_id=tenant_id,
            key_hash=sha256_hex(key),
            scopes=json.dumps(sorted(s.value for s in scopes)),
            created_at=utcnow(),
        )
    )
    return key


def authenticate(conn: Connection, api_key: str | None) -> Principal:
    if not api_key or not api_key.startswith(KEY_PREFIX):
        raise Unauthenticated("missing or malformed API key")
    row = conn.execute(
        select(principals).where(principals.c.key_hash == sha256_hex(api_key))
    ).first()
    if row is None or row.disabled_at is not None:
        raise Unauthenticated("unknown or disabled API key")
    return Principal(
        row.principal_id, row.tenant_id, frozenset(Scope(s) for s in json.loads(row.scopes))
    )


def authorize(principal: Principal, scope: Scope, tenant_id: str) -> None:
    """Refuse unless ``principal`` holds ``scope`` in ``tenant_id``."""
    if principal.tenant_id != tenant_id:
        raise Forbidden("principal belongs to another tenant")
    if not principal.allows(scope):
        raise Forbidden(f"principal lacks {scope.value}")
