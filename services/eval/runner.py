"""``memwarden eval``: run labelled cases (SPEC §13) through the real pipeline.

Turns are ingested and the outbox drained in-process after every step, so each step sees
the settled effect of the previous one; proposals go to the real gate; approvals, rejections,
revocations and forgets go through the same functions the CLI and API call.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

from sqlalchemy import Engine, String, cast, or_, select

from services.eval.cases import CaseError, Namespace, proposal_for, turn_for, validate_case
from services.eval.judge import CaseResult, judge
from services.eval.state import CaseState, read_state
from services.extractor.io import extractor_version_scope, reextract_messages
from services.gate.io import decide_batch
from services.gate.review import ReviewRefused, approve, reject
from services.ingest.io import ingest_turns
from services.pipeline import drain
from services.revalidation.commands import forget_message, revoke_message
from shared.auth import Principal, Scope
from shared.canonical import proposal_id as compute_id
from shared.canonical import proposal_identity, sha256_hex
from shared.models import Receipt, Turn
from shared.schema import metadata, processed_events


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

    @property
    def tenants(self) -> list[str]:
        own = self.ns.tenant(self.case["tenant_id"])
        others = [r["tenant_id"] for r in self.raws if r["tenant_id"] != own]
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
    with captured_logs() as logs, extractor_version_scope(extractor_version):
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
    except (CaseError, ReviewRefused, ValueError, LookupError) as exc:
        result.error = f"{type(exc).__name__}: {exc}"
    return result


def _collect_labels(case: dict[str, Any], result: CaseResult) -> None:
    expectations = case["expect"] + [e for s in case["steps"] for e in s.get("check", [])]
    for exp in expectations:
        if "outcome" in exp:
            result.labels.setdefault(exp["message_id"], set()).add(exp["outcome"])


def _apply(run: CaseRun, step: dict[str, Any]) -> None:
    if "turn" in step:
        turn = Turn.model_validate(turn_for(run.case, step, run.ns))
        run.turns.append(turn)
        ingest_turns([turn], engine=run.engine, extract=run.extract)
    elif "proposal" in step:
        raw = proposal_for(step, run.ns)
        run.raws.append(raw)
        run.receipts.append(decide_batch([raw], engine=run.engine)[0])
    elif "op" in step:
        _apply_op(run, step)
    drain(run.engine)


def _apply_op(run: CaseRun, step: dict[str, Any]) -> None:
    op = step["op"]
    tenant = run.ns.tenant(run.case["tenant_id"])
    if op == "replay":
        ingest_turns(run.turns, engine=run.engine, extract=run.extract)
        if run.raws:
            run.receipts = decide_batch(run.raws, engine=run.engine)
        if run.extract:
            reextract_messages(tenant, [t.message_id for t in run.turns], engine=run.engine)
        return
    message_id = run.ns.message(step["message_id"])
    if op == "revoke_message":
        revoke_message(tenant, message_id, engine=run.engine)
    elif op == "forget":
        forget_message(tenant, message_id, engine=run.engine)
    elif op in ("approve", "reject"):
        state = read_state(run.engine, run.ns, run.tenants, run.case["subject_id"])
        pending = [
            p
            for p in state.proposals
            if p.message_id == step["message_id"] and p.state == "pending"
        ]
        if not pending:
            raise CaseError(f"{op}: nothing pending from message {step['message_id']!r}")
        target = pending[-1]
        if op == "reject":
            reject(reviewer(tenant), tenant, target.proposal_id, engine=run.engine)
            return
        payload = target.payload_hash
        if step.get("tamper_payload_hash"):
            payload = sha256_hex("tampered:" + payload)
        try:
            approve(reviewer(tenant), tenant, target.proposal_id, payload, engine=run.engine)
        except ReviewRefused:
            if not step.get("tamper_payload_hash"):
                raise
            # a tampered approval being refused is the behaviour under test


def _checkpoint(
    run: CaseRun,
    result: CaseResult,
    expectations: list[dict[str, Any]],
    checkpoint: int | str,
    snapshots: TextIO | None,
) -> None:
    state = read_state(run.engine, run.ns, run.tenants, run.case["subject_id"])
    decisions: list[str | None] = [r.decision.value for r in run.receipts]
    for exp in expectations:
        result.verdicts.append(judge(exp, state, decisions, lambda s: _secret_absent(run, s)))
    if checkpoint == "final":
        result.auto_commits = [m for m in state.memories if m.auto]
    if snapshots is not None:
        snapshots.write(json.dumps(_snapshot(run, state, checkpoint), ensure_ascii=False) + "\n")


def _snapshot(run: CaseRun, state: CaseState, checkpoint: int | str) -> dict[str, Any]:
    steps_by_id = {raw["proposal_id"]: n for n, raw in enumerate(run.raws)}
    proposals = []
    for p in state.proposals:
        proposals.append(
            {
                "proposal_step": steps_by_id.get(p.proposal_id),
                "proposal_id": _case_proposal_id(run, p.proposal_id, p.identity),
                "payload_hash": p.payload_hash,
                "decision": p.decision,
                "state": p.state,
                "reasons": p.reasons,
                "message_id": p.message_id,
            }
        )
    recorded = {p.proposal_id for p in state.proposals}
    for n, (raw, receipt) in enumerate(zip(run.raws, run.receipts, strict=False)):
        if receipt.side_effects.get("proposal_recorded") and raw["proposal_id"] in recorded:
            continue
        proposals.append(
            {
                "proposal_step": n,
                "proposal_id": raw["proposal_id"],
                "payload_hash": receipt.payload_hash,
                "decision": receipt.decision.value,
                "state": "rejected",
                "reasons": receipt.reasons,
                "message_id": run.ns.unmessage(raw["evidence"]["message_id"]),
            }
        )
    return {
        "case_id": run.case["id"],
        "checkpoint": checkpoint,
        "memories": [m.as_json() for m in state.memories],
        "proposals": proposals,
        "recall": state.recall,
    }


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
    with run.engine.connect() as conn:
        for table in metadata.sorted_tables:
            stmt = select(table)
            if "tenant_id" in table.c:
                stmt = stmt.where(table.c.tenant_id.in_(run.tenants))
            elif table is processed_events:
                stmt = stmt.where(
                    or_(*(cast(table.c.event_key, String).like(f"{t}:%") for t in run.tenants))
                )
            for row in conn.execute(stmt):
                if any(isinstance(v, str) and secret in v for v in row):
                    return False
    return True
