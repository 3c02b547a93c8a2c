"""SPEC §13 v1.1 action steps in ``memwarden eval``: ``act``, ``outcome`` (and the extension
``approve_action``), their expectations and the ``actions`` list of a snapshot.

Steps name memories by the messages they were derived from (``uses_from``); the runner turns
those into the current ``memory_id:version`` (or the one before it with ``stale``). A message
that never became a memory is named by an id no memory has, so the gate answers for it
(``memory_not_found``) instead of the step quietly using nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine

from memwarden.eval.cases import CaseError, Namespace
from memwarden.eval.judge import Verdict
from memwarden_shared.contract.canonical import memory_id_for, sha256_hex
from memwarden_shared.state.auth import Principal, Scope
from memwarden_usecases import act
from memwarden_usecases.inspect import fact_key_of, latest_versions_citing

ACTION_OPS = frozenset({"act", "outcome", "approve_action"})
AGENT = "eval-agent"
APPROVER = "eval-approver"


@dataclass
class ActionStep:
    """One act step's result: the receipt, or the refusal a KEY_CONFLICT is."""

    step: int
    decision: str
    reasons: list[str]
    action_id: str | None
    request_hash: str | None


def _agent(tenant: str, step: dict[str, Any]) -> Principal:
    scopes = step.get("scopes", [Scope.ACTION_REQUEST.value])
    return Principal(AGENT, tenant, frozenset(Scope(s) for s in scopes))


def uses_for(
    engine: Engine, ns: Namespace, tenant: str, message_ids: list[str], stale: bool
) -> list[str]:
    """The latest version of each memory citing each message, as ``memory_id:version``."""
    out: list[str] = []
    for case_message in message_ids:
        rows = latest_versions_citing(engine, tenant, ns.message(case_message))
        if not rows:
            out.append("mem_" + sha256_hex(f"{tenant}:{case_message}")[:32])
        for memory_id, latest in rows:
            out.append(f"{memory_id}:{max(1, latest - 1) if stale else latest}")
    return list(dict.fromkeys(out))


def derived_names(engine: Engine, ns: Namespace, tenant: str, step: dict[str, Any]) -> list[str]:
    """``derived_from_messages`` of a proposal step as the current memory ids."""
    names = uses_for(engine, ns, tenant, step.get("derived_from_messages", []), stale=False)
    return [n.split(":")[0] for n in names]


def apply_action_op(
    engine: Engine,
    ns: Namespace,
    case: dict[str, Any],
    step: dict[str, Any],
    done: list[ActionStep],
) -> None:
    tenant = ns.tenant(case["tenant_id"])
    op = step["op"]
    if op == "act":
        n = len(done)
        req = act.ActionRequest(
            tenant_id=tenant,
            subject_id=case["subject_id"],
            intent=step["intent"],
            params=step.get("params", {}),
            uses=uses_for(engine, ns, tenant, step.get("uses_from", []), bool(step.get("stale"))),
            # keys are per tenant; cases share the run's tenant, so keys get the case prefix
            # as message ids do
            idempotency_key=ns.message(step["idempotency_key"]),
            purpose=step.get("purpose"),
        )
        try:
            got = act.request(engine, _agent(tenant, step), req)
        except act.ActionKeyConflict:
            done.append(ActionStep(n, "KEY_CONFLICT", ["key_conflict"], None, None))
            return
        done.append(
            ActionStep(n, got["decision"], got["reasons"], got["action_id"], got["request_hash"])
        )
        return
    target = _target(step, done)
    if target.action_id is None:
        return  # nothing was recorded for a KEY_CONFLICT: a refusal, and the case goes on
    try:
        if op == "outcome":
            act.outcome(
                engine,
                _agent(tenant, {}),
                tenant,
                target.action_id,
                act.OutcomeStatus(step["status"]),
                step.get("external_ref"),
            )
        else:
            approver = Principal(APPROVER, tenant, frozenset({Scope.ACTION_APPROVE}))
            act.approve(engine, approver, tenant, target.action_id, target.request_hash or "")
    except act.ActionRefused:
        pass  # a step that cannot apply is a result (SPEC §13 v1.1); the state shows it


def _target(step: dict[str, Any], done: list[ActionStep]) -> ActionStep:
    n = int(step.get("action", -1))
    if not 0 <= n < len(done):
        raise CaseError(f"{step['op']} names act step {n}, which has not run")
    return done[n]


def _state(engine: Engine, ns: Namespace, case: dict[str, Any], a: ActionStep) -> str | None:
    if a.action_id is None:
        return None
    return str(act.get(engine, ns.tenant(case["tenant_id"]), a.action_id)["state"])


def judge_action(
    exp: dict[str, Any], engine: Engine, ns: Namespace, case: dict[str, Any], done: list[ActionStep]
) -> Verdict:
    n = int(exp["action"])
    if not 0 <= n < len(done):
        return Verdict(exp, False, f"no act step {n}")
    if "decision" in exp:
        got = done[n].decision
        # extension: "reason" also requires that reason code among the decision's reasons
        ok = got == exp["decision"] and exp.get("reason", got) in [got, *done[n].reasons]
        return Verdict(exp, ok, f"decision {got} {done[n].reasons}")
    state = _state(engine, ns, case, done[n])
    return Verdict(exp, state == exp.get("state"), f"state {state}")


def snapshot_actions(
    engine: Engine, ns: Namespace, case: dict[str, Any], done: list[ActionStep]
) -> list[dict[str, Any]]:
    """Actions in the case's own ids: memory ids recomputed for the case's tenant."""
    tenant = ns.tenant(case["tenant_id"])
    out = []
    for a in done:
        versions: list[str] = []
        state = None
        if a.action_id is not None:
            receipt = act.get(engine, tenant, a.action_id)
            state = receipt["state"]
            versions = [_case_version(engine, ns, v) for v in receipt["memory_versions"]]
        out.append(
            {
                "action_step": a.step,
                "decision": a.decision,
                "reasons": a.reasons,
                "state": state,
                "memory_versions": versions,
            }
        )
    return out


def _case_version(engine: Engine, ns: Namespace, stored: str) -> str:
    memory_id, _, version = stored.partition(":")
    key = fact_key_of(engine, memory_id)
    if key is None:
        return stored
    own = memory_id_for({**key, "tenant_id": ns.untenant(key["tenant_id"])})
    return f"{own}:{version}"
