"""What a gate wave reads: one round trip before the locks (``read_wave``) and one for the
lock phase (``lock_wave``) on PostgreSQL, each a ``store.db.Batch`` of one query per table.
SQLite runs the same statements one by one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from memwarden_gate.checks import Assessment, StoredMessage
from memwarden_gate.decide import CurrentFact
from memwarden_gate.records import Verified
from memwarden_shared.detect.secret_mask import spans_from_json
from memwarden_shared.state.memory_state import queue_lock
from memwarden_shared.state.message_locks import queue_share_messages
from memwarden_shared.store.db import Batch, Step, as_utc, in_offset
from memwarden_shared.store.dialect import in_param, pairs_in
from memwarden_shared.store.schema import (
    current_memories,
    fact_keys,
    memory_versions,
    messages,
    proposals,
    receipts,
    suppressions,
    tenant_policies,
)

Pid = tuple[str, str]  # (tenant, proposal_id)


def pid_of(v: Verified) -> Pid:
    return (v.p.tenant_id, v.p.proposal_id)


@dataclass
class Decided:
    """Proposals already decided: their payload hashes, and their stored receipt bodies."""

    hashes: dict[Pid, str] = field(default_factory=dict)
    bodies: dict[Pid, str] = field(default_factory=dict)


@dataclass
class WaveReads:
    """What one wave needs from the store before the locks."""

    decided: Decided
    messages: dict[tuple[str, str], StoredMessage]
    suppressed: set[tuple[str, str, str]]  # (tenant, subject, hash)
    profiles: dict[str, str]
    profile_since: dict[str, datetime | None]  # when each tenant's profile was set
    # (tenant, subject, memory_id) -> current committed version, for derived_from names
    sources: dict[tuple[str, str, str], int]
    seen: dict[str, int]  # memory_id -> the fact key's version as seen before the lock


@dataclass
class LockedFacts:
    """The wave's fact keys under the lock."""

    seen: dict[str, int] = field(default_factory=dict)  # versions seen before the lock
    locked: dict[str, dict[str, Any]] = field(default_factory=dict)  # the locked rows
    current: dict[str, CurrentFact] = field(default_factory=dict)  # projection, under lock


def _queue_decided(batch: Batch, pids: set[Pid]) -> Step:
    """Queue the read of proposals already decided: their payload hashes."""
    return batch.add(
        "gate.decided",
        lambda conn: select(
            proposals.c.tenant_id, proposals.c.proposal_id, proposals.c.payload_hash
        ).where(
            in_param(conn, proposals.c.tenant_id, "tenants"),
            in_param(conn, proposals.c.proposal_id, "pids"),
        ),
        {"tenants": sorted({t for t, _ in pids}), "pids": sorted({p for _, p in pids})},
    )


def _decided_from(conn: Connection, step: Step, pids: set[Pid]) -> Decided:
    """Proposals already decided (a sent ``_queue_decided``), with their stored receipts
    (read only when there are any: replays are rare)."""
    hashes = {
        (r["tenant_id"], r["proposal_id"]): r["payload_hash"]
        for r in step.rows
        if (r["tenant_id"], r["proposal_id"]) in pids  # the lists match a superset
    }
    if not hashes:
        return Decided()
    bodies = {
        (r.tenant_id, r.proposal_id): r.body
        for r in conn.execute(
            select(receipts).where(
                pairs_in(conn, receipts.c.tenant_id, receipts.c.proposal_id, hashes)
            )
        )
    }
    return Decided(hashes, bodies)


def _of_tenants(
    batch: Batch, key: str, table: Any, column: str, tenants: list[str], values: set[str]
) -> Step:
    """Queue the rows of ``table`` of ``tenants`` whose ``column`` is one of ``values``."""
    return batch.add(
        key,
        lambda conn: select(table).where(
            in_param(conn, table.c.tenant_id, "tenants"), in_param(conn, table.c[column], "ids")
        ),
        {"tenants": tenants, "ids": sorted(values)},
    )


def _queue_sources(batch: Batch, wave: list[Verified]) -> Step:
    """Queue the current versions of the memories the wave's derived_from names."""
    named = sorted({n.partition(":")[0] for v in wave for n in v.p.derived_from})
    return batch.add(
        "gate.sources",
        lambda conn: select(
            current_memories.c.tenant_id,
            current_memories.c.subject_id,
            current_memories.c.memory_id,
            current_memories.c.version,
        ).where(in_param(conn, current_memories.c.memory_id, "ids")),
        {"ids": named} if named else [],
    )


def read_wave(conn: Connection, wave: list[Verified]) -> WaveReads:
    """Everything a wave reads before the locks, in one round trip on PostgreSQL, with the
    fact keys' versions as seen before the lock."""
    batch = Batch(conn)
    pids = {pid_of(v) for v in wave}
    decided = _queue_decided(batch, pids)
    tenants = sorted({v.p.tenant_id for v in wave})
    # shared until commit, before the read: a revoke, forget or supersede of one of these
    # messages either waits for this wave or is read as it left the message
    queue_share_messages(batch, {(v.p.tenant_id, v.p.evidence.message_id) for v in wave})
    message_rows = _of_tenants(
        batch,
        "gate.messages",
        messages,
        "message_id",
        tenants,
        {v.p.evidence.message_id for v in wave},
    )
    suppression_rows = _of_tenants(
        batch,
        "gate.suppressions",
        suppressions,
        "subject_id",
        tenants,
        {v.p.subject_id for v in wave},
    )
    policy_rows = batch.add(
        "gate.policies",
        lambda conn: select(tenant_policies).where(
            in_param(conn, tenant_policies.c.tenant_id, "tenants")
        ),
        {"tenants": tenants},
    )
    source_rows = _queue_sources(batch, wave)
    seen_rows = batch.add(
        "gate.seen",
        lambda conn: select(fact_keys.c.memory_id, fact_keys.c.current_version).where(
            in_param(conn, fact_keys.c.memory_id, "ids")
        ),
        {"ids": sorted({v.memory_id for v in wave})},
    )
    batch.send()
    wanted = {(v.p.tenant_id, v.p.evidence.message_id) for v in wave}
    return WaveReads(
        decided=_decided_from(conn, decided, pids),
        messages=_latest_messages(message_rows.rows, wanted),
        suppressed={
            (r["tenant_id"], r["subject_id"], r["content_hash"]) for r in suppression_rows.rows
        },
        profiles={r["tenant_id"]: r["profile"] for r in policy_rows.rows},
        profile_since={r["tenant_id"]: as_utc(r["updated_at"]) for r in policy_rows.rows},
        sources={
            (r["tenant_id"], r["subject_id"], r["memory_id"]): int(r["version"])
            for r in source_rows.rows
        },
        seen={r["memory_id"]: int(r["current_version"]) for r in seen_rows.rows},
    )


def lock_wave(
    conn: Connection,
    locking: list[tuple[Verified, Assessment]],
    seen_all: dict[str, int],
    now: datetime,
) -> tuple[LockedFacts, Decided]:
    """The fact-key rows (created if new) locked in memory_id order
    (``memory_state.queue_lock``), the current values read under the locks, and the
    proposals decided meanwhile, in one round trip on PostgreSQL."""
    seen = {v.memory_id: seen_all[v.memory_id] for v, _ in locking if v.memory_id in seen_all}
    batch = Batch(conn)
    ids = sorted({v.memory_id for v, _ in locking})
    # keys not seen before the lock are created (if still missing) and locked with the rest
    fresh = {v.memory_id: v.fact_key for v, _ in locking if v.memory_id not in seen}
    locked_rows = queue_lock(batch, ids, create=fresh, now=now)
    current_rows = batch.add("gate.current", _current_statement, {"ids": ids})
    pids = {pid_of(v) for v, _ in locking}
    late = _queue_decided(batch, pids)
    batch.send()
    current = {
        r["memory_id"]: CurrentFact(r["version"], json.loads(r["value_json"]), r["valid_from"])
        for r in current_rows.rows
    }
    locked = {r["memory_id"]: r for r in locked_rows.rows}
    return LockedFacts(seen, locked, current), _decided_from(conn, late, pids)


def _current_statement(conn: Connection) -> Any:
    # valid_from as a correlated subquery, one primary-key lookup per projected row: a join
    # with a long IN list lets the planner hash-join a sequential scan of all of history.
    valid_from = (
        select(memory_versions.c.valid_from)
        .where(
            memory_versions.c.memory_id == current_memories.c.memory_id,
            memory_versions.c.version == current_memories.c.version,
        )
        .scalar_subquery()
        .label("valid_from")
    )
    return select(
        current_memories.c.memory_id,
        current_memories.c.version,
        current_memories.c.value_json,
        valid_from,
    ).where(in_param(conn, current_memories.c.memory_id, "ids"))


def _latest_messages(
    rows: list[dict[str, Any]], wanted: set[tuple[str, str]]
) -> dict[tuple[str, str], StoredMessage]:
    """The latest revision of each wanted (tenant, message_id), as the checks see it."""
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        key = (r["tenant_id"], r["message_id"])
        if key in wanted and (key not in latest or r["revision"] > latest[key]["revision"]):
            latest[key] = r
    return {key: _stored_message(r) for key, r in latest.items()}


def _stored_message(r: dict[str, Any]) -> StoredMessage:
    return StoredMessage(
        tenant_id=r["tenant_id"],
        message_id=r["message_id"],
        revision=r["revision"],
        subject_id=r["subject_id"],
        author_id=r["author_id"],
        role=r["role"],
        source=r["source"],
        text=r["text"],
        status=r["status"],
        created_at=in_offset(r["created_at"], r["utc_offset_minutes"]),
        session_id=r["session_id"],
        masked_spans=spans_from_json(r["masked_spans"]),
        secret_unlocated=bool(r["secret_unlocated"]),
    )
