"""Read the memories a snapshot freezes: the recallable versions of the chosen subjects
(current, unexpired, at least one active evidence message), each with its active evidence
(message, revision, the sentence's offsets, the sentence itself and when it was said).
Reads by tenant, not by memory, so 10,000 memories are a few queries."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, or_, select

from memwarden_curate.package import source_id
from memwarden_shared.contract.canonical import rfc3339
from memwarden_shared.contract.models import MessageStatus, ProposalState
from memwarden_shared.store.db import as_utc
from memwarden_shared.store.schema import (
    curate_spans,
    current_memories,
    memory_evidence,
    memory_versions,
    messages,
    proposals,
)

ALL = "*"


def current_items(
    conn: Connection, tenant_id: str, subjects: list[str], now: datetime
) -> list[dict[str, Any]]:
    """Snapshot items of ``subjects`` (``["*"]``: every subject of the tenant)."""
    cm = current_memories
    stmt = (
        select(cm, memory_versions.c.valid_from)
        .join(
            memory_versions,
            and_(
                memory_versions.c.memory_id == cm.c.memory_id,
                memory_versions.c.version == cm.c.version,
            ),
        )
        .where(
            cm.c.tenant_id == tenant_id,
            or_(cm.c.expires_at.is_(None), cm.c.expires_at > now),
        )
    )
    if ALL not in subjects:
        stmt = stmt.where(cm.c.subject_id.in_(subjects))
    rows = conn.execute(stmt).all()
    if not rows:
        return []
    wanted = {(r.memory_id, r.version) for r in rows}
    evidence = _evidence(conn, tenant_id, wanted)
    # recall's rule, applied to the links just read: a version with no active message is
    # not recallable and not frozen (one pass, not a correlated EXISTS per row)
    return [
        {
            "source": source_id(r.memory_id, r.version),
            "memory_id": r.memory_id,
            "version": r.version,
            "subject_id": r.subject_id,
            "scope": {"kind": r.scope_kind, "key": r.scope_key},
            "kind": r.kind,
            "normalized_key": r.normalized_key,
            "claim_key": r.claim_key,
            "value": json.loads(r.value_json),
            "valid_from": rfc3339(as_utc(r.valid_from)),
            "expires_at": rfc3339(as_utc(r.expires_at)),
            "evidence": evidence[(r.memory_id, r.version)],
        }
        for r in rows
        if evidence.get((r.memory_id, r.version))
    ]


Ref = tuple[str, int]  # (memory_id, version)
SpanKey = tuple[str, int, str, int]  # (memory_id, version, message_id, revision)


def _evidence(
    conn: Connection, tenant_id: str, wanted: set[Ref]
) -> dict[Ref, list[dict[str, Any]]]:
    """Each wanted version's evidence: one entry per supporting active message and known
    sentence span, sorted."""
    links = [
        r
        for r in conn.execute(
            select(memory_evidence).where(memory_evidence.c.tenant_id == tenant_id)
        )
        if (r.memory_id, r.version) in wanted
    ]
    msgs = _active_messages(conn, tenant_id)
    spans = _spans(conn, tenant_id, wanted)
    out: dict[Ref, list[dict[str, Any]]] = defaultdict(list)
    for link in links:
        msg = msgs.get((link.message_id, link.revision))
        if msg is None:
            continue  # revoked or superseded: supports nothing any more
        found = spans.get((link.memory_id, link.version, link.message_id, link.revision))
        out[(link.memory_id, link.version)] += _cited(link, msg, found)
    for evs in out.values():
        evs.sort(key=lambda e: (e["message_id"], e["revision"], e["start"] or 0))
    return out


def _active_messages(conn: Connection, tenant_id: str) -> dict[tuple[str, int], Any]:
    return {
        (r.message_id, r.revision): r
        for r in conn.execute(
            select(
                messages.c.message_id,
                messages.c.revision,
                messages.c.text,
                messages.c.created_at,
            ).where(messages.c.tenant_id == tenant_id, messages.c.status == MessageStatus.ACTIVE)
        )
    }


def _spans(
    conn: Connection, tenant_id: str, wanted: set[Ref]
) -> dict[SpanKey, set[tuple[int, int]]]:
    """Which sentence of a message supports a version: the spans its proposals (committed
    or NOOP repeats) cited, and the spans an earlier curate publish recorded."""
    spans: dict[SpanKey, set[tuple[int, int]]] = defaultdict(set)
    for r in conn.execute(
        select(
            proposals.c.memory_id,
            proposals.c.memory_version,
            proposals.c.message_id,
            proposals.c.message_revision,
            proposals.c.evidence_start,
            proposals.c.evidence_end,
        ).where(
            proposals.c.tenant_id == tenant_id,
            proposals.c.state.in_([ProposalState.COMMITTED, ProposalState.NOOP]),
        )
    ):
        if (r.memory_id, r.memory_version) in wanted:
            spans[(r.memory_id, r.memory_version, r.message_id, r.message_revision)].add(
                (r.evidence_start, r.evidence_end)
            )
    ids = sorted({m for m, _ in wanted})
    for chunk in range(0, len(ids), 1000):
        for r in conn.execute(
            select(curate_spans).where(
                curate_spans.c.tenant_id == tenant_id,
                curate_spans.c.memory_id.in_(ids[chunk : chunk + 1000]),
            )
        ):
            if (r.memory_id, r.version) in wanted:
                spans[(r.memory_id, r.version, r.message_id, r.revision)].add((r.start, r.end))
    return spans


def _cited(link: Any, msg: Any, found: set[tuple[int, int]] | None) -> list[dict[str, Any]]:
    """The evidence entries of one supporting message: one per known span, else one with no
    span (checks then fail closed)."""
    said_at = rfc3339(as_utc(msg.created_at))
    out = []
    for start, end in sorted(found or {(-1, -1)}):
        known = start >= 0
        out.append(
            {
                "message_id": link.message_id,
                "revision": link.revision,
                "start": start if known else None,
                "end": end if known else None,
                # the sentence, for grounding and for the reader; None when no record says
                # which sentence it was (checks then fail closed)
                "quote": msg.text[start:end] if known else None,
                "said_at": said_at,
            }
        )
    return out
