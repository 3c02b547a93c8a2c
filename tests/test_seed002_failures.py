"""Seed 002's failure tests 5-10 at the action gate, one named test each, and 4 (dirty read)
at recall and the action gate (1-3, 11 and 12 are covered by the gate's own tests).

5 scope laundering, 6 duplicate retry, 7 same key with a different intent, 8 retraction
cascade, 9 checkpoint resume keeps a tentative state tentative, 10 expired authority.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine, func, select

from memwarden_actions.io import request_action
from memwarden_actions.lifecycle import OutcomeStatus, affected_by_message, report_outcome
from memwarden_actions.receipts import ActionKeyConflict
from memwarden_actions.request import ActionRequest
from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.contract.models import Turn
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.schema import actions, memory_versions
from memwarden_usecases.pipeline import drain
from tests.actions_helpers import act, agent, memory_of, say
from tests.conftest import turn_dict, user_fact_key

NPM = "I use npm for every project"


class Executor:
    """Stands in for the side effect: it runs only on ALLOW (never on a DUPLICATE)."""

    def __init__(self) -> None:
        self.effects: list[str] = []

    def run(self, receipt: dict[str, Any]) -> None:
        if receipt["decision"] == "ALLOW":
            self.effects.append(receipt["action_id"])


def evidence_only(engine: Engine, tenant: str, text: str, **kw: Any) -> str:
    mid = "m-" + uuid.uuid4().hex[:8]
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=mid, **kw))],
        engine=engine,
        extract=False,
    )
    return mid


def test_seed002_5__scope_laundering_is_refused_and_the_chain_is_kept(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    # (a) a remembered preference offered as authority for a payment
    mid = say(store, tenant, NPM)
    memory_id, version = memory_of(store, tenant, mid)
    got = act(store, tenant, "payment.create", [memory_id], params={"amount": "99.00"})
    assert (got["decision"], got["reasons"]) == ("DENY", ["prohibited_action"])
    assert got["memory_versions"] == [f"{memory_id}:{version}"]  # what was offered, kept
    # (b) another subject's private memory used for this subject's action
    other = act(store, tenant, "package.install", [memory_id], subject="u2")
    assert other["reasons"] == ["memory_not_found"]
    # (c) a summary for another subject naming this subject's memory as its source
    text = "I use npm for every project, as my teammate does"
    m2 = evidence_only(store, tenant, text, subject="u2")
    laundered = make_proposal(
        tenant,
        m2,
        text,
        subject_id="u2",
        scope={"kind": "user", "key": "u2"},
        value="npm",
        derived_from=[memory_id],
    )
    receipt = decide_batch([laundered], engine=store)[0]
    assert receipt.decision == "REJECT"
    assert "derived_from_not_current" in receipt.reasons


def test_seed002_6__duplicate_retry_after_a_timeout_has_one_effect(
    store: Engine, tenant: str
) -> None:
    memory_id, _ = memory_of(store, tenant, say(store, tenant, NPM))
    executor = Executor()
    first = act(store, tenant, "package.install", [memory_id], params={"p": "chalk"}, key="job-1")
    executor.run(first)
    report_outcome(
        agent(tenant), tenant, first["action_id"], OutcomeStatus.EXECUTED, "ext-1", engine=store
    )
    # the response timed out; the agent retries the same intent under the same key
    retry = act(store, tenant, "package.install", [memory_id], params={"p": "chalk"}, key="job-1")
    executor.run(retry)
    assert retry["decision"] == "DUPLICATE"
    assert retry["state"] == "executed"
    assert retry["outcome"]["external_ref"] == "ext-1"
    assert executor.effects == [first["action_id"]]
    with unit_of_work(store) as uow:
        rows = uow.conn.execute(
            select(func.count()).select_from(actions).where(actions.c.tenant_id == tenant)
        ).scalar_one()
    assert rows == 1


def test_seed002_7__same_key_with_a_different_intent_is_a_conflict_not_the_old_result(
    store: Engine, tenant: str
) -> None:
    first = act(store, tenant, "message.send", [], params={"to": "team"}, key="k")
    try:
        act(store, tenant, "email.send", [], params={"to": "team"}, key="k")
    except ActionKeyConflict as exc:
        assert exc.action_id == first["action_id"]
        assert exc.receipt()["decision"] == "KEY_CONFLICT"
        assert "state" not in exc.receipt()  # never the old result
    else:
        raise AssertionError("a reused key with another intent was accepted")


def test_seed002_8__retraction_cascades_to_derived_drafts_and_queued_tasks(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    source_text = "We decided to bill Acme through the Singapore entity."
    m1 = evidence_only(store, tenant, source_text)
    decide_batch(
        [
            make_proposal(
                tenant,
                m1,
                source_text,
                kind="decision",
                normalized_key="decision.note",
                value="We decided to bill Acme through the Singapore entity",
            )
        ],
        engine=store,
    )
    source, _ = memory_of(store, tenant, m1)
    draft_text = "We decided to draft the Acme order with the Singapore entity."
    m2 = evidence_only(store, tenant, draft_text)
    receipt = decide_batch(
        [
            make_proposal(
                tenant,
                m2,
                draft_text,
                kind="decision",
                normalized_key="decision.note",
                value="We decided to draft the Acme order with the Singapore entity",
                derived_from=[source],
            )
        ],
        engine=store,
    )[0]
    assert receipt.decision == "COMMIT", receipt.reasons
    draft, draft_version = memory_of(store, tenant, m2)
    from memwarden_usecases.inspect import memory_history

    [version_row] = memory_history(store, tenant, draft)
    assert version_row["derived_from"] == [f"{source}:1"]  # the dependency edge is kept
    queued = act(store, tenant, "email.send", [draft], params={"to": "acme"})
    sent = act(store, tenant, "calendar.book", [source], params={"slot": "mon"})
    report_outcome(
        agent(tenant), tenant, sent["action_id"], OutcomeStatus.EXECUTED, "cal-7", engine=store
    )
    # the customer corrects the entity: the source message is retracted
    revoke_message(tenant, m1, engine=store)
    drain(store)
    with unit_of_work(store) as uow:
        status = uow.conn.execute(
            select(memory_versions.c.status).where(
                memory_versions.c.memory_id == draft, memory_versions.c.version == draft_version
            )
        ).scalar_one()
    assert status == "needs_revalidation"
    assert "Acme" not in str([r.value for r in recall(tenant, "u1", engine=store)])
    repair = affected_by_message(tenant, m1, engine=store)
    assert {(m["memory_id"], m["via"]) for m in repair["memories"]} == {
        (source, "evidence"),
        (draft, "derived"),
    }
    states = {
        a["action_id"]: (a["state"], a["external_ref"], a["owner"]) for a in repair["actions"]
    }
    assert states == {
        queued["action_id"]: ("cancelled", None, "agent-1"),
        sent["action_id"]: ("needs_repair", "cal-7", "agent-1"),
    }


def test_seed002_9__checkpoint_resume_keeps_a_tentative_state_tentative(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    guess = "The default contracting entity is Singapore."
    m1 = evidence_only(store, tenant, guess, source="tool_result")  # a timed-out tool's guess
    inferred = "I think I prefer yarn."
    m2 = evidence_only(store, tenant, inferred)
    batch = [
        make_proposal(
            tenant,
            m1,
            guess,
            kind="decision",
            normalized_key="decision.note",
            value="The default contracting entity is Singapore",
        ),
        make_proposal(tenant, m2, inferred, value="yarn"),
    ]
    before = [r.decision for r in decide_batch(batch, engine=store)]
    assert before[0] == "QUARANTINE"
    assert before[1] in {"NEEDS_CONFIRMATION", "REJECT"}
    # the run failed and resumes from its checkpoint: the same proposals arrive again
    after = [r.decision for r in decide_batch(batch, engine=store)]
    drain(store)
    assert after == before
    assert recall(tenant, "u1", engine=store) == []
    got = act(store, tenant, "email.send", ["mem_" + "0" * 32], params={"to": "sales"})
    assert got["reasons"] == ["memory_not_found"]


def test_seed002_10__expired_authority_is_denied_at_action_time(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    text = "We decided to ship orders to the Berlin office."
    mid = evidence_only(store, tenant, text)
    expires = utcnow() + timedelta(days=1)
    receipt = decide_batch(
        [
            make_proposal(
                tenant,
                mid,
                text,
                kind="decision",
                normalized_key="decision.note",
                value="We decided to ship orders to the Berlin office",
                expires_at=expires.isoformat(),
            )
        ],
        engine=store,
    )[0]
    assert receipt.decision == "COMMIT", receipt.reasons
    memory_id, _ = memory_of(store, tenant, mid)
    req = ActionRequest(
        tenant_id=tenant,
        subject_id="u1",
        intent="calendar.book",
        params={"slot": "tue"},
        uses=[memory_id],
        idempotency_key="before",
    )
    assert request_action(req, agent(tenant), engine=store)["decision"] == "ALLOW"
    later = expires + timedelta(minutes=1)
    req = req.model_copy(update={"idempotency_key": "after"})
    got = request_action(req, agent(tenant), engine=store, now=later)
    assert (got["decision"], got["reasons"]) == ("DENY", ["memory_expired"])
    assert recall(tenant, "u1", engine=store, now=later) == []


def test_seed002_8__a_pending_summary_of_a_retracted_source_cannot_be_approved(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    from memwarden_gate.review import ReviewRefused, approve
    from memwarden_shared.state.auth import Principal, Scope
    from tests.test_api import set_policy

    memory_id, _ = memory_of(store, tenant, m1 := say(store, tenant, NPM))
    set_policy(store, tenant, "review_all")  # the summary waits for the owner
    text = "We decided to install every dependency with npm."
    m2 = evidence_only(store, tenant, text)
    receipt = decide_batch(
        [
            make_proposal(
                tenant,
                m2,
                text,
                kind="decision",
                normalized_key="decision.note",
                value="We decided to install every dependency with npm",
                derived_from=[memory_id],
            )
        ],
        engine=store,
    )[0]
    assert receipt.decision == "NEEDS_CONFIRMATION", receipt.reasons
    revoke_message(tenant, m1, engine=store)
    owner = Principal("owner", tenant, frozenset({Scope.REVIEW}))
    try:
        approve(owner, tenant, receipt.proposal_id, receipt.payload_hash, engine=store)
    except ReviewRefused as exc:
        assert exc.code == "derived_from_not_current"
    else:
        raise AssertionError("a summary of a retracted source was approved")


def test_seed002_4__an_uncommitted_candidate_is_invisible_to_recall_and_the_action_gate(
    pg_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    from memwarden_gate.io import decide_many
    from memwarden_gate.records import GateContext
    from memwarden_shared.contract.canonical import memory_id_for

    mid = evidence_only(pg_engine, tenant, NPM)
    proposal = make_proposal(tenant, mid, NPM, value="npm")
    memory_id = memory_id_for(user_fact_key(tenant, "preference.package_manager"))
    with unit_of_work(pg_engine) as writer:  # agent A's transaction, still open
        [receipt] = decide_many(writer.conn, [proposal], GateContext())
        assert (receipt.decision, receipt.memory_id) == ("COMMIT", memory_id)
        # agent B, outside that transaction
        assert recall(tenant, "u1", engine=pg_engine) == []
        assert act(pg_engine, tenant, "package.install", [memory_id])["reasons"] == [
            "memory_not_found"
        ]
        writer.commit()
    assert [r.memory_id for r in recall(tenant, "u1", engine=pg_engine)] == [memory_id]
    assert act(pg_engine, tenant, "package.install", [memory_id])["decision"] == "ALLOW"
