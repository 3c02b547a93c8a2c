"""The action gate (SPEC §14) on both backends: every decision, read from the store at action
time; approvals by another principal bound to the request hash; outcomes; the repair list."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine, select

from memwarden_actions.lifecycle import (
    OutcomeStatus,
    actions_for_memory,
    affected_by_message,
    approve_action,
    report_outcome,
)
from memwarden_actions.receipts import ActionKeyConflict, ActionRefused
from memwarden_actions.request import ActionRequest
from memwarden_revalidation.commands import reject_memory, revoke_message
from memwarden_shared.state.auth import Forbidden, Scope
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.schema import outbox
from memwarden_shared.store.tenant_scope import tenant_scope
from tests.actions_helpers import act, agent, approver, memory_of, say, status_of

NPM = "I use npm for every project"


def npm_memory(store: Engine, tenant: str) -> tuple[str, str, int]:
    mid = say(store, tenant, NPM)
    memory_id, version = memory_of(store, tenant, mid)
    return mid, memory_id, version


def test_action__ordinary_intent_on_a_committed_memory_is_allowed(
    store: Engine, tenant: str
) -> None:
    _, memory_id, version = npm_memory(store, tenant)
    got = act(store, tenant, "package.install", [memory_id], params={"package": "express"})
    assert got["decision"] == "ALLOW"
    assert got["state"] == "allowed"
    assert got["memory_versions"] == [f"{memory_id}:{version}"]
    assert "params" not in got  # params may hold message text; the receipt binds their hash


def test_action__preference_is_no_authority_for_a_payment(store: Engine, tenant: str) -> None:
    _, memory_id, _ = npm_memory(store, tenant)
    got = act(store, tenant, "payment.create", [memory_id], params={"amount": "10.00"})
    assert (got["decision"], got["reasons"]) == ("DENY", ["prohibited_action"])


def test_action__high_consequence_without_memories_needs_approval(
    store: Engine, tenant: str
) -> None:
    got = act(store, tenant, "deploy.production", [], params={"service": "api"})
    assert (got["decision"], got["state"]) == ("NEEDS_APPROVAL", "awaiting_approval")


def test_action__revoked_evidence_is_denied_before_any_worker_runs(
    store: Engine, tenant: str
) -> None:
    mid, memory_id, _ = npm_memory(store, tenant)
    revoke_message(tenant, mid, engine=store)  # no drain: the cascade has not run
    got = act(store, tenant, "package.install", [memory_id])
    assert got["decision"] == "DENY"
    assert "evidence_revoked" in got["reasons"]


def test_action__rejected_memory_is_denied_memory_revoked(store: Engine, tenant: str) -> None:
    _, memory_id, _ = npm_memory(store, tenant)
    reject_memory(tenant, memory_id, engine=store)
    assert act(store, tenant, "package.install", [memory_id])["reasons"] == ["memory_revoked"]


def test_action__a_named_version_older_than_the_current_is_stale(
    store: Engine, tenant: str
) -> None:
    from memwarden_gate.review import approve
    from memwarden_shared.state.auth import Principal

    _, memory_id, version = npm_memory(store, tenant)
    say(store, tenant, "I use pnpm for every project")  # a replacement awaits the owner
    with unit_of_work(store) as uow:
        from memwarden_shared.store.schema import proposals

        pending = uow.conn.execute(
            select(proposals.c.proposal_id, proposals.c.payload_hash).where(
                proposals.c.tenant_id == tenant, proposals.c.state == "pending"
            )
        ).one()
    owner = Principal("owner", tenant, frozenset({Scope.REVIEW}))
    approve(owner, tenant, pending.proposal_id, pending.payload_hash, engine=store)
    got = act(store, tenant, "package.install", [f"{memory_id}:{version}"])
    assert (got["decision"], got["reasons"]) == ("STALE", ["stale_version"])
    fresh = act(store, tenant, "package.install", [f"{memory_id}:{version + 1}"])
    assert fresh["decision"] == "ALLOW"


def test_action__expired_memory_is_denied(store: Engine, tenant: str) -> None:
    _, memory_id, _ = npm_memory(store, tenant)
    from memwarden_actions.io import request_action

    req = ActionRequest(
        tenant_id=tenant,
        subject_id="u1",
        intent="package.install",
        uses=[memory_id],
        idempotency_key="exp-1",
    )
    # the memory has no expiry of its own; give it one in the past through the store
    from sqlalchemy import update

    from memwarden_shared.store.schema import memory_versions

    with unit_of_work(store) as uow:
        uow.conn.execute(
            update(memory_versions)
            .where(memory_versions.c.memory_id == memory_id)
            .values(expires_at=utcnow() - timedelta(days=1))
        )
        uow.commit()
    got = request_action(req, agent(tenant), engine=store)
    assert (got["decision"], got["reasons"]) == ("DENY", ["memory_expired"])


def test_action__purpose_outside_the_keys_purposes_is_denied(store: Engine, tenant: str) -> None:
    _, memory_id, _ = npm_memory(store, tenant)
    got = act(store, tenant, "package.install", [memory_id], purpose="marketing")
    assert got["reasons"] == ["purpose_not_allowed"]
    ok = act(store, tenant, "package.install", [memory_id], purpose="coding_assistance")
    assert ok["decision"] == "ALLOW"


def test_action__principal_without_action_request_is_denied_not_authorised(
    store: Engine, tenant: str
) -> None:
    _, memory_id, _ = npm_memory(store, tenant)
    reader = agent(tenant, Scope.READ)
    got = act(store, tenant, "package.install", [memory_id], principal=reader)
    assert (got["decision"], got["reasons"]) == ("DENY", ["not_authorised"])


def test_action__another_tenants_principal_is_refused_and_nothing_recorded(
    store: Engine, tenant: str
) -> None:
    with pytest.raises(Forbidden):
        act(store, tenant, "package.install", [], principal=agent("other-tenant"), key="x1")
    assert act(store, tenant, "package.install", [], key="x1")["decision"] == "ALLOW"


def test_action__memory_of_another_tenant_or_subject_is_not_found(
    store: Engine, tenant: str
) -> None:
    _, memory_id, _ = npm_memory(store, tenant)
    other = act(store, tenant, "package.install", [memory_id], subject="u2")
    assert other["reasons"] == ["memory_not_found"]
    with tenant_scope("t-elsewhere"):  # as the API would run t-elsewhere's request
        elsewhere = act(
            store, "t-elsewhere", "package.install", [memory_id], principal=agent("t-elsewhere")
        )
    assert elsewhere["reasons"] == ["memory_not_found"]


def test_action__unknown_intent_is_a_recorded_deny(store: Engine, tenant: str) -> None:
    """A refusal is a result (SPEC §14 v2): DENY unknown_intent with a receipt, and the same
    key again returns that receipt."""
    first = act(store, tenant, "rocket.launch", [], key="k-unknown")
    assert (first["decision"], first["reasons"]) == ("DENY", ["unknown_intent"])
    assert first["action_id"]
    again = act(store, tenant, "rocket.launch", [], key="k-unknown")
    assert (again["decision"], again["action_id"]) == ("DUPLICATE", first["action_id"])


def test_action__same_key_same_request_is_duplicate_with_the_first_receipt(
    store: Engine, tenant: str
) -> None:
    _, memory_id, _ = npm_memory(store, tenant)
    first = act(store, tenant, "package.install", [memory_id], params={"p": "a"}, key="k")
    again = act(store, tenant, "package.install", [memory_id], params={"p": "a"}, key="k")
    assert again["decision"] == "DUPLICATE"
    assert again["first_decision"] == "ALLOW"
    assert again["action_id"] == first["action_id"]


def test_action__same_key_other_params_is_key_conflict(store: Engine, tenant: str) -> None:
    act(store, tenant, "package.install", [], params={"p": "a"}, key="k")
    with pytest.raises(ActionKeyConflict) as err:
        act(store, tenant, "package.install", [], params={"p": "b"}, key="k")
    assert err.value.receipt()["decision"] == "KEY_CONFLICT"


def test_approval__by_another_principal_bound_to_the_request_hash(
    store: Engine, tenant: str
) -> None:
    got = act(store, tenant, "record.delete", [], params={"record": "r1"})
    with pytest.raises(ActionRefused):
        approve_action(approver(tenant), tenant, got["action_id"], "0" * 64, engine=store)
    with pytest.raises(ActionRefused):  # the requester cannot approve itself
        self_approver = agent(tenant, Scope.ACTION_APPROVE, Scope.ACTION_REQUEST)
        approve_action(self_approver, tenant, got["action_id"], got["request_hash"], engine=store)
    with pytest.raises(Forbidden):  # approving needs action:approve
        approve_action(
            agent(tenant, principal_id="p2"),
            tenant,
            got["action_id"],
            got["request_hash"],
            engine=store,
        )
    done = approve_action(
        approver(tenant), tenant, got["action_id"], got["request_hash"], engine=store
    )
    assert (done["state"], done["approved_by"]) == ("allowed", "approver-1")


def test_approval__voided_when_a_used_memory_was_revoked_meanwhile(
    store: Engine, tenant: str
) -> None:
    mid = say(store, tenant, "We decided to bill Acme through the Singapore entity.")
    memory_id, _ = memory_of(store, tenant, mid)
    got = act(store, tenant, "payment.create", [memory_id], params={"amount": "5"})
    assert got["decision"] == "NEEDS_APPROVAL", got
    revoke_message(tenant, mid, engine=store)
    done = approve_action(
        approver(tenant), tenant, got["action_id"], got["request_hash"], engine=store
    )
    assert done["state"] == "cancelled"


def test_outcome__executed_then_revocation_needs_repair_with_the_reference(
    store: Engine, tenant: str
) -> None:
    from memwarden_usecases.pipeline import drain

    mid, memory_id, version = npm_memory(store, tenant)
    executed = act(store, tenant, "package.install", [memory_id])
    pending = act(store, tenant, "message.send", [memory_id])
    report_outcome(
        agent(tenant), tenant, executed["action_id"], OutcomeStatus.EXECUTED, "job-42", engine=store
    )
    revoke_message(tenant, mid, engine=store)
    drain(store)
    repair = affected_by_message(tenant, mid, engine=store)
    states = {a["action_id"]: (a["state"], a["external_ref"]) for a in repair["actions"]}
    assert states == {
        executed["action_id"]: ("needs_repair", "job-42"),
        pending["action_id"]: ("cancelled", None),
    }
    assert repair["memories"][0]["memory_id"] == memory_id
    assert {a["owner"] for a in repair["actions"]} == {"agent-1"}
    # the caller of the cancelled action learns it when it reports
    late = report_outcome(
        agent(tenant), tenant, pending["action_id"], OutcomeStatus.EXECUTED, "msg-7", engine=store
    )
    assert (late["state"], late["state_reason"]) == ("needs_repair", "executed_after_cancel")
    with unit_of_work(store) as uow:
        topics = sorted(
            uow.conn.execute(
                select(outbox.c.topic).where(
                    outbox.c.tenant_id == tenant, outbox.c.topic.like("action.%")
                )
            ).scalars()
        )
    assert topics == ["action.cancelled", "action.needs_repair", "action.needs_repair"]
    assert len(actions_for_memory(tenant, memory_id, engine=store)) == 2
    assert status_of(store, memory_id, version) == "revoked"


def test_outcome__a_resent_report_answers_the_first_record(store: Engine, tenant: str) -> None:
    """A caller whose reply was lost sends the report again: it gets the receipt as first
    recorded (same ``reported_at`` and reference), on a cancelled action too, and after the
    repair it opened was closed; only "executed" after a no-effect report opens a repair."""
    from memwarden_shared.state.action_repair import ActionState, mark_repair
    from memwarden_usecases.pipeline import drain

    mid, memory_id, _ = npm_memory(store, tenant)
    ran = act(store, tenant, "package.install", [memory_id])
    skipped = act(store, tenant, "message.send", [memory_id])
    failed = act(store, tenant, "message.send", [memory_id], params={"y": 2})

    def report(action: dict[str, object], status: OutcomeStatus, ref: str) -> dict[str, object]:
        return report_outcome(
            agent(tenant), tenant, str(action["action_id"]), status, ref, engine=store
        )

    first_ran = report(ran, OutcomeStatus.EXECUTED, "job-1")
    revoke_message(tenant, mid, engine=store)
    drain(store)  # ran: needs_repair; skipped and failed: cancelled
    first_skipped = report(skipped, OutcomeStatus.CANCELLED, "none-1")
    first_failed = report(failed, OutcomeStatus.FAILED, "err-1")
    # Without the repeat rule each of these re-applied: a new reported_at and reference.
    assert report(skipped, OutcomeStatus.CANCELLED, "none-2")["outcome"] == first_skipped["outcome"]
    assert report(failed, OutcomeStatus.FAILED, "err-2")["outcome"] == first_failed["outcome"]
    assert report(failed, OutcomeStatus.CANCELLED, "err-3")["outcome"] == first_failed["outcome"]
    with unit_of_work(store) as uow:
        mark_repair(
            uow.conn,
            tenant,
            str(ran["action_id"]),
            ActionState.REPAIRED,
            by="owner",
            note="reverted",
            now=utcnow(),
        )
        uow.commit()
    again = report(ran, OutcomeStatus.EXECUTED, "job-1")  # was 409 once the repair closed
    assert (again["state"], again["outcome"]) == ("repaired", first_ran["outcome"])
    late = report(skipped, OutcomeStatus.EXECUTED, "job-9")  # it ran after all: a repair
    assert (late["state"], late["state_reason"]) == ("needs_repair", "executed_after_cancel")


def test_outcome__cannot_report_on_a_denied_action(store: Engine, tenant: str) -> None:
    got = act(store, tenant, "package.install", [], principal=agent(tenant, Scope.READ))
    with pytest.raises(ActionRefused):
        report_outcome(
            agent(tenant), tenant, got["action_id"], OutcomeStatus.EXECUTED, engine=store
        )


def test_action__memory_whose_message_was_edited_away_is_denied_superseded(
    store: Engine, tenant: str
) -> None:
    from memwarden_revalidation.commands import supersede_message
    from memwarden_usecases.pipeline import drain

    mid, memory_id, _ = npm_memory(store, tenant)
    supersede_message(
        tenant, mid, "Actually I am still deciding on a package manager.", engine=store
    )
    drain(store)
    got = act(store, tenant, "package.install", [memory_id])
    assert got["decision"] == "DENY"
    assert "memory_superseded" in got["reasons"]
