"""The gate, set-based: a batch of proposals decided with a fixed number of statements.

Per-proposal SQL would cost about 16 round trips each; here a *wave* of proposals (no two
sharing a proposal id or a fact key) is read with one query per table, decided in Python by
the same pure checks and matrix, and written with one multi-row statement per table. A
batch that repeats an id or a fact key is split into waves that run in order, so a later
proposal sees the earlier one's commit exactly as it would one at a time.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, delete, select, update

from services.gate.checks import Assessment, StoredMessage, assess
from services.gate.commit import CompareAndSetFailed, receipt_body
from services.gate.decide import CurrentFact, Verdict, decide
from services.gate.records import GateContext, Verified, log_decision, proposal_row
from shared.canonical import claim_text, normalized_content_hash
from shared.db import dumps, in_list, in_offset, insert_ignore, pairs_in
from shared.models import Decision, MemoryStatus, Receipt, Topic
from shared.outbox import emit_many
from shared.schema import (
    FACT_KEY_COLUMNS,
    current_memories,
    fact_keys,
    memory_evidence,
    memory_versions,
    messages,
    proposals,
    receipts,
    suppressions,
    tenant_policies,
)
from shared.secret_mask import spans_from_json


def waves(items: list[Verified]) -> list[list[Verified]]:
    """Split so that no wave holds two proposals with the same id or the same fact key."""
    out: list[list[Verified]] = []
    seen: list[set[tuple[str, ...]]] = []
    for item in items:
        marks = {("p", item.p.tenant_id, item.p.proposal_id), ("m", item.memory_id)}
        for wave, taken in zip(out, seen, strict=True):
            if not marks & taken:
                wave.append(item)
                taken.update(marks)
                break
        else:
            out.append([item])
            seen.append(set(marks))
    return out


@dataclass
class _Reads:
    """What one wave needs from the store, read with one query per table."""

    existing: dict[tuple[str, str], str]  # (tenant, proposal_id) -> payload_hash
    stored: dict[tuple[str, str], str]  # (tenant, proposal_id) -> receipt body
    messages: dict[tuple[str, str], StoredMessage]
    suppressed: set[tuple[str, str, str]]  # (tenant, subject, hash)
    profiles: dict[str, str]


def _read(conn: Connection, wave: list[Verified]) -> _Reads:
    pids = {(v.p.tenant_id, v.p.proposal_id) for v in wave}
    existing = {
        (r.tenant_id, r.proposal_id): r.payload_hash
        for r in conn.execute(
            select(proposals.c.tenant_id, proposals.c.proposal_id, proposals.c.payload_hash).where(
                pairs_in(conn, proposals.c.tenant_id, proposals.c.proposal_id, pids)
            )
        )
    }
    replays = [k for k in pids if k in existing]
    stored = {}
    if replays:
        stored = {
            (r.tenant_id, r.proposal_id): r.body
            for r in conn.execute(
                select(receipts).where(
                    pairs_in(conn, receipts.c.tenant_id, receipts.c.proposal_id, replays)
                )
            )
        }
    mids = {(v.p.tenant_id, v.p.evidence.message_id) for v in wave}
    latest: dict[tuple[str, str], Any] = {}
    for r in conn.execute(
        select(messages).where(pairs_in(conn, messages.c.tenant_id, messages.c.message_id, mids))
    ):
        key = (r.tenant_id, r.message_id)
        if key not in latest or r.revision > latest[key].revision:
            latest[key] = r
    msgs = {
        k: StoredMessage(
            tenant_id=r.tenant_id,
            message_id=r.message_id,
            revision=r.revision,
            subject_id=r.subject_id,
            author_id=r.author_id,
            role=r.role,
            source=r.source,
            text=r.text,
            status=r.status,
            created_at=in_offset(r.created_at, r.utc_offset_minutes),
            masked_spans=spans_from_json(r.masked_spans),
            secret_unlocated=bool(r.secret_unlocated),
        )
        for k, r in latest.items()
    }
    subjects = {(v.p.tenant_id, v.p.subject_id) for v in wave}
    suppressed = {
        (r.tenant_id, r.subject_id, r.content_hash)
        for r in conn.execute(
            select(suppressions).where(
                pairs_in(conn, suppressions.c.tenant_id, suppressions.c.subject_id, subjects)
            )
        )
    }
    tenants = {v.p.tenant_id for v in wave}
    profiles = {
        r.tenant_id: r.profile
        for r in conn.execute(
            select(tenant_policies).where(tenant_policies.c.tenant_id.in_(tenants))
        )
    }
    return _Reads(existing, stored, msgs, suppressed, profiles)


def _is_suppressed(v: Verified, msg: StoredMessage | None, reads: _Reads) -> bool:
    texts = [claim_text(v.p.value)]
    if msg is not None and 0 <= v.p.evidence.start < v.p.evidence.end <= len(msg.text):
        texts.append(msg.text[v.p.evidence.start : v.p.evidence.end])
    return any(
        (v.p.tenant_id, v.p.subject_id, normalized_content_hash(t)) in reads.suppressed
        for t in texts
        if t
    )


def _lock(
    conn: Connection, locking: list[tuple[Verified, Assessment]], now: Any
) -> tuple[dict[str, int], dict[str, dict[str, Any]], dict[str, CurrentFact]]:
    """Seen versions, then the fact-key rows locked in memory_id order, then current values."""
    if not locking:
        return {}, {}, {}
    ids = sorted({v.memory_id for v, _ in locking})
    seen = {
        r.memory_id: int(r.current_version)
        for r in conn.execute(
            select(fact_keys.c.memory_id, fact_keys.c.current_version).where(
                in_list(conn, fact_keys.c.memory_id, ids)
            )
        )
    }
    fresh = {v.memory_id: v for v, _ in locking if v.memory_id not in seen}
    if fresh:
        # ON CONFLICT DO NOTHING: a concurrent batch may create the same key; either way a
        # row exists to lock, so first writers of a new fact serialise on it.
        insert_ignore(
            conn,
            fact_keys,
            [
                {**v.fact_key, "memory_id": m, "current_version": 0, "updated_at": now}
                for m, v in sorted(fresh.items())
            ],
            list(FACT_KEY_COLUMNS),
        )
    stmt = (
        select(fact_keys)
        .where(in_list(conn, fact_keys.c.memory_id, ids))
        .order_by(fact_keys.c.memory_id)
    )
    if conn.dialect.name == "postgresql":
        # Locks are taken in memory_id order (LockRows sits above the sort), the same order
        # every batch uses, so two batches can wait for each other but never deadlock.
        stmt = stmt.with_for_update()
    locked = {r.memory_id: dict(r._mapping) for r in conn.execute(stmt)}
    projected = conn.execute(
        select(
            current_memories.c.memory_id, current_memories.c.version, current_memories.c.value_json
        ).where(in_list(conn, current_memories.c.memory_id, ids))
    ).all()
    # Two index lookups rather than a join: with a long IN list the planner would hash-join
    # a sequential scan of all of history, which grows with every batch.
    valid_from = {}
    if projected:
        valid_from = {
            (r.memory_id, r.version): r.valid_from
            for r in conn.execute(
                select(
                    memory_versions.c.memory_id,
                    memory_versions.c.version,
                    memory_versions.c.valid_from,
                ).where(
                    pairs_in(
                        conn,
                        memory_versions.c.memory_id,
                        memory_versions.c.version,
                        [(r.memory_id, r.version) for r in projected],
                    )
                )
            )
        }
    current = {
        r.memory_id: CurrentFact(
            r.version, json.loads(r.value_json), valid_from[(r.memory_id, r.version)]
        )
        for r in projected
    }
    return seen, locked, current


def decide_wave(
    conn: Connection, wave: list[Verified], ctx: GateContext
) -> tuple[dict[int, Receipt], list[Verified]]:
    """Receipts for one wave, keyed by each proposal's position in the caller's batch, and
    the proposals that reuse a stored id with another payload (the caller refuses those:
    they are audited, never stored as proposals)."""
    reads = _read(conn, wave)
    out: dict[int, Receipt] = {}
    conflicts: list[Verified] = []
    todo: list[tuple[Verified, Assessment, StoredMessage | None]] = []
    for v in wave:
        pid = (v.p.tenant_id, v.p.proposal_id)
        first = reads.existing.get(pid)
        if first is not None:
            if first == v.payload_hash:  # exact replay: the stored receipt, no writes
                out[v.index] = Receipt.model_validate_json(reads.stored[pid])
            else:
                conflicts.append(v)
            continue
        msg = reads.messages.get((v.p.tenant_id, v.p.evidence.message_id))
        review_all = reads.profiles.get(v.p.tenant_id, ctx.default_profile) == "review_all"
        a = assess(
            v.p, msg, ctx.registry, review_all=review_all, suppressed=_is_suppressed(v, msg, reads)
        )
        todo.append((v, a, msg))
    locking = [(v, a) for v, a, _ in todo if not (a.reject or a.tainted or a.not_durable)]
    seen, locked, current = _lock(conn, locking, ctx.now)
    needs_lock = {v.index for v, _ in locking}
    writes = _Writes(ctx)
    for v, a, msg in todo:
        fact_row = locked.get(v.memory_id) if v.index in needs_lock else None
        if fact_row is not None:
            a.passed("fact_key_locked")
        verdict = decide(
            a,
            value=v.p.value,
            current=current.get(v.memory_id) if fact_row else None,
            seen_version=seen.get(v.memory_id, 0) if fact_row else 0,
            locked_version=int(fact_row["current_version"]) if fact_row else 0,
            evidence_at=msg.created_at if msg else ctx.now,
        )
        out[v.index] = writes.add(v, a, msg, verdict, fact_row, current.get(v.memory_id))
    writes.flush(conn)
    return out, conflicts


class _Writes:
    """Rows of one wave, written with one multi-row statement per table."""

    def __init__(self, ctx: GateContext) -> None:
        self.ctx = ctx
        self.rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.cas: list[dict[str, Any]] = []
        self.events: list[tuple[Topic, str, str, dict[str, Any]]] = []

    def add(
        self,
        v: Verified,
        a: Assessment,
        msg: StoredMessage | None,
        verdict: Verdict,
        fact_row: dict[str, Any] | None,
        current: CurrentFact | None,
    ) -> Receipt:
        ctx, p = self.ctx, v.p
        mem_ref: tuple[str, int] | None = None
        events: list[str] = []
        if verdict.decision == Decision.COMMIT and fact_row is not None and msg is not None:
            mem_ref = self._commit(v, msg, fact_row)
            events.append("memory.committed")
        elif verdict.decision == Decision.NOOP and current is not None and msg is not None:
            mem_ref = (v.memory_id, current.version)
            self.rows["evidence"].append(
                {
                    "memory_id": v.memory_id,
                    "version": current.version,
                    "tenant_id": p.tenant_id,
                    "message_id": msg.message_id,
                    "revision": msg.revision,
                }
            )
        receipt = Receipt(
            tenant_id=p.tenant_id,
            proposal_id=p.proposal_id,
            payload_hash=v.payload_hash,
            decision=verdict.decision,
            reasons=list(verdict.reasons),
            checks_passed=list(dict.fromkeys(a.checks_passed)),
            memory_id=mem_ref[0] if mem_ref else None,
            memory_version=mem_ref[1] if mem_ref else None,
            policy_version=ctx.policy_version,
            decided_at=ctx.now,
            side_effects={
                "proposal_recorded": True,
                "memory_version_created": verdict.decision == Decision.COMMIT,
                "outbox_events": events,
            },
        )
        locked_version = int(fact_row["current_version"]) if fact_row else 0
        self.rows["proposals"].append(
            proposal_row(
                p,
                v.payload_hash,
                verdict,
                receipt,
                locked_version,
                msg.revision if msg else 0,
                redact=a.secret,
                now=ctx.now,
                proposed_by=ctx.proposed_by or f"extractor:{p.extractor_version}",
            )
        )
        self.rows["receipts"].append(
            {
                "tenant_id": p.tenant_id,
                "proposal_id": p.proposal_id,
                "body": receipt_body(receipt),
                "created_at": ctx.now,
            }
        )
        log_decision(p.proposal_id, verdict)
        return receipt

    def _commit(self, v: Verified, msg: StoredMessage, fact_row: dict[str, Any]) -> tuple[str, int]:
        now, p = self.ctx.now, v.p
        version = int(fact_row["current_version"]) + 1
        self.cas.append(
            {
                "b_id": fact_row["id"],
                "b_old": fact_row["current_version"],
                "b_new": version,
                "b_now": now,
            }
        )
        key = {k: fact_row[k] for k in FACT_KEY_COLUMNS}
        value_json = dumps(p.value)
        self.rows["versions"].append(
            {
                "memory_id": v.memory_id,
                "version": version,
                **key,
                "value_json": value_json,
                "status": MemoryStatus.COMMITTED,
                "status_reason": None,
                "proposal_id": p.proposal_id,
                "auto": True,
                "supersedes": None,
                "derived_from": "[]",
                "valid_from": msg.created_at,
                "valid_to": None,
                "recorded_at": now,
                "expired_at": None,
                "expires_at": p.expires_at,
            }
        )
        self.rows["evidence"].append(
            {
                "memory_id": v.memory_id,
                "version": version,
                "tenant_id": p.tenant_id,
                "message_id": msg.message_id,
                "revision": msg.revision,
            }
        )
        self.rows["projection"].append(
            {
                "memory_id": v.memory_id,
                "version": version,
                **key,
                "value_json": value_json,
                "expires_at": p.expires_at,
                "updated_at": now,
            }
        )
        self.events.append(
            (
                Topic.MEMORY_COMMITTED,
                f"{v.memory_id}:{version}",
                p.tenant_id,
                {"memory_id": v.memory_id, "version": version, "subject_id": p.subject_id},
            )
        )
        return v.memory_id, version

    def flush(self, conn: Connection) -> None:
        if self.cas:
            # Compare-and-set even under the lock: a second guard that history is never
            # overwritten. executemany reports the total rows matched.
            moved = conn.execute(
                update(fact_keys)
                .where(
                    fact_keys.c.id == bindparam("b_id"),
                    fact_keys.c.current_version == bindparam("b_old"),
                )
                .values(current_version=bindparam("b_new"), updated_at=bindparam("b_now")),
                self.cas,
            ).rowcount
            if moved != len(self.cas):
                raise CompareAndSetFailed(f"{len(self.cas) - moved} fact keys moved under lock")
        if self.rows["versions"]:
            conn.execute(memory_versions.insert(), self.rows["versions"])
        if self.rows["evidence"]:
            insert_ignore(
                conn,
                memory_evidence,
                self.rows["evidence"],
                ["memory_id", "version", "message_id", "revision"],
            )
        if self.rows["projection"]:
            ids = [r["memory_id"] for r in self.rows["projection"]]
            conn.execute(
                delete(current_memories).where(in_list(conn, current_memories.c.memory_id, ids))
            )
            conn.execute(current_memories.insert(), self.rows["projection"])
        emit_many(conn, self.events)
        if self.rows["proposals"]:
            conn.execute(proposals.insert(), self.rows["proposals"])
            conn.execute(receipts.insert(), self.rows["receipts"])
