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

from memwarden.services.gate.checks import Assessment, StoredMessage, assess
from memwarden.services.gate.commit import receipt_body
from memwarden.services.gate.decide import CurrentFact, Verdict, decide
from memwarden.services.gate.records import GateContext, Verified, log_decision, proposal_row
from memwarden.shared.canonical import claim_text, normalized_content_hash
from memwarden.shared.db import in_list, in_offset, insert_ignore, pairs_in
from memwarden.shared.memory_state import NewVersion, add_evidence, commit_versions, evidence_row
from memwarden.shared.models import Decision, Receipt
from memwarden.shared.schema import (
    FACT_KEY_COLUMNS,
    current_memories,
    fact_keys,
    memory_versions,
    messages,
    proposals,
    receipts,
    suppressions,
    tenant_policies,
)
from memwarden.shared.secret_mask import spans_from_json
from sqlalchemy import Connection, select


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
    # (tenant, subject, memory_id) -> current committed version, for derived_from names
    sources: dict[tuple[str, str, str], int]


def resolve_derived_from(v: Verified, reads: _Reads) -> list[str] | None:
    """The proposal's derived_from names as exact ``memory_id:version``s of the subject's
    current committed memories; None when one names anything else (unknown, another subject,
    out of recall, or a version that is no longer current)."""
    out = []
    for name in v.p.derived_from:
        memory_id, _, version = name.partition(":")
        current = reads.sources.get((v.p.tenant_id, v.p.subject_id, memory_id))
        if current is None or (version and int(version) != current):
            return None
        out.append(f"{memory_id}:{current}")
    return out


def _decided(
    conn: Connection, pids: set[tuple[str, str]]
) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """Proposals already decided: their payload hashes, and their stored receipts."""
    if not pids:
        return {}, {}
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
    return existing, stored


def _read(conn: Connection, wave: list[Verified]) -> _Reads:
    existing, stored = _decided(conn, {(v.p.tenant_id, v.p.proposal_id) for v in wave})
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
            session_id=r.session_id,
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
    named = {n.partition(":")[0] for v in wave for n in v.p.derived_from}
    sources = {}
    if named:
        sources = {
            (r.tenant_id, r.subject_id, r.memory_id): int(r.version)
            for r in conn.execute(
                select(
                    current_memories.c.tenant_id,
                    current_memories.c.subject_id,
                    current_memories.c.memory_id,
                    current_memories.c.version,
                ).where(in_list(conn, current_memories.c.memory_id, named))
            )
        }
    return _Reads(existing, stored, msgs, suppressed, profiles, sources)


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
    writes = _Writes(ctx)
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
            v.p,
            msg,
            ctx.registry_for(v.p.tenant_id),
            review_all=review_all,
            suppressed=_is_suppressed(v, msg, reads),
        )
        a.review.extend(ctx.held_reasons(v.index))  # write-rate anomaly, rolled-back canary
        derived = resolve_derived_from(v, reads)
        if derived is None:
            a.reject.append("derived_from_not_current")
        elif derived:
            a.passed("derived_from_current")
        writes.derived[v.index] = derived or []
        todo.append((v, a, msg))
    locking = [(v, a) for v, a, _ in todo if not (a.reject or a.tainted or a.not_durable)]
    seen, locked, current = _lock(conn, locking, ctx.now)
    if locking:
        # Re-read under the locks: a concurrent batch holding the same proposal may have
        # decided it while we waited (a redelivery beside the original). Its first receipt
        # stands; deciding again would fail on the unique proposal id or double-commit.
        late, late_bodies = _decided(conn, {(v.p.tenant_id, v.p.proposal_id) for v, _ in locking})
        if late:
            kept = []
            for v, a, msg in todo:
                first = late.get((v.p.tenant_id, v.p.proposal_id))
                if first is None:
                    kept.append((v, a, msg))
                elif first == v.payload_hash:
                    out[v.index] = Receipt.model_validate_json(
                        late_bodies[(v.p.tenant_id, v.p.proposal_id)]
                    )
                else:
                    conflicts.append(v)
            todo = kept
    needs_lock = {v.index for v, _ in locking}
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
        self.commits: list[NewVersion] = []
        self.derived: dict[int, list[str]] = {}  # batch index -> resolved derived_from

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
                evidence_row(
                    v.memory_id, current.version, p.tenant_id, msg.message_id, msg.revision
                )
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
            registry_version=ctx.registry_for(p.tenant_id).version,
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
                derived_from=self.derived.get(v.index),
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
        spec = self.ctx.registry_for(v.p.tenant_id).get(v.p.kind.value, v.p.normalized_key)
        expires_at = spec.expires_at(v.p.value, v.p.expires_at, msg.created_at) if spec else None
        item = NewVersion(
            fact_row=fact_row,
            value=v.p.value,
            proposal_id=v.p.proposal_id,
            message_id=msg.message_id,
            message_revision=msg.revision,
            auto=True,
            valid_from=msg.created_at,
            expires_at=expires_at,
            derived_from=tuple(self.derived.get(v.index, [])),
        )
        self.commits.append(item)
        return item.memory_id, item.version

    def flush(self, conn: Connection) -> None:
        commit_versions(conn, self.commits, self.ctx.now)
        add_evidence(conn, self.rows["evidence"])
        if self.rows["proposals"]:
            # ON CONFLICT DO NOTHING: proposals decided without a fact-key lock (refusals)
            # can race a concurrent batch deciding the same id; the first row stands and
            # both receipts say the same. Committed ones were re-checked under the lock.
            insert_ignore(conn, proposals, self.rows["proposals"], ["tenant_id", "proposal_id"])
            insert_ignore(conn, receipts, self.rows["receipts"], ["tenant_id", "proposal_id"])
