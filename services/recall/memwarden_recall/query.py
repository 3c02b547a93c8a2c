"""Recall, the read path: current committed versions of one tenant + subject, checked against
authoritative evidence state at read time, ranked by vector similarity, keyword match and how
well the query names each memory's key (services.recall.ranking).

The evidence check is what makes a revocation effective the moment it commits: a version
with no active supporting message is never returned, whether or not any worker has run
("protected empty").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, and_, or_, select

from memwarden_recall.keymatch import default_vocabulary
from memwarden_recall.ranking import score_rows
from memwarden_shared.contract.models import MemoryStatus, MessageStatus
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.remote.embedders import current_embedder
from memwarden_shared.state import provenance
from memwarden_shared.state.curate_block import CURATE_PUBLISHING, block_reason, blocked
from memwarden_shared.store.db import as_utc, get_engine, unit_of_work, utcnow
from memwarden_shared.store.dialect import in_list
from memwarden_shared.store.schema import (
    current_memories,
    memory_evidence,
    memory_versions,
    messages,
    vector_index,
)
from memwarden_shared.text.embedding import Embedder

# What a recalled memory is when it reaches a prompt (seed 004): never live authority.
NOTICE = "historical record, not current verification"


class ProtectedEmpty(list["Recalled"]):
    """An empty recall that is empty on purpose; ``reason`` says why (curate_publishing)."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


@dataclass(frozen=True)
class Recalled:
    memory_id: str
    version: int
    kind: str
    normalized_key: str
    scope: dict[str, str]
    value: Any
    score: float
    expires_at: datetime | None
    # the pointer back to the source (seed 004): the active message revisions supporting it
    evidence_message_ids: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "evidence_message_ids": list(self.evidence_message_ids),
            "notice": NOTICE,
            "memory_id": self.memory_id,
            "version": self.version,
            "kind": self.kind,
            "normalized_key": self.normalized_key,
            "scope": self.scope,
            "value": self.value,
            "score": round(self.score, 4),
            "expires_at": self.expires_at.isoformat() if self.expires_at else None,
        }


def keys_for_purpose(purpose: str) -> list[str]:
    """Registry keys whose retrieval purposes include ``purpose``."""
    return sorted(
        spec.normalized_key
        for spec in default_registry().keys.values()
        if purpose in spec.retrieval_purposes
    )


def recall(
    tenant_id: str,
    subject_id: str,
    query: str | None = None,
    *,
    k: int = 10,
    scope_kind: str | None = None,
    scope_key: str | None = None,
    purpose: str | None = None,
    engine: Engine | None = None,
    now: datetime | None = None,
    embedder: Embedder | None = None,
) -> list[Recalled]:
    """The recallable memories of one subject, best first (see the module docstring); a
    :class:`ProtectedEmpty` while a curate publish switches the subject's memories.
    ``embedder`` defaults to the configured one; raises ``ranking.EmbedderMismatch`` when
    a remote embedder is configured over an index another embedder built."""
    now = now or utcnow()
    supported = provenance.supported(current_memories.c.memory_id, current_memories.c.version)
    stmt = (
        select(
            current_memories,
            vector_index.c.embedding,
            vector_index.c.embedder,
            vector_index.c.version.label("iv"),
            # in the same statement as the rows, so a read is wholly before or after a switch
            blocked(tenant_id, subject_id).label("curate_blocked"),
        )
        .outerjoin(
            vector_index,
            and_(
                vector_index.c.memory_id == current_memories.c.memory_id,
                vector_index.c.version == current_memories.c.version,
            ),
        )
        .where(
            current_memories.c.tenant_id == tenant_id,
            current_memories.c.subject_id == subject_id,
            or_(current_memories.c.expires_at.is_(None), current_memories.c.expires_at > now),
            supported,
        )
    )
    if scope_kind:
        stmt = stmt.where(current_memories.c.scope_kind == scope_kind)
    if scope_key:
        stmt = stmt.where(current_memories.c.scope_key == scope_key)
    if purpose:
        stmt = stmt.where(current_memories.c.normalized_key.in_(keys_for_purpose(purpose)))
    with unit_of_work(engine or get_engine()) as uow:
        rows = uow.conn.execute(stmt).all()
        if rows and rows[0].curate_blocked:
            return ProtectedEmpty(CURATE_PUBLISHING)
        if not rows and (reason := block_reason(uow.conn, tenant_id, subject_id)):
            return ProtectedEmpty(reason)
        ranked = rank_rows(rows, query, k, embedder)
        pointers = _evidence(uow.conn, tenant_id, [(r.memory_id, r.version) for r in ranked])
    return [
        replace(r, evidence_message_ids=pointers.get((r.memory_id, r.version), ())) for r in ranked
    ]


def _evidence(
    conn: Any, tenant_id: str, pairs: list[tuple[str, int]]
) -> dict[tuple[str, int], tuple[str, ...]]:
    """The active message ids supporting each recalled version, for its pointer."""
    if not pairs:
        return {}
    wanted = set(pairs)
    stmt = (
        select(memory_evidence.c.memory_id, memory_evidence.c.version, memory_evidence.c.message_id)
        .join(
            messages,
            and_(
                messages.c.tenant_id == memory_evidence.c.tenant_id,
                messages.c.message_id == memory_evidence.c.message_id,
                messages.c.revision == memory_evidence.c.revision,
            ),
        )
        .where(
            memory_evidence.c.tenant_id == tenant_id,
            in_list(conn, memory_evidence.c.memory_id, {m for m, _ in pairs}),
            messages.c.status == MessageStatus.ACTIVE,
        )
    )
    out: dict[tuple[str, int], set[str]] = {}
    for r in conn.execute(stmt):
        if (r.memory_id, r.version) in wanted:
            out.setdefault((r.memory_id, r.version), set()).add(r.message_id)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def rank_rows(
    rows: Sequence[Any], query: str | None, k: int, embedder: Embedder | None = None
) -> list[Recalled]:
    if not rows:
        return []
    if query:
        scores = score_rows(query, rows, embedder or current_embedder(), default_vocabulary())
    else:
        scores = [0.0] * len(rows)
    ranked = sorted(
        zip(rows, scores, strict=True),
        key=lambda rs: (-rs[1], -as_utc(rs[0].updated_at).timestamp(), rs[0].memory_id),
    )
    return [
        Recalled(
            memory_id=r.memory_id,
            version=r.version,
            kind=r.kind,
            normalized_key=r.normalized_key,
            scope={"kind": r.scope_kind, "key": r.scope_key},
            value=json.loads(r.value_json),
            score=s,
            expires_at=as_utc(r.expires_at),
        )
        for r, s in ranked[:k]
    ]


def recall_as_of(
    tenant_id: str,
    subject_id: str,
    *,
    valid_at: datetime,
    known_at: datetime,
    engine: Engine | None = None,
) -> list[dict[str, Any]]:
    """Bi-temporal read: the versions that held at ``valid_at`` as the system knew them at
    ``known_at`` (``valid_from``/``valid_to`` for the world, ``recorded_at``/``expired_at``
    for the system). Forgotten versions are never returned: their values are erased."""
    stmt = (
        select(memory_versions)
        .where(
            memory_versions.c.tenant_id == tenant_id,
            memory_versions.c.subject_id == subject_id,
            memory_versions.c.status != MemoryStatus.FORGOTTEN,
            memory_versions.c.valid_from <= valid_at,
            or_(memory_versions.c.valid_to.is_(None), memory_versions.c.valid_to > valid_at),
            memory_versions.c.recorded_at <= known_at,
            or_(memory_versions.c.expired_at.is_(None), memory_versions.c.expired_at > known_at),
        )
        .order_by(memory_versions.c.id)
    )
    with unit_of_work(engine or get_engine()) as uow:
        rows = uow.conn.execute(stmt).all()
    return [
        {
            "memory_id": r.memory_id,
            "version": r.version,
            "normalized_key": r.normalized_key,
            "value": json.loads(r.value_json),
            "status": r.status,
            "valid_from": as_utc(r.valid_from),
            "valid_to": as_utc(r.valid_to),
            "recorded_at": as_utc(r.recorded_at),
            "expired_at": as_utc(r.expired_at),
        }
        for r in rows
    ]
