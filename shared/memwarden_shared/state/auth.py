"""Principals (SPEC §10): API keys stored hashed, each bound to one tenant and a set of scopes.

Everything fails closed: a missing, unknown or disabled key is refused, a principal never
acts outside its tenant, and a scope it lacks is never implied except by ``memory:admin``.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import Connection, Engine, func, select, update
from sqlalchemy.exc import IntegrityError

from memwarden_shared.contract.canonical import sha256_hex
from memwarden_shared.store.db import utcnow
from memwarden_shared.store.dialect import is_embedded_store, lock_rows
from memwarden_shared.store.rls import allow_key_lookup
from memwarden_shared.store.schema import principals

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


class PrincipalExists(ValueError):
    """The tenant already has a principal of that name."""


class UnknownPrincipal(LookupError):
    """No principal of that name in the tenant (or it is disabled, for a key rotation)."""


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
    key = _new_key()
    row = {
        "principal_id": principal_id,
        "tenant_id": tenant_id,
        "key_hash": sha256_hex(key),
        "scopes": json.dumps(sorted(s.value for s in scopes)),
        "created_at": utcnow(),
    }
    # A savepoint: a duplicate name fails this insert only, not the caller's transaction.
    try:
        with conn.begin_nested():
            conn.execute(principals.insert().values(**row))
    except IntegrityError:
        raise PrincipalExists(
            f"tenant {tenant_id} already has a principal named {principal_id}"
        ) from None
    return key


def _new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def list_principals(conn: Connection, tenant_id: str) -> list[dict[str, Any]]:
    """A tenant's principals, by name: scopes and dates, never a key or its hash."""
    rows = conn.execute(
        select(principals)
        .where(principals.c.tenant_id == tenant_id)
        .order_by(principals.c.principal_id)
    )
    return [
        {
            "principal_id": r.principal_id,
            "tenant_id": r.tenant_id,
            "scopes": json.loads(r.scopes),
            "created_at": r.created_at.isoformat(),
            "disabled_at": r.disabled_at.isoformat() if r.disabled_at else None,
            "key_rotated_at": r.key_rotated_at.isoformat() if r.key_rotated_at else None,
        }
        for r in rows
    ]


def disable_principal(conn: Connection, tenant_id: str, principal_id: str) -> bool:
    """Refuse the principal's key from now on; False when it was already disabled."""
    _require(conn, tenant_id, principal_id)
    changed = conn.execute(
        update(principals)
        .where(
            principals.c.tenant_id == tenant_id,
            principals.c.principal_id == principal_id,
            principals.c.disabled_at.is_(None),
        )
        .values(disabled_at=utcnow())
    ).rowcount
    return bool(changed)


def rotate_key(conn: Connection, tenant_id: str, principal_id: str) -> str:
    """A new API key for an enabled principal; the old key is refused from the commit on."""
    row = _require(conn, tenant_id, principal_id)
    if row.disabled_at is not None:
        raise UnknownPrincipal(f"principal {principal_id} of tenant {tenant_id} is disabled")
    key = _new_key()
    conn.execute(
        update(principals)
        .where(principals.c.tenant_id == tenant_id, principals.c.principal_id == principal_id)
        .values(key_hash=sha256_hex(key), key_rotated_at=utcnow())
    )
    return key


def _require(conn: Connection, tenant_id: str, principal_id: str) -> Any:
    stmt = select(principals).where(
        principals.c.tenant_id == tenant_id, principals.c.principal_id == principal_id
    )
    # a concurrent rotate or disable waits for this one
    row = conn.execute(lock_rows(conn, stmt)).first()
    if row is None:
        raise UnknownPrincipal(f"no principal {principal_id} in tenant {tenant_id}")
    return row


def authenticate_with(engine: Engine, api_key: str | None) -> Principal:
    """:func:`authenticate` on a connection of its own, as the application role. The key's
    tenant is what we are about to learn: the ``key_lookup`` policy (shared.rls) shows the
    one principal whose key hashes to the presented key's hash, and nothing else."""
    with engine.connect() as conn:
        return authenticate(conn, api_key)


def authenticate(conn: Connection, api_key: str | None) -> Principal:
    if not api_key or not api_key.startswith(KEY_PREFIX):
        raise Unauthenticated("missing or malformed API key")
    key_hash = sha256_hex(api_key)
    allow_key_lookup(conn, key_hash)
    row = conn.execute(select(principals).where(principals.c.key_hash == key_hash)).first()
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


def sealed_single_owner(conn: Connection, tenant_ids: set[str]) -> dict[str, bool]:
    """Per tenant: is its store sealed to one owner (seed 001 ``local_development``)? Only an
    embedded store (SQLite in one process's data directory) can be sealed, and only while
    the tenant has at most one enabled principal. A shared database never is: no query."""
    if not tenant_ids or not is_embedded_store(conn):
        return dict.fromkeys(tenant_ids, False)
    counts: dict[str, int] = dict(
        conn.execute(
            select(principals.c.tenant_id, func.count())
            .where(principals.c.tenant_id.in_(tenant_ids), principals.c.disabled_at.is_(None))
            .group_by(principals.c.tenant_id)
        ).all()
    )
    return {t: int(counts.get(t, 0)) <= 1 for t in tenant_ids}
