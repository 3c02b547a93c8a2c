"""Recall: a subject's recallable memories (current, committed, evidence still active, not
expired), the bi-temporal read, the prompt block, the ranking's quality on labelled queries,
and the re-embedding of the vector index."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import Connection, Engine

from memwarden_recall.context import render_context
from memwarden_recall.quality import BadQuerySet, evaluate, load_queries
from memwarden_recall.query import ProtectedEmpty, Recalled, recall_as_of
from memwarden_recall.query import recall as _recall
from memwarden_recall.ranking import EmbedderMismatch
from memwarden_shared.observe import metrics
from memwarden_shared.remote.embedders import current_embedder
from memwarden_shared.state import read_log
from memwarden_shared.store.db import utcnow
from memwarden_shared.text.embedding import Embedder, EmbedderNotConfigured, EmbeddingError
from memwarden_vector_sink.io import reindex as _reindex

__all__ = [
    "BadQuerySet",
    "EmbedderMismatch",
    "EmbedderNotConfigured",
    "EmbeddingError",
    "ProtectedEmpty",
    "Recalled",
    "as_of",
    "configured_embedder",
    "context_block",
    "protected_reason",
    "quality",
    "query_set",
    "recall",
    "reindex",
]


def recall(
    engine: Engine,
    tenant_id: str,
    subject_id: str,
    query: str | None = None,
    *,
    k: int = 10,
    scope_kind: str | None = None,
    scope_key: str | None = None,
    purpose: str | None = None,
    now: datetime | None = None,
    reader: str = "operator",
) -> list[Recalled]:
    """Best first; empty on purpose (a :class:`ProtectedEmpty`, see :func:`protected_reason`)
    while a curate publish switches the subject's memories. :class:`EmbedderMismatch` when
    a remote embedder is configured over an index another embedder built.

    Every version returned is logged as read by ``reader`` (the principal id) in the read
    log, ids and versions only."""
    moment = now or utcnow()

    def log_read(conn: Connection, pairs: list[tuple[str, int]]) -> None:
        rows = read_log.rows_for(
            tenant_id, subject_id, reader, read_log.Surface.RECALL, pairs, moment
        )
        read_log.record(conn, rows)

    found = _recall(
        tenant_id,
        subject_id,
        query,
        k=k,
        scope_kind=scope_kind,
        scope_key=scope_key,
        purpose=purpose,
        engine=engine,
        now=moment,
        on_read=log_read,
    )
    _count(found, moment)
    return found


def _count(found: Sequence[Recalled], now: datetime) -> None:
    """The evidence ratio of what recall returns, and the expired-but-retrieved tripwire."""
    for r in found:
        metrics.RECALLED_VERSIONS.labels("with" if r.evidence_message_ids else "without").inc()
        if r.expires_at is not None and r.expires_at <= now:
            metrics.EXPIRED_BUT_RETRIEVED.labels("recall").inc()


def protected_reason(found: Sequence[Recalled]) -> str | None:
    """Why a recall is empty on purpose (``curate_publishing``); None for an ordinary one."""
    return found.reason if isinstance(found, ProtectedEmpty) else None


def as_of(
    engine: Engine, tenant_id: str, subject_id: str, *, valid_at: datetime, known_at: datetime
) -> list[dict[str, Any]]:
    """What held at ``valid_at`` as the system knew it at ``known_at``."""
    return recall_as_of(tenant_id, subject_id, valid_at=valid_at, known_at=known_at, engine=engine)


def context_block(found: Sequence[Recalled], lang: Literal["en", "zh"] = "en") -> str:
    """The block to put into a prompt: each memory with its pointer and the notice that it
    is a historical record, not current verification."""
    return render_context(found, lang)


def configured_embedder() -> Embedder:
    """The embedder the settings name; :class:`EmbedderNotConfigured` when they name none
    that can run."""
    return current_embedder()


def query_set(path: Path) -> list[dict[str, Any]]:
    """A labelled recall query set (JSONL); :class:`BadQuerySet` for a file that is not one."""
    return load_queries(path)


def quality(cases: list[dict[str, Any]], embedder: Embedder) -> dict[str, Any]:
    """recall@1, recall@5 and MRR of the ranking on labelled queries, overall, per language
    and per key, with the misses."""
    return evaluate(cases, embedder)


def reindex(engine: Engine, tenant_id: str | None, *, batch: int) -> dict[str, int | str]:
    """Bring every vector row (of one tenant, or all) to the configured embedder."""
    return _reindex(tenant_id, batch=batch, engine=engine)
