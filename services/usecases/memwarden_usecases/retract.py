"""Taking memory back: revoke a source message, store an edit of it (supersede), reject a
committed memory, forget what a message taught. Each is one transaction; recall honours it
the moment it commits, and the revalidation stage cascades from its event."""

from __future__ import annotations

from sqlalchemy import Engine

from memwarden_revalidation.commands import (
    Refused,
    UnknownMemory,
    UnknownMessage,
    forget_message,
    reject_memory,
    revoke_message,
    supersede_message,
)

__all__ = [
    "Refused",
    "UnknownMemory",
    "UnknownMessage",
    "forget",
    "reject",
    "revoke",
    "supersede",
]


def revoke(engine: Engine, tenant_id: str, message_id: str) -> bool:
    """Revoke every revision of a message; False when it was revoked already.
    :class:`UnknownMessage` when the tenant has no such message."""
    return revoke_message(tenant_id, message_id, engine=engine)


def forget(engine: Engine, tenant_id: str, message_id: str) -> int:
    """Forget and erase the memories the message supports, revoke it, keep only a
    normalised content hash; returns how many memory versions were forgotten."""
    return forget_message(tenant_id, message_id, engine=engine)


def supersede(
    engine: Engine, tenant_id: str, message_id: str, text: str, *, max_text_chars: int
) -> int:
    """Store ``text`` as the message's new revision; returns the revision number.
    :class:`Refused` for a revoked message or empty text."""
    return supersede_message(
        tenant_id, message_id, text, engine=engine, max_text_chars=max_text_chars
    )


def reject(engine: Engine, tenant_id: str, memory_id: str) -> int:
    """The owner rejects a committed memory; returns the version that was revoked.
    :class:`UnknownMemory` when there is no current version."""
    return reject_memory(tenant_id, memory_id, engine=engine)
