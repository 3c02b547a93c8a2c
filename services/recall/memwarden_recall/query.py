"""Recall, the read path: current committed versions of one tenant + subject, checked against
authoritative evidence state at read time, ranked by vector similarity, keyword match and how
well the query names each memory's key (services.recall.ranking).

The evidence check is what makes a revocation effective the moment it commits: a version
with no active supporting message is never returned, whether or not any worker has run
("protected empty").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, and_, or_, select

from memwarden_recall.keymatch import default_vocabulary
from memwarden_recall.ranking import score_rows
from memwarden_recall.vector_cache import process_cache
from memwarden_shared.contract.models import MemoryStatus
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.remote.embedders import current_embedder
from memwarden_shared.state import provenance
from memwarden_shared.state.curate_block import CURATE_PUBLISHING, block_reason, blocked
from memwarden_shared.store.db import as_utc, get_engine, unit_of_work, utcnow
from memwarden_shared.store.dialect import in_list
from memwarden_shared.store.schema import (
    current_memories,
    memory_versions,
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
    on_read: Callable[[Connection, list[tuple[str, int]]], None] | None = None,
) -> list[Recalled]:
    """The recallable memories of one subject, best first (see the module docstring); a
    :class:`ProtectedEmpty` while a curate publish switches the subject's memories.
    ``embedder`` defaults to the configured one; raises ``ranking.EmbedderMismatch`` when
    a remote embedder is configured over an index another embedder built. ``on_read`` is
    given the (memory id, version) pairs returned, inside the read's own transaction (the
    read log rides on it instead of opening a second one); the transaction then commits."""
    now = now or utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        rows = uow.conn.execute(
            _statement(uow.conn, tenant_id, subject_id, now, scope_kind, scope_key, purpose)
        ).all()
        if rows and rows[0].curate_blocked:
            return ProtectedEmpty(CURATE_PUBLISHING)
        if not rows and (reason := block_reason(uow.conn, tenant_id, subject_id)):
            return ProtectedEmpty(reason)
        # the provenance rule, answered by the same statement: no active evidence, no recall
        candidates = [_Candidate.of(r) for r in rows if r.evidence_ids]
        if query:
            _attach_embeddings(uow.conn, candidates)
        ranked = rank_rows(candidates, query, k, embedder)
        if on_read is not None and ranked:
            on_read(uow.conn, [(r.memory_id, r.version) for r in ranked])
            uow.commit()
    return ranked


def _statement(
    bind: Any,
    tenant_id: str,
    subject_id: str,
    now: datetime,
    scope_kind: str | None,
    scope_key: str | None,
    purpose: str | None,
) -> Any:
    """One statement for everything recall reads (issue 23): the current versions, the
    key of their stored vector (not its bytes: see ``vector_cache``), the active evidence
    ids that both decide support and make the pointers, and the curate block, all in one
    snapshot."""
    stmt = (
        select(
            current_memories,
            vector_index.c.embedder,
            vector_index.c.version.label("iv"),
            provenance.supporting_message_ids(
                bind, current_memories.c.memory_id, current_memories.c.version
            ).label("evidence_ids"),
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
        )
    )
    if scope_kind:
        stmt = stmt.where(current_memories.c.scope_kind == scope_kind)
    if scope_key:
        stmt = stmt.where(current_memories.c.scope_key == scope_key)
    if purpose:
        stmt = stmt.where(current_memories.c.normalized_key.in_(keys_for_purpose(purpose)))
    return stmt


@dataclass
class _Candidate:
    """One row recall may return, with its stored vector once attached."""

    memory_id: str
    version: int
    kind: str
    normalized_key: str
    scope_kind: str
    scope_key: str
    value_json: str
    updated_at: datetime
    expires_at: datetime | None
    evidence_ids: tuple[str, ...]
    embedder: str | None  # who made the stored vector of this version; None: not indexed
    embedding: bytes | None = None

    @classmethod
    def of(cls, row: Any) -> _Candidate:
        return cls(
            memory_id=row.memory_id,
            version=row.version,
            kind=row.kind,
            normalized_key=row.normalized_key,
            scope_kind=row.scope_kind,
            scope_key=row.scope_key,
            value_json=row.value_json,
            updated_at=row.updated_at,
            expires_at=row.expires_at,
            evidence_ids=tuple(sorted(set(row.evidence_ids))),
            embedder=row.embedder if row.iv is not None else None,
        )


def _attach_embeddings(conn: Any, candidates: list[_Candidate]) -> None:
    """Stored vectors from the process cache; the keys it lacks in one read, then kept."""
    keys = {(c.memory_id, c.version, c.embedder): c for c in candidates if c.embedder}
    cache = process_cache()
    found = cache.get_many(keys)
    missing = [key for key in keys if key not in found]
    if missing:
        stmt = select(
            vector_index.c.memory_id,
            vector_index.c.version,
            vector_index.c.embedder,
            vector_index.c.embedding,
        ).where(in_list(conn, vector_index.c.memory_id, [m for m, _, _ in missing]))
        fetched = {
            (r.memory_id, r.version, r.embedder): bytes(r.embedding) for r in conn.execute(stmt)
        }
        fetched = {key: blob for key, blob in fetched.items() if key in keys}
        cache.put_many(fetched)
        found.update(fetched)
    for key, candidate in keys.items():
        candidate.embedding = found.get(key)


def rank_rows(
    rows: Sequence[Any],
    query: str | None,
    k: int,
    embedder: Embedder | None = None,
    asked_at: datetime | None = None,
) -> list[Recalled]:
    if not rows:
        return []
    if query:
        scores = score_rows(
            query, rows, embedder or current_embedder(), default_vocabulary(), asked_at
        )
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
            evidence_message_ids=getattr(r, "evidence_ids", ()),
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
