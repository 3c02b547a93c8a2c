"""Right to be forgotten for text (SPEC §9, seed 004): erase it, keep only hashes.

``forget`` calls :func:`forget_text` in its transaction once the suppression hashes are
written (they are taken from the text, so the order matters):

* every revision's text becomes ``''`` and its masked spans are dropped; ``text_sha256``
  stays, and ``erased_at`` marks the row for the audit;
* every string in the tenant's outbox payloads whose suppression hash (or one of whose
  sentences' hashes) is forgotten is replaced by ``null``: events written before payloads
  carried keys only still hold the claim;
* every curate snapshot package that cites the message loses the items holding forgotten
  content (each becomes a tombstone ``{source, memory_id, erased: true}``), the run's
  ledger rows lose their forgotten strings, and ``curate_runs.erased_at`` is set: the
  package no longer matches its hash, so the run cannot be planned, checked or published
  on, and a rollback restores only what was not forgotten.

The audit uses :func:`holds_forgotten` to look for what may remain.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select, update

from memwarden_shared.contract.canonical import jcs, normalized_content_hash, sha256_hex
from memwarden_shared.store.schema import curate_ledger, curate_runs, messages, outbox
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
    _erase_from_outbox(conn, tenant_id, hashes)
    _erase_from_curate(conn, tenant_id, message_id, hashes, now)


def _erase_from_outbox(conn: Connection, tenant_id: str, hashes: set[str]) -> None:
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


def erase_package_items(package_text: str, hashes: set[str]) -> str | None:
    """The snapshot package (JCS) with every item holding forgotten content replaced by a
    tombstone; None when no item holds any."""
    data = json.loads(package_text)
    items = data.get("items", [])
    kept = [
        {"source": i.get("source"), "memory_id": i.get("memory_id"), "erased": True}
        if any(_forgotten(s, hashes) for s in _strings(i))
        else i
        for i in items
    ]
    if kept == items:
        return None
    data["items"] = kept
    return jcs(data).decode("utf-8")


def _erase_from_curate(
    conn: Connection, tenant_id: str, message_id: str, hashes: set[str], now: datetime
) -> None:
    """Packages cite their evidence by message id (JCS writes ``"message_id":"<id>"``), so
    only the runs that froze this message are read."""
    cited = f'%"message_id":{json.dumps(message_id, ensure_ascii=False)}%'
    runs = conn.execute(
        select(curate_runs.c.run_id, curate_runs.c.package).where(
            curate_runs.c.tenant_id == tenant_id, curate_runs.c.package.like(cited)
        )
    ).all()
    erased = []
    for run in runs:
        package = erase_package_items(run.package, hashes)
        if package is not None:
            erased.append(run.run_id)
            conn.execute(
                update(curate_runs)
                .where(curate_runs.c.tenant_id == tenant_id, curate_runs.c.run_id == run.run_id)
                .values(package=package, erased_at=now)
            )
    if not erased:
        return
    rows = conn.execute(
        select(curate_ledger.c.run_id, curate_ledger.c.seq, curate_ledger.c.body).where(
            curate_ledger.c.tenant_id == tenant_id, curate_ledger.c.run_id.in_(erased)
        )
    ).all()
    for row in rows:
        if holds_forgotten(row.body, hashes):
            body = jcs(_scrub(json.loads(row.body), hashes)).decode("utf-8")
            conn.execute(
                update(curate_ledger)
                .where(
                    curate_ledger.c.tenant_id == tenant_id,
                    curate_ledger.c.run_id == row.run_id,
                    curate_ledger.c.seq == row.seq,
                )
                .values(body=body, body_hash=sha256_hex(body))
            )
