"""What else happens when memory versions leave recall, in the same transaction.

The state owner (``memory_state``: revoke, reject, forget, needs_revalidation, a replaced
version; ``curate_writes``: versions curate retires) announces every retraction here and
knows nothing of who listens. One domain listens today: actions (``action_repair``, SPEC §14
retraction as repair), which subscribes itself when imported; ``memwarden_shared.state``
imports it, so every process that can retract a version repairs the actions that read it.

Hooks run inside the caller's transaction, after it updated the version rows: lock order is
version rows first, then the listener's own rows.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import Connection

# (connection, tenant, [(memory_id, version)], now, reason) -> anything
RetractionHook = Callable[[Connection, str, list[tuple[str, int]], datetime, str], object]

_hooks: list[RetractionHook] = []


class NoRetractionHook(RuntimeError):
    """A retraction with no listener: refused, so no action keeps reading a retracted
    version unnoticed (the caller's transaction rolls back; nothing is lost)."""


def subscribe(hook: RetractionHook) -> None:
    """Run ``hook`` on every retraction in this process (once, however often subscribed)."""
    if hook not in _hooks:
        _hooks.append(hook)


def retracted(
    conn: Connection,
    tenant_id: str,
    versions: list[tuple[str, int]],
    now: datetime,
    reason: str,
) -> None:
    """Announce that ``versions`` (memory_id, version) of ``tenant_id`` left recall."""
    if not _hooks:
        raise NoRetractionHook("no retraction hook: import memwarden_shared.state.action_repair")
    for hook in _hooks:
        hook(conn, tenant_id, versions, now, reason)
