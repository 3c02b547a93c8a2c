"""Where the gate serialises with a command that takes a message back (SPEC §9).

A gate wave holds each evidence message it reads *shared*, from before that read until its
commit; revoke, forget and supersede hold the message *alone* before they change it or read
what was derived from it. So either the command waits for the gate's commit and then finds
the memory the gate committed (and takes it back), or the gate waits for the command's
commit and then reads the message as the command left it (and refuses it). Candidate rows
gave this only to proposals the extractor stored; a proposal posted as it is
(``POST /v1/proposals``) had no row to meet on.

The locks are transaction advisory locks (PostgreSQL), not row locks: a shared row lock would
write the message row on every gate wave. Lock order, the same everywhere: a message's
candidates, then the message, then fact keys and memories. SQLite's single writer already
serialises all of it.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection

from memwarden_shared.store.dialect import (
    MESSAGE_LOCK_CLASS,
    QueuesSteps,
    lock_names,
    queue_lock_names,
)


def message_lock_name(tenant_id: str, message_id: str) -> str:
    return f"{tenant_id}\x1f{message_id}"


def hold_message(conn: Connection, tenant_id: str, message_id: str) -> None:
    """Hold the message alone until commit: a gate reading it waits, one that read it first
    is waited for."""
    lock_names(conn, [message_lock_name(tenant_id, message_id)], MESSAGE_LOCK_CLASS)


def queue_share_messages(batch: QueuesSteps, keys: Iterable[tuple[str, str]]) -> None:
    """Hold the (tenant, message id) pairs shared until commit, queued on the gate's batch
    before the statement that reads them."""
    names = [message_lock_name(tenant, message) for tenant, message in keys]
    queue_lock_names(batch, "gate.share_messages", names, MESSAGE_LOCK_CLASS, shared=True)
