"""Vector sink I/O: reconcile the vector projection with the current committed versions.

Each event only names a memory; the sink re-reads the authoritative state, so duplicated,
reordered or late events all converge: a current committed version is indexed, anything
else is dropped.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, select

from memwarden_shared.contract.models import MessageStatus
from memwarden_shared.delivery.celery_app import Stage
from memwarden_shared.delivery.consume import consume
from memwarden_shared.observe import metrics
from memwarden_shared.store.db import get_engine, unit_of_work, utcnow
from memwarden_shared.store.dialect import hold_rows, in_list, insert_ignore
from memwarden_shared.store.schema import (
    current_memories,
    fact_keys,
    memory_evidence,
    memory_versions,
    messages,
    vector_index,
)
from memwarden_shared.text.embedding import Embedder, current_embedder, memory_text, to_bytes


def sync_memories(memory_ids: list[str], *, engine: Engine | None = None) -> dict[str, int]:
    """Index or drop each memory so the index mirrors ``current_memories`` (one transaction,
    outside the consumer runner: tests and repair)."""
    with unit_of_work(engine or get_engine()) as uow:
        counts, marks = reconcile(uow.conn, memory_ids)
        uow.commit()
    _observe(utcnow(), *marks)
    return counts


def reindex(
    tenant_id: str | None = None,
    *,
    batch: int = 500,
    engine: Engine | None = None,
    embedder: Embedder | None = None,
) -> dict[str, int]:
    """Bring every vector row (of one tenant, or all) to the configured embedder: after
    ``MEMWARDEN_EMBEDDER`` or the model or dimension changed. One transaction per batch of
    memories, so a long reindex holds no lock for long and can be rerun after a failure."""
    engine = engine or get_engine()
    with unit_of_work(engine) as uow:
        ids: set[str] = set()
        for table in (current_memories, vector_index):
            stmt = select(table.c.memory_id)
            if tenant_id is not None:
                stmt = stmt.where(table.c.tenant_id == tenant_id)
            ids.update(uow.conn.execute(stmt).scalars())
    embedder = embedder or current_embedder()
    totals = {"indexed": 0, "dropped": 0, "unchanged": 0}
    ordered = sorted(ids)
    for start in range(0, len(ordered), batch):
        with unit_of_work(engine) as uow:
            counts, _ = reconcile(uow.conn, ordered[start : start + batch], embedder)
            uow.commit()
        for name, n in counts.items():
            totals[name] += n
    return totals | {"embedder": embedder.name}  # type: ignore[return-value]


def sync_events(conn: Connection, envelopes: list[dict[str, Any]]) -> dict[str, int]:
    """The vector sink's consumer handler: reconcile the memories the events name, inside
    the runner's transaction."""
    counts, marks = reconcile(conn, memory_ids_of(envelopes))
    _observe(utcnow(), *marks)
    return counts


def run_sink_stage(envelopes: list[dict[str, Any]], *, engine: Engine | None = None) -> Any:
    return consume(Stage.VECTOR_SINK, envelopes, sync_events, engine=engine)


def reconcile(
    conn: Connection, memory_ids: list[str], embedder: Embedder | None = None
) -> tuple[dict[str, int], tuple[list[Any], list[Any]]]:
    """Make the index rows of ``memory_ids`` match their current committed versions, embedded
    by the configured embedder (a row of another embedder counts as stale and is redone).
    A remote embedder's failure raises before anything is written: a transient one retries
    the batch (shared.retry), a permanent one dead-letters the event."""
    embedder = embedder or current_embedder()
    ids = sorted(set(memory_ids))
    counts = {"indexed": 0, "dropped": 0, "unchanged": 0}
    if ids:
        # FOR SHARE on the fact keys, in memory_id order: a commit or revocation of these
        # memories (which holds the key FOR UPDATE) cannot slip between our read of the
        # projection and our write, or a late sink would index a version just revoked.
        hold_rows(
            conn,
            select(fact_keys.c.id)
            .where(in_list(conn, fact_keys.c.memory_id, ids))
            .order_by(fact_keys.c.memory_id),
            read=True,
        )
    current = {
        r.memory_id: r
        for r in conn.execute(
            select(current_memories).where(in_list(conn, current_memories.c.memory_id, ids))
        )
    }
    indexed = {
        r.memory_id: (r.version, r.embedder)
        for r in conn.execute(
            select(vector_index.c.memory_id, vector_index.c.version, vector_index.c.embedder).where(
                in_list(conn, vector_index.c.memory_id, ids)
            )
        )
    }
    stale = [
        m
        for m in ids
        if m in indexed and (m not in current or indexed[m] != (current[m].version, embedder.name))
    ]
    if stale:
        conn.execute(delete(vector_index).where(in_list(conn, vector_index.c.memory_id, stale)))
    todo = [current[m] for m in ids if m in current and (m not in indexed or m in stale)]
    vectors = embedder.embed([memory_text(r.normalized_key, r.value_json) for r in todo])
    now = utcnow()
    if todo:
        # ON CONFLICT DO NOTHING: a concurrent sink reconciling the same memory under the
        # same share lock read the same projection and writes the same row.
        insert_ignore(
            conn,
            vector_index,
            [
                {
                    "memory_id": r.memory_id,
                    "version": r.version,
                    "tenant_id": r.tenant_id,
                    "subject_id": r.subject_id,
                    "embedder": embedder.name,
                    "embedding": to_bytes(vec),
                    "indexed_at": now,
                }
                for r, vec in zip(todo, vectors, strict=True)
            ],
            ["memory_id"],
        )
    counts["indexed"] = len(todo)
    counts["dropped"] = len([m for m in stale if m not in current])
    counts["unchanged"] = len(ids) - counts["indexed"] - counts["dropped"]
    fresh = [
        (r.memory_id, r.version) for r in todo if indexed.get(r.memory_id, (0,))[0] != r.version
    ]
    gone = [(m, indexed[m][0]) for m in stale if m not in current]
    marks = _latency_marks(conn, fresh, gone) if fresh or gone else ([], [])
    return counts, marks


def _latency_marks(
    conn: Connection, fresh: list[tuple[str, int]], gone: list[tuple[str, int]]
) -> tuple[list[tuple[datetime, bool]], list[tuple[datetime, str]]]:
    """When the evidence of each newly indexed version arrived (and whether the gate
    committed it alone), and when each dropped version's evidence was revoked."""
    wanted = set(fresh) | set(gone)
    rows = conn.execute(
        select(
            memory_evidence.c.memory_id,
            memory_evidence.c.version,
            memory_versions.c.auto,
            messages.c.received_at,
            messages.c.status,
            messages.c.status_changed_at,
        )
        .join(
            memory_versions,
            and_(
                memory_versions.c.memory_id == memory_evidence.c.memory_id,
                memory_versions.c.version == memory_evidence.c.version,
            ),
        )
        .join(
            messages,
            and_(
                messages.c.tenant_id == memory_evidence.c.tenant_id,
                messages.c.message_id == memory_evidence.c.message_id,
                messages.c.revision == memory_evidence.c.revision,
            ),
        )
        .where(memory_evidence.c.memory_id.in_({m for m, _ in wanted}))
    ).all()
    by_version: dict[tuple[str, int], list[Any]] = {}
    for r in rows:
        if (r.memory_id, r.version) in wanted:
            by_version.setdefault((r.memory_id, r.version), []).append(r)
    arrived = [
        (min(r.received_at for r in found), bool(found[0].auto))
        for found in (by_version.get(pair) for pair in fresh)
        if found
    ]
    revoked = []
    for pair in gone:
        ended = [
            r
            for r in by_version.get(pair, [])
            if r.status != MessageStatus.ACTIVE and r.status_changed_at is not None
        ]
        if ended:  # else it left for another reason (owner rejection, expiry)
            last = max(ended, key=lambda r: r.status_changed_at)
            revoked.append((last.status_changed_at, str(last.status)))
    return arrived, revoked


def _observe(
    now: datetime, arrived: list[tuple[datetime, bool]], revoked: list[tuple[datetime, str]]
) -> None:
    for received_at, auto in arrived:
        metrics.observe_turn_to_recallable((now - received_at).total_seconds(), auto=auto)
    for changed_at, cause in revoked:
        metrics.observe_revocation_drain((now - changed_at).total_seconds(), cause=cause)


def memory_ids_of(envelopes: list[dict[str, Any]]) -> list[str]:
    return [e["payload"]["memory_id"] for e in envelopes]
