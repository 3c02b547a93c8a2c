"""The gate, set-based: a batch of proposals decided with a fixed number of statements.

Per-proposal SQL would cost about 16 round trips each; here a *wave* of proposals (no two
sharing a proposal id or a fact key) is read with one query per table, decided in Python by
the same pure checks and matrix, and written with one multi-row statement per table. A
batch that repeats an id or a fact key is split into waves that run in order, so a later
proposal sees the earlier one's commit exactly as it would one at a time.

On PostgreSQL a wave costs three round trips (``shared.db.Batch``): the reads before the
lock, the lock phase, and the writes; SQLite runs the same statements one by one.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from memwarden_gate.checks import Assessment, StoredMessage, assess
from memwarden_gate.decide import CurrentFact, Verdict, decide
from memwarden_gate.records import GateContext, Verified, log_decision, proposal_row, receipt_body
from memwarden_shared.contract.canonical import claim_text, normalized_content_hash
from memwarden_shared.contract.models import Decision, Receipt
from memwarden_shared.detect.secret_mask import spans_from_json
from memwarden_shared.state.memory_state import (
    NewVersion,
    evidence_row,
    queue_commit_versions,
    queue_evidence,
    queue_lock,
)
from memwarden_shared.store.db import Batch, Step, in_offset
from memwarden_shared.store.dialect import in_param, insert_ignore_stmt, pairs_in
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
from memwarden_shared.text.batch_memo import message_scope


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


def _queue_decided(batch: Batch, pids: set[tuple[str, str]]) -> Step:
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


def _decided_from(
    conn: Connection, step: Step, pids: set[tuple[str, str]]
) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    """Proposals already decided (a sent ``_queue_decided``): their payload hashes, and
    their stored receipts (read only when there are any: replays are rare)."""
    existing = {
        (r["tenant_id"], r["proposal_id"]): r["payload_hash"]
        for r in step.rows
        if (r["tenant_id"], r["proposal_id"]) in pids  # the lists match a superset
    }
    stored: dict[tuple[str, str], str] = {}
    if existing:
        stored = {
            (r.tenant_id, r.proposal_id): r.body
            for r in conn.execute(
                select(receipts).where(
                    pairs_in(conn, receipts.c.tenant_id, receipts.c.proposal_id, existing)
                )
            )
        }
    return existing, stored


def _read(conn: Connection, wave: list[Verified]) -> tuple[_Reads, dict[str, int]]:
    """Everything a wave reads before the locks, in one round trip on PostgreSQL; with the
    fact keys' versions as seen before the lock."""
    batch = Batch(conn)
    pids = {(v.p.tenant_id, v.p.proposal_id) for v in wave}
    decided = _queue_decided(batch, pids)
    tenants = sorted({v.p.tenant_id for v in wave})
    message_rows = batch.add(
        "gate.messages",
        lambda conn: select(messages).where(
            in_param(conn, messages.c.tenant_id, "tenants"),
            in_param(conn, messages.c.message_id, "ids"),
        ),
        {"tenants": tenants, "ids": sorted({v.p.evidence.message_id for v in wave})},
    )
    suppression_rows = batch.add(
        "gate.suppressions",
        lambda conn: select(suppressions).where(
            in_param(conn, suppressions.c.tenant_id, "tenants"),
            in_param(conn, suppressions.c.subject_id, "ids"),
        ),
        {"tenants": tenants, "ids": sorted({v.p.subject_id for v in wave})},
    )
    policy_rows = batch.add(
        "gate.policies",
        lambda conn: select(tenant_policies).where(
            in_param(conn, tenant_policies.c.tenant_id, "tenants")
        ),
        {"tenants": tenants},
    )
    named = sorted({n.partition(":")[0] for v in wave for n in v.p.derived_from})
    source_rows = batch.add(
        "gate.sources",
        lambda conn: select(
            current_memories.c.tenant_id,
            current_memories.c.subject_id,
            current_memories.c.memory_id,
            current_memories.c.version,
        ).where(in_param(conn, current_memories.c.memory_id, "ids")),
        {"ids": named} if named else [],
    )
    seen_rows = batch.add(
        "gate.seen",
        lambda conn: select(fact_keys.c.memory_id, fact_keys.c.current_version).where(
            in_param(conn, fact_keys.c.memory_id, "ids")
        ),
        {"ids": sorted({v.memory_id for v in wave})},
    )
    batch.send()
    existing, stored = _decided_from(conn, decided, pids)
    wanted = {(v.p.tenant_id, v.p.evidence.message_id) for v in wave}
    latest: dict[tuple[str, str], Any] = {}
    for r in message_rows.rows:
        key = (r["tenant_id"], r["message_id"])
        if key in wanted and (key not in latest or r["revision"] > latest[key]["revision"]):
            latest[key] = r
    msgs = {
        k: StoredMessage(
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
        for k, r in latest.items()
    }
    suppressed = {
        (r["tenant_id"], r["subject_id"], r["content_hash"]) for r in suppression_rows.rows
    }
    profiles = {r["tenant_id"]: r["profile"] for r in policy_rows.rows}
    sources = {
        (r["tenant_id"], r["subject_id"], r["memory_id"]): int(r["version"])
        for r in source_rows.rows
    }
    seen = {r["memory_id"]: int(r["current_version"]) for r in seen_rows.rows}
    return _Reads(existing, stored, msgs, suppressed, profiles, sources), seen


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
    conn: Connection, locking: list[tuple[Verified, Assessment]], seen: dict[str, int], now: Any
) -> tuple[dict[str, dict[str, Any]], dict[str, CurrentFact], Step]:
    """The fact-key rows (created if new) locked in memory_id order, the current values
    read under the locks, and the proposals decided meanwhile (a queued ``_queue_decided``),
    in one round trip on PostgreSQL."""
    batch = Batch(conn)
    ids = sorted({v.memory_id for v, _ in locking})
    # keys not seen before the lock are created (if still missing) and locked with the rest
    fresh = {v.memory_id: v.fact_key for v, _ in locking if v.memory_id not in seen}
    locked_rows = queue_lock(batch, ids, create=fresh, now=now)
    current_rows = batch.add("gate.current", _current_statement, {"ids": ids})
    late = _queue_decided(batch, {(v.p.tenant_id, v.p.proposal_id) for v, _ in locking})
    batch.send()
    locked = {r["memory_id"]: r for r in locked_rows.rows}
    current = {
        r["memory_id"]: CurrentFact(r["version"], json.loads(r["value_json"]), r["valid_from"])
        for r in current_rows.rows
    }
    return locked, current, late


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


def decide_wave(
    conn: Connection, wave: list[Verified], ctx: GateContext
) -> tuple[dict[int, Receipt], list[Verified]]:
    """Receipts for one wave, keyed by each proposal's position in the caller's batch, and
    the proposals that reuse a stored id with another payload (the caller refuses those:
    they are audited, never stored as proposals)."""
    reads, seen_all = _read(conn, wave)
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
        msg_key = None if msg is None else (msg.tenant_id, msg.message_id, msg.revision)
        with message_scope(msg_key):  # its spans classified, its text scanned, once a batch
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
    seen: dict[str, int] = {}
    locked: dict[str, dict[str, Any]] = {}
    current: dict[str, CurrentFact] = {}
    if locking:
        seen = {v.memory_id: seen_all[v.memory_id] for v, _ in locking if v.memory_id in seen_all}
        locked, current, late_step = _lock(conn, locking, seen, ctx.now)
        # Re-read under the locks: a concurrent batch holding the same proposal may have
        # decided it while we waited (a redelivery beside the original). Its first receipt
        # stands; deciding again would fail on the unique proposal id or double-commit.
        late, late_bodies = _decided_from(
            conn, late_step, {(v.p.tenant_id, v.p.proposal_id) for v, _ in locking}
        )
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
        """Every row of the wave in one round trip on PostgreSQL."""
        batch = Batch(conn)
        check = queue_commit_versions(batch, self.commits, self.ctx.now)
        queue_evidence(batch, self.rows["evidence"])
        # ON CONFLICT DO NOTHING: proposals decided without a fact-key lock (refusals) can
        # race a concurrent batch deciding the same id; the first row stands and both
        # receipts say the same. Committed ones were re-checked under the lock.
        batch.add(
            "gate.proposals",
            lambda conn: insert_ignore_stmt(conn, proposals, ["tenant_id", "proposal_id"]),
            self.rows["proposals"],
        )
        batch.add(
            "gate.receipts",
            lambda conn: insert_ignore_stmt(conn, receipts, ["tenant_id", "proposal_id"]),
            self.rows["receipts"],
        )
        batch.send()
        check()
