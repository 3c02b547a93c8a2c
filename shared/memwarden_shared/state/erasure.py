"""Right to be forgotten for text (SPEC §9, seed 004): erase it, keep only hashes.

``forget`` calls :func:`forget_text` in its transaction once the suppression hashes are
written (they are taken from the text, so the order matters):

* every revision's text becomes ``''`` and its masked spans are dropped; ``text_sha256``
  stays, and ``erased_at`` marks the row for the audit;
* every string in the tenant's outbox payloads whose suppression hash (or one of whose
  sentences' hashes) is forgotten is replaced by ``null``: events written before payloads
  carried keys only still hold the claim.

The audit uses :func:`holds_forgotten` to look for what may remain.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select, update

from memwarden_shared.contract.canonical import normalized_content_hash
from memwarden_shared.store.schema import messages, outbox
from memwarden_shared.text.segmenter import split_sentences


def _pieces(text: str) -> Iterator[str]:
    """The text and, for longer ones, each of its sentences."""
    yield text
    if len(text) > 20:
        yield from (text[s.start : s.end] for s in split_sentences(text))


def _forgotten(text: str, hashes: set[str]) -> bool:
    return any(normalized_content_hash(p) in hashes for p in _pieces(text) if p.strip())


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def holds_forgotten(text: str | None, hashes: set[str]) -> bool:
    """Whether ``text`` (JSON or plain) holds a string whose content is forgotten."""
    if not text or not hashes:
        return False
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = text
    return any(_forgotten(s, hashes) for s in _strings(value))


def _scrub(value: Any, hashes: set[str]) -> Any:
    if isinstance(value, str):
        return None if _forgotten(value, hashes) else value
    if isinstance(value, dict):
        return {k: _scrub(v, hashes) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, hashes) for v in value]
    return value


def forget_text(
    conn: Connection, tenant_id: str, message_id: str, hashes: set[str], now: datetime
) -> None:
    """Erase one message's text (all revisions) and forgotten strings in outbox payloads."""
    conn.execute(
        update(messages)
        .where(messages.c.tenant_id == tenant_id, messages.c.message_id == message_id)
        .values(text="", masked_spans=None, erased_at=now)
    )
    if not hashes:
        return
    rows = conn.execute(
        select(outbox.c.id, outbox.c.payload).where(outbox.c.tenant_id == tenant_id)
    ).all()
    for row in rows:
        if holds_forgotten(row.payload, hashes):
            try:
                scrubbed = _scrub(json.loads(row.payload), hashes)
            except ValueError:
                scrubbed = None  # not JSON, and it holds the claim: nothing of it is kept
            conn.execute(
                update(outbox)
                .where(outbox.c.id == row.id)
                .values(payload=json.dumps(scrubbed, ensure_ascii=False))
            )
