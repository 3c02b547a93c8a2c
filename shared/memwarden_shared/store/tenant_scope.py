"""Which tenant's rows the current transaction may see (PostgreSQL row-level security).

Every tenant table carries a policy on the per-transaction setting ``memwarden.tenant``
(see :mod:`memwarden_shared.store.rls`). The engine's ``begin`` hook (``shared.db``) copies the
scope held here into that setting with ``set_config(..., is_local => true)``, so it ends with
the transaction and a pooled connection never carries it to the next one.

- :func:`tenant_scope` — a request or command acting for one tenant (the API sets it from
  the authenticated principal).
- :func:`all_tenants` — a system process that legitimately spans tenants (relay, consumers
  reading a batch of many tenants, audit, outbox and dead-letter tools). Its transactions
  connect as the system login (``MEMWARDEN_SYSTEM_DB_USER``, a member of the role the
  policies name); no setting widens the application role's view. Set it narrowly, around
  the work that needs it, and give the reason: the list lives in docs/decisions.md.

No scope set means the setting is absent and every tenant table answers nothing: a
forgotten scope fails closed. SQLite has no row-level security; there the application's own
``tenant_id`` filters are the only guard, as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

SETTING = "memwarden.tenant"
# The API's credential lookup: the hash of the presented key (shared.rls key_lookup policy).
KEY_HASH_SETTING = "memwarden.key_hash"
# The in-process marker of system work. Never sent to the database: the system scope is a
# role (shared.rls.SYSTEM_ROLE), and ``shared.db`` routes such work to the system login.
ALL_TENANTS = "*"

_scope: ContextVar[str | None] = ContextVar("memwarden_tenant_scope", default=None)


def current_scope() -> str | None:
    """The tenant id, :data:`ALL_TENANTS`, or None (no rows of any tenant)."""
    return _scope.get()


@contextmanager
def tenant_scope(tenant_id: str) -> Iterator[str]:
    """Transactions opened inside see only ``tenant_id``'s rows and may write only those."""
    if not tenant_id or tenant_id == ALL_TENANTS:
        raise ValueError("a tenant scope needs a tenant id")
    token = _scope.set(tenant_id)
    try:
        yield tenant_id
    finally:
        _scope.reset(token)


@contextmanager
def all_tenants(reason: str) -> Iterator[None]:
    """Transactions opened inside see every tenant's rows. ``reason`` documents the use at
    the call site (system processes only; see docs/decisions.md)."""
    if not reason:
        raise ValueError("say why this work spans tenants")
    token = _scope.set(ALL_TENANTS)
    try:
        yield
    finally:
        _scope.reset(token)
