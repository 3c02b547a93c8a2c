"""``memwarden eval``: run labelled cases (SPEC §13) through the real pipeline.

Turns are ingested and the outbox drained in-process after every step, so each step sees
the settled effect of the previous one; proposals go to the real gate; approvals, rejections,
revocations and forgets go through the same functions the CLI and API call.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TextIO

from pydantic import ValidationError
from sqlalchemy import Engine

from memwarden.eval import action_steps
from memwarden.eval.cases import CaseError, Namespace, proposal_for, turn_for, validate_case
from memwarden.eval.judge import CaseResult, judge
from memwarden.eval.state import CaseState, ProposalView, read_state
from memwarden_shared.contract.canonical import proposal_id as compute_id
from memwarden_shared.contract.canonical import proposal_identity, sha256_hex
from memwarden_shared.contract.models import Receipt, Turn, safe_error_fields
from memwarden_shared.state.auth import Principal, Scope
from memwarden_usecases import audit, extract, retract, review
from memwarden_usecases.drain import drain
from memwarden_usecases.ingest import ingest
from memwarden_usecases.inspect import decisions_by_producer
from memwarden_usecases.propose import propose
from memwarden_usecases.review import ReviewRefused


def reviewer(tenant_id: str) -> Principal:
    """The case owner's reviewer: the eval plays the owner confirming or rejecting."""
    return Principal("eval-reviewer", tenant_id, frozenset({Scope.REVIEW}))


class LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@contextmanager
def captured_logs() -> Iterator[LogCapture]:
    handler = LogCapture()
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


@dataclass
class CaseRun:
    case: dict[str, Any]
    ns: Namespace
    engine: Engine
    logs: LogCapture
    turns: list[Turn] = field(default_factory=list)
    raws: list[dict[str, Any]] = field(default_factory=list)
    receipts: list[Receipt] = field(default_factory=list)
    # one entry per approve/reject step, numbered among them: what the review said
    reviews: list[dict[str, Any]] = field(default_factory=list)
    actions: list[action_steps.ActionStep] = field(default_factory=list)
    # turns the models refused (ids off the strict pattern …): field names only, no value
    refused_turns: list[dict[str, Any]] = field(default_factory=list)

    @property
    def clock(self) -> datetime | None:
        """The case's own "now": its latest turn. Expectations judge the state right after the
        conversation, so an event memory that has since expired in wall-clock time (a March
        meeting judged in November) still counts as recallable when it was said."""
        return max((t.created_at for t in self.turns), default=None)

    @property
    def tenants(self) -> list[str]:
        own = self.ns.tenant(self.case["tenant_id"])
        named = [r.get("tenant_id") for r in self.raws]
        others = [t for t in named if isinstance(t, str) and t != own]
        return list(dict.fromkeys([own, *others]))

    @property
    def extract(self) -> bool:
        # A case with proposal steps plays the external extractor (SPEC §13).
        return not any("proposal" in s for s in self.case["steps"])


def run_cases(
    cases: list[dict[str, Any]],
    *,
    engine: Engine,
    snapshots: TextIO | None = None,
    extractor_version: str | None = None,
) -> list[CaseResult]:
    """Run the cases in a fresh namespace; ``extractor_version`` runs the built-in extractor
    under that version (None: its own)."""
    run_prefix = "run-" + uuid.uuid4().hex[:10]
    results = []
    # labelled cases back to back are a burst by design: no write-rate holds in an eval run
    with captured_logs() as logs, extract.as_labelled_burst(extractor_version):
        for case in cases:
            results.append(run_case(case, engine, run_prefix, logs, snapshots))
    return results


def run_case(
    case: dict[str, Any],
    engine: Engine,
    run_prefix: str,
    logs: LogCapture,
    snapshots: TextIO | None,
) -> CaseResult:
    result = CaseResult(case.get("id", "?"), case.get("category", "?"), case.get("lang", "?"))
    try:
        validate_case(case)
        run = CaseRun(case, Namespace(run_prefix, case["id"]), engine, logs)
        _collect_labels(case, result)
        for index, step in enumerate(case["steps"]):
            _apply(run, step)
            if "check" in step:
                _checkpoint(run, result, step["check"], index, snapshots)
        _checkpoint(run, result, case["expect"], "final", snapshots)
        result.producers = decisions_by_producer(engine, run.tenants)
    except ValidationError as exc:  # a turn the models refuse: where and why, no value
        result.error = f"ValidationError: {'; '.join(safe_error_fields(exc))}"
    except (CaseError, ReviewRefused, ValueError, LookupError) as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    return result


def _collect_labels(case: dict[str, Any], result: CaseResult) -> None:
    expectations = case["expect"] + [e for s in case["steps"] for e in s.get("check", [])]
    for exp in expectations:
        if "outcome" in exp:
            result.labels.setdefault(exp["message_id"], set()).add(exp["outcome"])
    for step in case["steps"]:
        turn = step.get("turn")
        if isinstance(turn, dict) and isinstance(turn.get("text"), str):
            result.texts[str(turn.get("message_id"))] = turn["text"]


def _apply(run: CaseRun, step: dict[str, Any]) -> None:
    if "turn" in step:
        try:
            turn = Turn.model_validate(turn_for(run.case, step, run.ns))
        except ValidationError as exc:
            # SPEC §13 v1.1: a step that cannot apply is a result, not a case error. The turn
            # is not stored; the expectations judge what the refusal leaves.
            run.refused_turns.append(
                {"turn_step": len(run.refused_turns), "fields": safe_error_fields(exc)}
            )
            return
        run.turns.append(turn)
        ingest(run.engine, [turn], extract=run.extract)
    elif "proposal" in step:
        raw = proposal_for(step, run.ns)
        if "derived_from_messages" in raw:  # names the sources by message, as act steps do
            raw.pop("derived_from_messages")
            tenant = run.ns.tenant(run.case["tenant_id"])
            raw["derived_from"] = action_steps.derived_names(
                run.engine, run.ns, tenant, step["proposal"]
            )
        run.raws.append(raw)
        run.receipts.append(propose(run.engine, [raw])[0])
    elif "op" in step:
        _apply_op(run, step)
    drain(run.engine)


def _apply_op(run: CaseRun, step: dict[str, Any]) -> None:
    op = step["op"]
    tenant = run.ns.tenant(run.case["tenant_id"])
    if op in action_steps.ACTION_OPS:
        action_steps.apply_action_op(run.engine, run.ns, run.case, step, run.actions)
        return
    if op == "replay":
        ingest(run.engine, run.turns, extract=run.extract)
        if run.raws:
            run.receipts = propose(run.engine, run.raws)
        if run.extract:
            extract.reextract(run.engine, tenant, [t.message_id for t in run.turns])
        return
    message_id = run.ns.message(step["message_id"])
    if op == "revoke_message":
        retract.revoke(run.engine, tenant, message_id)
    elif op == "forget":
        retract.forget(run.engine, tenant, message_id)
    elif op in ("approve", "reject"):
        _review(run, step, tenant)


def _review(run: CaseRun, step: dict[str, Any], tenant: str) -> None:
    """The owner confirms or rejects the newest candidate from the message. Nothing pending,
    or a refused review (a tampered payload hash), is recorded and the case goes on
    (SPEC §13 v1.1): the expectations judge the state it leaves."""
    op = step["op"]
    entry: dict[str, Any] = {
        "review_step": len(run.reviews),
        "op": op,
        "message_id": step["message_id"],
    }
    run.reviews.append(entry)
    state = read_state(run.engine, run.ns, run.tenants, run.case["subject_id"])
    pending = [
        p for p in state.proposals if p.message_id == step["message_id"] and p.state == "pending"
    ]
    if not pending:
        entry.update(result="refused", reason="nothing_pending")
        return
    target = pending[-1]
    entry["proposal_id"] = _case_proposal_id(run, target.proposal_id, target.identity)
    payload = target.payload_hash
    if step.get("tamper_payload_hash"):
        payload = sha256_hex("tampered:" + payload)
    try:
        if op == "reject":
            review.reject(run.engine, reviewer(tenant), tenant, target.proposal_id)
        else:
            review.approve(run.engine, reviewer(tenant), tenant, target.proposal_id, payload)
    except ReviewRefused as exc:
        entry.update(result="refused", reason=exc.code)
        return
    entry["result"] = "applied"


def _checkpoint(
    run: CaseRun,
    result: CaseResult,
    expectations: list[dict[str, Any]],
    checkpoint: int | str,
    snapshots: TextIO | None,
) -> None:
    state = read_state(run.engine, run.ns, run.tenants, run.case["subject_id"], now=run.clock)
    decisions: list[str | None] = [r.decision.value for r in run.receipts]
    for exp in expectations:
        if "action" in exp:
            verdict = action_steps.judge_action(exp, run.engine, run.ns, run.case, run.actions)
        else:
            verdict = judge(exp, state, decisions, lambda s: _secret_absent(run, s))
        result.verdicts.append(verdict)
    if checkpoint == "final":
        result.auto_commits = [m for m in state.memories if m.auto]
        result.proposed = dict(Counter(p.message_id for p in state.proposals))
    if snapshots is not None:
        snapshots.write(json.dumps(_snapshot(run, state, checkpoint), ensure_ascii=False) + "\n")


def _snapshot(run: CaseRun, state: CaseState, checkpoint: int | str) -> dict[str, Any]:
    """The state in the case's own ids. Proposals: one entry per proposal step, in step
    order (SPEC §13 v1.1), then the built-in extractor's proposals with ``proposal_step``
    null. A step whose proposal is stored shows the stored decision and state (an exact
    replay shows the same as the first); a refused step (a conflicting payload under the
    same id, a schema error) shows its own REJECT."""
    stored = {p.proposal_id: p for p in state.proposals}
    proposals = []
    for n, (raw, receipt) in enumerate(zip(run.raws, run.receipts, strict=False)):
        p = stored.get(str(raw.get("proposal_id")))
        if (
            p is not None
            and receipt.side_effects.get("proposal_recorded")
            and (receipt.payload_hash == p.payload_hash)
        ):
            proposals.append(_stored_entry(run, p, n))
            continue
        evidence = raw.get("evidence")
        message_id = evidence.get("message_id") if isinstance(evidence, dict) else None
        proposals.append(
            {
                "proposal_step": n,
                "proposal_id": _step_proposal_id(run, raw),
                "payload_hash": receipt.payload_hash,
                "decision": receipt.decision.value,
                "state": "rejected",
                "reasons": receipt.reasons,
                "message_id": run.ns.unmessage(message_id) if isinstance(message_id, str) else None,
            }
        )
    from_steps = {str(raw.get("proposal_id")) for raw in run.raws}
    proposals += [
        _stored_entry(run, p, None) for p in state.proposals if p.proposal_id not in from_steps
    ]
    snapshot: dict[str, Any] = {
        "case_id": run.case["id"],
        "checkpoint": checkpoint,
        "memories": [m.as_json() for m in state.memories],
        "proposals": proposals,
        "reviews": list(run.reviews),
        "recall": state.recall,
        "actions": action_steps.snapshot_actions(run.engine, run.ns, run.case, run.actions),
    }
    if run.refused_turns:  # only when one was refused: older snapshots keep their shape
        snapshot["refused_turns"] = list(run.refused_turns)
    return snapshot


def _stored_entry(run: CaseRun, p: ProposalView, step: int | None) -> dict[str, Any]:
    return {
        "proposal_step": step,
        "proposal_id": _case_proposal_id(run, p.proposal_id, p.identity),
        "payload_hash": p.payload_hash,
        "decision": p.decision,
        "state": p.state,
        "reasons": p.reasons,
        "message_id": p.message_id,
    }


def _step_proposal_id(run: CaseRun, raw: dict[str, Any]) -> Any:
    """A refused step's id in the case's own ids when it was computed, verbatim otherwise."""
    sent = raw.get("proposal_id")
    if not isinstance(sent, str):
        return sent
    try:
        evidence = raw["evidence"]
        identity = proposal_identity(
            tenant_id=raw["tenant_id"],
            subject_id=raw["subject_id"],
            scope=raw["scope"],
            kind=raw["kind"],
            normalized_key=raw["normalized_key"],
            message_id=evidence["message_id"],
            start=evidence["start"],
            end=evidence["end"],
            stable_candidate_ordinal=raw["stable_candidate_ordinal"],
            extractor_version=raw["extractor_version"],
        )
        return _case_proposal_id(run, sent, identity)
    except (KeyError, TypeError, ValueError):  # too malformed to hash: the gate said so
        return sent


def _case_proposal_id(run: CaseRun, stored_id: str, identity: dict[str, Any]) -> str:
    """The id as the case itself would compute it: its own tenant and message ids."""
    if stored_id != compute_id(identity):
        return stored_id
    own = dict(
        identity,
        tenant_id=run.ns.untenant(identity["tenant_id"]),
        message_id=run.ns.unmessage(identity["message_id"]),
    )
    return compute_id(proposal_identity(**{k: v for k, v in own.items() if k != "schema"}))


def _secret_absent(run: CaseRun, secret: str) -> bool:
    """The secret is in no table, the evidence store included (SPEC §13 v2: ingest masks
    it), and in no captured log line."""
    if any(secret in line for line in run.logs.lines):
        return False
    return not audit.text_found(run.engine, run.tenants, secret)
