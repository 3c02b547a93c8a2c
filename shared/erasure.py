"""Right to be forgotten for a message's text (SPEC §9, seed 004): erase, keep the hash.

``forget`` calls :func:`erase_message_text` in its own transaction after the suppression
rows are written (they are hashed from the text, so the order matters). Every revision's
text becomes ``''`` and its masked spans are dropped; ``text_sha256`` stays so an audit
can still show which text was there, and ``erased_at`` marks the row for the audit.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, update

from shared.schema import messages


def erase_message_text(conn: Connection, tenant_id: str, message_id: str, now: datetime) -> int:
    """Erase the text of every revision of one message; returns how many rows changed."""
    return conn.execute(
        update(messages)
        .where(messages.c.tenant_id == tenant_id, messages.c.message_id == message_id)
        .values(text="", masked_spans=None, erased_at=now)
    ).rowcount
