"""Every memory write of curate's publish and rollback, behind three functions.

Commits go through the one owner of memory state (``shared.memory_state``, SPEC §8.1), as
the gate's, review's and revalidation's do. Retiring stays set-based here (one statement
per table for a whole switch, because a tenant-wide publish holds recall blocked while it
writes); it only ever moves COMMITTED versions to SUPERSEDED and cancels the actions that
read them, like ``memory_state.take_out_of_recall``. Callers own the transaction and lock
first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, select, update

from memwarden_shared.contract.models import MemoryStatus, ProposalState, Topic
from memwarden_shared.delivery.outbox import emit_many
from memwarden_shared.state import memory_state
from memwarden_shared.state.retraction import retracted
from memwarden_shared.store.db import in_list, insert_ignore, pairs_in
from memwarden_shared.store.schema import (
    FACT_KEY_COLUMNS,
    current_memories,
    fact_keys,
    memory_versions,
    proposals,
)


@dataclass(frozen=True)
class CuratedVersion:
    """One version to commit on a locked fact key (``fact_row`` from :func:`lock_facts`)."""

    fact_row: dict[str, Any]
    value: Any
    evidence: list[tuple[str, int]]  # (message_id, revision): every message that says it
    formation_id: str  # stands in the proposal_id column: a reviewed plan, not a proposal
    valid_from: datetime
    expires_at: datetime | None
    derived_from: list[str]  # the source versions it was formed from

    @property
    def memory_id(self) -> str:
        return str(self.fact_row["memory_id"])

    @property
    def version(self) -> int:
        return int(self.fact_row["current_version"]) + 1


def lock_facts(
    conn: Connection, keys: dict[str, dict[str, str]], now: datetime
) -> dict[str, dict[str, Any]]:
    """Create missing fact-key rows (``memory_id -> key``), then lock them all in memory_id
    order — the order every writer uses, so writers wait for each other but never
    deadlock. On SQLite the transaction already holds the database write lock."""
    if not keys:
        return {}
    # ON CONFLICT DO NOTHING: a concurrent writer may create the same key; a row to lock
    # exists either way, so first writers of a new fact serialise on it.
    insert_ignore(
        conn,
        fact_keys,
        [
            {**key, "memory_id": mid, "current_version": 0, "updated_at": now}
            for mid, key in sorted(keys.items())
        ],
        list(FACT_KEY_COLUMNS),
    )
    stmt = (
        select(fact_keys)
        .where(in_list(conn, fact_keys.c.memory_id, sorted(keys)))
        .order_by(fact_keys.c.memory_id)
    )
    if conn.dialect.name == "postgresql":
        stmt = stmt.with_for_update()
    return {r.memory_id: dict(r._mapping) for r in conn.execute(stmt)}


def commit_new_versions(
    conn: Connection, items: list[CuratedVersion], now: datetime
) -> list[tuple[str, int]]:
    """Commit curated versions through the one owner of memory state (compare-and-set,
    retire the replaced version only if still COMMITTED, projection, ``memory.committed``,
    actions that read a replaced version cancelled), then link every further evidence
    message. Returns ``(memory_id, version)`` of each."""
    if not items:
        return []
    commits = []
    for i in items:
        first_message, first_revision = sorted(set(i.evidence))[0]
        commits.append(
            memory_state.NewVersion(
                fact_row=i.fact_row,
                value=i.value,
                proposal_id=i.formation_id,  # a reviewed plan stands in for a proposal
                message_id=first_message,
                message_revision=first_revision,
                auto=False,
                valid_from=i.valid_from,
                expires_at=i.expires_at,
                supersedes=i.version - 1 if i.version > 1 else None,
                derived_from=tuple(sorted(i.derived_from)),
            )
        )
    memory_state.commit_versions(conn, commits, now)
    memory_state.add_evidence(
        conn,
        [
            memory_state.evidence_row(
                i.memory_id, i.version, i.fact_row["tenant_id"], message_id, revision
            )
            for i in items
            for message_id, revision in sorted(set(i.evidence))[1:]
        ],
    )
    return [(i.memory_id, i.version) for i in items]


def retire_versions(
    conn: Connection,
    tenant_id: str,
    refs: list[tuple[str, int]],
    now: datetime,
    *,
    reason: str,
) -> list[tuple[str, int]]:
    """Take committed versions out of recall as SUPERSEDED with ``reason`` (history kept,
    projection rows dropped, the vector sink told). Returns the ones that were still
    committed; the others are left as they are."""
    if not refs:
        return []
    wanted = set(refs)
    live = sorted(
        (r.memory_id, r.version)
        for r in conn.execute(
            select(memory_versions.c.memory_id, memory_versions.c.version).where(
                pairs_in(conn, memory_versions.c.memory_id, memory_versions.c.version, refs),
                memory_versions.c.status == MemoryStatus.COMMITTED,
            )
        )
        if (r.memory_id, r.version) in wanted
    )
    if not live:
        return []
    params = [{"b_mid": m, "b_ver": v} for m, v in live]
    conn.execute(
        update(memory_versions)
        .where(
            memory_versions.c.memory_id == bindparam("b_mid"),
            memory_versions.c.version == bindparam("b_ver"),
            memory_versions.c.status == MemoryStatus.COMMITTED,
        )
        .values(status=MemoryStatus.SUPERSEDED, status_reason=reason, expired_at=now),
        params,
    )
    _proposals_superseded(conn, tenant_id, live)
    # retraction is repair: an action that read a retired version is cancelled or repaired
    retracted(conn, tenant_id, live, now, "curate_retired")
    conn.execute(
        delete(current_memories).where(
            current_memories.c.memory_id == bindparam("b_mid"),
            current_memories.c.version == bindparam("b_ver"),
        ),
        params,
    )
    emit_many(
        conn,
        [
            (
                Topic.MEMORY_REVOKED,
                f"{m}:{v}:{MemoryStatus.SUPERSEDED.value}",
                tenant_id,
                {"memory_id": m, "version": v},
            )
            for m, v in live
        ],
    )
    return live


def _proposals_superseded(conn: Connection, tenant_id: str, refs: list[tuple[str, int]]) -> None:
    """The proposals that formed these versions are superseded too. One statement on the
    (tenant, state) index: proposals has no memory_id index, and a COMMITTED proposal only
    ever belongs to its memory's current version, so the pair superset is exact here."""
    conn.execute(
        update(proposals)
        .where(
            proposals.c.tenant_id == tenant_id,
            proposals.c.state == ProposalState.COMMITTED,
            pairs_in(conn, proposals.c.memory_id, proposals.c.memory_version, refs),
        )
        .values(state=ProposalState.SUPERSEDED)
    )
