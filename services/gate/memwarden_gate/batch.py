"""The gate, set-based: a batch of proposals decided with a fixed number of statements.

Per-proposal SQL would cost about 16 round trips each; here a *wave* of proposals (no two
sharing a proposal id or a fact key) is read with one query per table, decided in Python by
the same pure checks and matrix, and written with one multi-row statement per table. A
batch that repeats an id or a fact key is split into waves that run in order, so a later
proposal sees the earlier one's commit exactly as it would one at a time.

On PostgreSQL a wave costs three round trips (``store.db.Batch``): the reads before the
lock and the lock phase (``wave_reads``), and the writes; SQLite runs the same statements
one by one.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from memwarden_gate.checks import Assessment, CheckOutcome, StoredMessage, assess
from memwarden_gate.decide import CurrentFact, Verdict, decide
from memwarden_gate.profiles import Profile, ProfileFacts, apply_profile
from memwarden_gate.records import (
    GateContext,
    Verified,
    explanation,
    keeps_no_value,
    log_decision,
    proposal_row,
    receipt_body,
)
from memwarden_gate.wave_reads import (
    Decided,
    LockedFacts,
    WaveReads,
    lock_wave,
    pid_of,
    read_wave,
)
from memwarden_shared.contract.canonical import claim_text, normalized_content_hash
from memwarden_shared.contract.models import Decision, Receipt
from memwarden_shared.contract.registry import Sensitivity
from memwarden_shared.state.memory_state import (
    NewVersion,
    evidence_row,
    queue_commit_versions,
    queue_evidence,
)
from memwarden_shared.store.db import Batch, dumps
from memwarden_shared.store.dialect import insert_ignore_stmt
from memwarden_shared.store.schema import proposals, receipts, switch_quarantine
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


def resolve_derived_from(v: Verified, reads: WaveReads) -> list[str] | None:
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


def _is_suppressed(v: Verified, msg: StoredMessage | None, reads: WaveReads) -> bool:
    texts = [claim_text(v.p.value)]
    if msg is not None and 0 <= v.p.evidence.start < v.p.evidence.end <= len(msg.text):
        texts.append(msg.text[v.p.evidence.start : v.p.evidence.end])
    return any(
        (v.p.tenant_id, v.p.subject_id, normalized_content_hash(t)) in reads.suppressed
        for t in texts
        if t
    )


Todo = tuple[Verified, Assessment, StoredMessage | None]


@dataclass
class _Answered:
    """Receipts of a wave by batch position, and the proposals that reuse a stored id with
    another payload."""

    receipts: dict[int, Receipt] = field(default_factory=dict)
    conflicts: list[Verified] = field(default_factory=list)

    def decided_before(self, v: Verified, decided: Decided) -> bool:
        """Answer ``v`` from a decision already stored, if there is one: an exact replay
        gets the stored receipt (no writes), another payload under the id is a conflict."""
        first = decided.hashes.get(pid_of(v))
        if first is None:
            return False
        if first == v.payload_hash:
            self.receipts[v.index] = Receipt.model_validate_json(decided.bodies[pid_of(v)])
        else:
            self.conflicts.append(v)
        return True


def decide_wave(
    conn: Connection, wave: list[Verified], ctx: GateContext
) -> tuple[dict[int, Receipt], list[Verified]]:
    """Receipts for one wave, keyed by each proposal's position in the caller's batch, and
    the proposals that reuse a stored id with another payload (the caller refuses those:
    they are audited, never stored as proposals)."""
    reads = read_wave(conn, wave)
    answered = _Answered()
    writes = _Writes(ctx)
    todo = [
        _assess(v, reads, ctx, writes)
        for v in wave
        if not answered.decided_before(v, reads.decided)
    ]
    locking = [(v, a) for v, a, _ in todo if not (a.reject or a.tainted or a.not_durable)]
    facts = LockedFacts()
    if locking:
        facts, late = lock_wave(conn, locking, reads.seen, ctx.now)
        # Re-read under the locks: a concurrent batch holding the same proposal may have
        # decided it while we waited (a redelivery beside the original). Its first receipt
        # stands; deciding again would fail on the unique proposal id or double-commit.
        todo = [t for t in todo if not answered.decided_before(t[0], late)]
    needs_lock = {v.index for v, _ in locking}
    for v, a, msg in todo:
        fact_row = facts.locked.get(v.memory_id) if v.index in needs_lock else None
        verdict = _verdict(v, a, msg, fact_row, facts, ctx)
        verdict = _profiled(v, a, verdict, facts, reads, ctx)
        answered.receipts[v.index] = writes.add(
            v, a, msg, verdict, fact_row, facts.current.get(v.memory_id)
        )
    writes.flush(conn)
    return answered.receipts, answered.conflicts


def _assess(v: Verified, reads: WaveReads, ctx: GateContext, writes: _Writes) -> Todo:
    """The checks of one proposal not decided before, on what the wave read."""
    msg = reads.messages.get((v.p.tenant_id, v.p.evidence.message_id))
    profile = reads.profiles.get(v.p.tenant_id, ctx.default_profile)
    writes.profiles[v.index] = profile
    review_all = profile == "review_all"
    msg_key = None if msg is None else (msg.tenant_id, msg.message_id, msg.revision)
    with message_scope(msg_key):  # its spans classified, its text scanned, once a batch
        a = assess(
            v.p,
            msg,
            ctx.registry_for(v.p.tenant_id),
            review_all=review_all,
            suppressed=_is_suppressed(v, msg, reads),
        )
    held = ctx.held_reasons(v.index)  # write-rate anomaly, rolled-back canary
    a.flag("holds", *held)
    if not held:
        a.passed("holds")
    derived = resolve_derived_from(v, reads)
    if derived is None:
        a.fail("derived_from_current", "derived_from_not_current")
    elif derived:
        a.passed("derived_from_current")
    writes.derived[v.index] = derived or []
    return v, a, msg


def _verdict(
    v: Verified,
    a: Assessment,
    msg: StoredMessage | None,
    fact_row: dict[str, Any] | None,
    facts: LockedFacts,
    ctx: GateContext,
) -> Verdict:
    """The decision matrix over the checks and, when the proposal holds its fact-key lock,
    the fact as seen before the lock and under it."""
    if fact_row is None:
        return decide(
            a,
            value=v.p.value,
            current=None,
            seen_version=0,
            locked_version=0,
            evidence_at=msg.created_at if msg else ctx.now,
        )
    a.passed("fact_key_locked")
    return decide(
        a,
        value=v.p.value,
        current=facts.current.get(v.memory_id),
        seen_version=facts.seen.get(v.memory_id, 0),
        locked_version=int(fact_row["current_version"]),
        evidence_at=msg.created_at if msg else ctx.now,
    )


def _profiled(
    v: Verified,
    a: Assessment,
    verdict: Verdict,
    facts: LockedFacts,
    reads: WaveReads,
    ctx: GateContext,
) -> Verdict:
    """The verdict under the tenant's ``staged`` or ``local`` profile (``profiles.py``)."""
    profile = reads.profiles.get(v.p.tenant_id, ctx.default_profile)
    if profile not in (Profile.STAGED, Profile.LOCAL) or verdict.decision != Decision.COMMIT:
        return verdict
    spec = ctx.registry_for(v.p.tenant_id).get(v.p.kind.value, v.p.normalized_key)
    f = ProfileFacts(
        memory_id=v.memory_id,
        kind=v.p.kind.value,
        scope_kind=v.p.scope.kind.value,
        expires=v.p.expires_at is not None,
        has_current=facts.current.get(v.memory_id) is not None,
        low_risk=bool(spec and spec.sensitivity == Sensitivity.NORMAL and spec.value.get("values")),
        sealed_single_owner=ctx.sealed.get(v.p.tenant_id, False),
        profile_since=reads.profile_since.get(v.p.tenant_id),
        now=ctx.now,
    )
    out = apply_profile(profile, verdict, f, ctx.staged)
    if out is not verdict:
        a.outcomes["policy"] = CheckOutcome.REVIEW
    return out


class _Writes:
    """Rows of one wave, written with one multi-row statement per table."""

    def __init__(self, ctx: GateContext) -> None:
        self.ctx = ctx
        self.rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.commits: list[NewVersion] = []
        self.derived: dict[int, list[str]] = {}  # batch index -> resolved derived_from
        self.profiles: dict[int, str] = {}  # batch index -> the tenant's policy profile

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
        authority = f"policy:{self.profiles.get(v.index, ctx.default_profile)}"
        verdict, held = self._switch(v, a, verdict)
        if held:
            authority = "switch:closed"
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
            **explanation(
                p,
                revision=msg.revision if msg else 0,
                checks=a.check_table(),
                ctx=ctx,
                authority=authority,
                derived_from=self.derived.get(v.index, []),
            ),
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
                redact=keeps_no_value(verdict, a.secret),
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

    def _switch(self, v: Verified, a: Assessment, verdict: Verdict) -> tuple[Verdict, bool]:
        """While the tenant's commit switch is closed, anything but a refusal is held: the
        decision it would have had goes to ``switch_quarantine`` and the proposal is
        QUARANTINEd, so nothing reaches memory until an admin opens the switch."""
        switch = self.ctx.closed.get(v.p.tenant_id)
        if switch is None or verdict.decision == Decision.REJECT:
            a.outcomes.setdefault("commit_switch", CheckOutcome.PASSED)
            return verdict, False
        a.outcomes["commit_switch"] = CheckOutcome.FAILED
        self.rows["switch_quarantine"].append(
            {
                "tenant_id": v.p.tenant_id,
                "proposal_id": v.p.proposal_id,
                "payload_hash": v.payload_hash,
                "subject_id": v.p.subject_id,
                "would_be_decision": verdict.decision.value,
                "would_be_reasons": dumps(list(verdict.reasons)),
                "switch_reason": switch.reason,
                "created_at": self.ctx.now,
            }
        )
        return Verdict(Decision.QUARANTINE, ("commit_switch_closed",)), True

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
        # ON CONFLICT DO NOTHING: the first hold of a proposal stands, as its receipt does
        batch.add(
            "gate.switch_quarantine",
            lambda conn: insert_ignore_stmt(conn, switch_quarantine, ["tenant_id", "proposal_id"]),
            self.rows["switch_quarantine"],
        )
        batch.send()
        check()
