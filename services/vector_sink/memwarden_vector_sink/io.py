"""Vector sink I/O: reconcile the vector projection with the current committed versions.

Each event only names a memory; the sink re-reads the authoritative state, so duplicated,
reordered or late events all converge: a current committed version is indexed, anything
else is dropped.
"""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, select

from memwarden_shared.contract.models import MessageStatus
from memwarden_shared.delivery.consume import ConsumeResult, consume
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.observe import metrics
from memwarden_shared.remote.embedders import current_embedder
from memwarden_shared.remote.embedding_remote import OpenAIEmbedder
from memwarden_shared.store.db import Batch, get_engine, unit_of_work, utcnow
from memwarden_shared.store.dialect import in_list, in_param, insert_ignore, lock_rows
from memwarden_shared.store.schema import (
    current_memories,
    fact_keys,
    memory_evidence,
    memory_versions,
    messages,
    vector_index,
)
from memwarden_shared.text.embedding import Embedder, memory_text, to_bytes


def reindex(
    tenant_id: str | None = None,
    *,
    batch: int = 500,
    engine: Engine | None = None,
    embedder: Embedder | None = None,
) -> dict[str, int | str]:
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
    return {**totals, "embedder": embedder.name}


def warm() -> None:
    """Load the configured embedder's model by embedding one text, so that a fresh sink's
    first batch does not pay for it (about 1.4 s for the multilingual model). A remote
    embedder is left alone: a call at start would spend its quota and fail on an outage
    before any event needs it."""
    embedder = current_embedder()
    if not isinstance(embedder, OpenAIEmbedder):
        embedder.embed(["warm"])


def sync_events(conn: Connection, envelopes: list[dict[str, Any]]) -> dict[str, int]:
    """The vector sink's consumer handler: reconcile the memories the events name, inside
    the runner's transaction."""
    counts, marks = reconcile(conn, memory_ids_of(envelopes))
    _observe(utcnow(), *marks)
    return counts


def run_sink_stage(
    envelopes: list[dict[str, Any]], *, engine: Engine | None = None
) -> ConsumeResult:
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
    current, indexed = _locked_projection(conn, ids)
    stale, todo = differences(ids, current, indexed, embedder.name)
    if stale:
        conn.execute(delete(vector_index).where(in_list(conn, vector_index.c.memory_id, stale)))
    _index(conn, todo, embedder)
    gone = [m for m in stale if m not in current]
    counts = {
        "indexed": len(todo),
        "dropped": len(gone),
        "unchanged": len(ids) - len(todo) - len(gone),
    }
    fresh = [
        (r.memory_id, r.version) for r in todo if indexed.get(r.memory_id, (0,))[0] != r.version
    ]
    dropped = [(m, indexed[m][0]) for m in gone]
    marks = _latency_marks(conn, fresh, dropped) if fresh or dropped else ([], [])
    return counts, marks


def differences(
    ids: list[str],
    current: dict[str, Any],
    indexed: dict[str, tuple[int, str]],
    embedder_name: str,
) -> tuple[list[str], list[Any]]:
    """The index rows to drop (of another version or embedder, or of a memory with no
    current version) and the current rows to index (none yet, or just dropped)."""
    stale = [
        m
        for m in ids
        if m in indexed and (m not in current or indexed[m] != (current[m].version, embedder_name))
    ]
    todo = [current[m] for m in ids if m in current and (m not in indexed or m in stale)]
    return stale, todo


def _locked_projection(
    conn: Connection, ids: list[str]
) -> tuple[dict[str, Any], dict[str, tuple[int, str]]]:
    """The current committed row of each memory, and its index row's (version, embedder),
    read under FOR SHARE on the fact keys, taken in memory_id order: a commit or revocation
    of these memories (which holds the key FOR UPDATE) cannot slip between our read of the
    projection and our write, or a late sink would index a version just revoked. (SQLite:
    the transaction holds the database write lock already.)

    One round trip on PostgreSQL (``store.db.Batch``): the pipeline runs the lock first and
    the two reads after it, in the same transaction, so they see what the locks hold."""
    if not ids:
        return {}, {}
    batch = Batch(conn)
    batch.add(
        "vector_sink.share_fact_keys",
        lambda c: lock_rows(
            c,
            select(fact_keys.c.id)
            .where(in_param(c, fact_keys.c.memory_id, "ids"))
            .order_by(fact_keys.c.memory_id),
            read=True,
        ),
        {"ids": ids},
    )
    current = batch.add(
        "vector_sink.current",
        lambda c: select(current_memories).where(in_param(c, current_memories.c.memory_id, "ids")),
        {"ids": ids},
    )
    indexed = batch.add(
        "vector_sink.indexed",
        lambda c: select(
            vector_index.c.memory_id, vector_index.c.version, vector_index.c.embedder
        ).where(in_param(c, vector_index.c.memory_id, "ids")),
        {"ids": ids},
    )
    batch.send()
    return (
        {r["memory_id"]: SimpleNamespace(**r) for r in current.rows},
        {r["memory_id"]: (r["version"], r["embedder"]) for r in indexed.rows},
    )


def _index(conn: Connection, todo: list[Any], embedder: Embedder) -> None:
    """Embed and write the index rows of ``todo`` (current-memory rows)."""
    vectors = embedder.embed([memory_text(r.normalized_key, r.value_json) for r in todo])
    now = utcnow()
    if not todo:
        return
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
