"""Owner review: approvals bound to proposal_id + payload_hash, principals bound to a tenant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine, select, update

from memwarden_gate.io import GateContext, decide_batch
from memwarden_gate.review import ReviewRefused, approve, pending, reject
from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_shared.contract.models import Turn
from memwarden_shared.state.auth import (
    Forbidden,
    Principal,
    Scope,
    Unauthenticated,
    authenticate,
    create_principal,
)
from memwarden_shared.store.schema import principals, proposals
from tests.conftest import turn_dict

FIRST, SECOND = "I prefer vim.", "Actually, I prefer emacs."


def reviewer(tenant: str, name: str = "owner") -> Principal:
    return Principal(name, tenant, frozenset({Scope.REVIEW}))


def _pending_replacement(
    engine: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    proposed_by: str | None = None,
) -> Any:
    for i, (text, value) in enumerate([(FIRST, "vim"), (SECOND, "emacs")]):
        ingest_turns(
            [
                Turn.model_validate(
                    turn_dict(
                        tenant, text, message_id=f"m{i}", created_at=f"2026-05-0{i + 1}T09:00:00Z"
                    )
                )
            ],
            engine=engine,
            extract=False,
        )
        [receipt] = decide_batch(
            [make_proposal(tenant, f"m{i}", text, normalized_key="preference.editor", value=value)],
            engine=engine,
            ctx=GateContext(proposed_by=proposed_by),
        )
    assert receipt.decision == "CONFIRM_REPLACE"
    return receipt


def _values(engine: Engine, tenant: str) -> list[str]:
    return [m.value for m in recall(tenant, "u1", engine=engine)]


def test_review__pending_lists_the_normalised_fact_and_an_approval_replaces_it(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = _pending_replacement(store, tenant, make_proposal)
    [item] = pending(reviewer(tenant), tenant, engine=store)
    assert (item["value"], item["normalized_key"], item["scope"]) == (
        "emacs",
        "preference.editor",
        {"kind": "user", "key": "u1"},
    )
    outcome = approve(
        reviewer(tenant), tenant, receipt.proposal_id, item["payload_hash"], engine=store
    )
    assert (outcome.state, outcome.memory_version) == ("committed", 2)
    assert _values(store, tenant) == ["emacs"]


def test_review__approval_on_another_payload_hash_is_refused(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = _pending_replacement(store, tenant, make_proposal)
    with pytest.raises(ReviewRefused, match="payload_hash_mismatch"):
        approve(reviewer(tenant), tenant, receipt.proposal_id, "0" * 64, engine=store)
    assert _values(store, tenant) == ["vim"]


def test_review__approval_replayed_on_another_proposal_is_refused(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = _pending_replacement(store, tenant, make_proposal)
    other = "1" * 64
    with pytest.raises(ReviewRefused, match="unknown_proposal"):
        approve(reviewer(tenant), tenant, other, receipt.payload_hash, engine=store)


def test_review__payload_edited_after_the_decision_invalidates_the_approval(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = _pending_replacement(store, tenant, make_proposal)
    with store.begin() as conn:  # someone with database access rewrites the candidate
        conn.execute(
            update(proposals)
            .where(proposals.c.proposal_id == receipt.proposal_id)
            .values(value_json='"nano"')
        )
    with pytest.raises(ReviewRefused, match="payload_changed"):
        approve(reviewer(tenant), tenant, receipt.proposal_id, receipt.payload_hash, engine=store)
    assert _values(store, tenant) == ["vim"]


def test_review__the_proposer_cannot_approve_its_own_candidate(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = _pending_replacement(store, tenant, make_proposal, proposed_by="bot-1")
    both = Principal("bot-1", tenant, frozenset({Scope.PROPOSE, Scope.REVIEW}))
    with pytest.raises(ReviewRefused, match="self_approval"):
        approve(both, tenant, receipt.proposal_id, receipt.payload_hash, engine=store)


@pytest.mark.parametrize(
    "principal",
    [
        Principal("rev", "another-tenant", frozenset({Scope.REVIEW})),
        Principal("proposer", "{tenant}", frozenset({Scope.PROPOSE})),
        Principal("reader", "{tenant}", frozenset({Scope.READ})),
    ],
    ids=["reviewer of another tenant", "proposer", "reader"],
)
def test_review__principals_without_review_in_this_tenant_are_refused(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]], principal: Principal
) -> None:
    principal = Principal(
        principal.principal_id, principal.tenant_id.format(tenant=tenant), principal.scopes
    )
    receipt = _pending_replacement(store, tenant, make_proposal)
    with pytest.raises(Forbidden):
        approve(principal, tenant, receipt.proposal_id, receipt.payload_hash, engine=store)
    with pytest.raises(Forbidden):
        pending(principal, tenant, engine=store)
    with pytest.raises(Forbidden):
        reject(principal, tenant, receipt.proposal_id, engine=store)
    assert _values(store, tenant) == ["vim"]


def test_review__a_rejected_candidate_can_no_longer_be_approved(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = _pending_replacement(store, tenant, make_proposal)
    reject(reviewer(tenant), tenant, receipt.proposal_id, engine=store)
    with pytest.raises(ReviewRefused, match="not_pending"):
        approve(reviewer(tenant), tenant, receipt.proposal_id, receipt.payload_hash, engine=store)


def test_review__a_stale_expected_version_is_refused(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = _pending_replacement(store, tenant, make_proposal)
    text = "Actually, I prefer nano."
    ingest_turns(
        [
            Turn.model_validate(
                turn_dict(tenant, text, message_id="m9", created_at="2026-05-09T09:00:00Z")
            )
        ],
        engine=store,
        extract=False,
    )
    [third] = decide_batch(
        [make_proposal(tenant, "m9", text, normalized_key="preference.editor", value="nano")],
        engine=store,
    )
    approve(reviewer(tenant), tenant, third.proposal_id, third.payload_hash, engine=store)
    with pytest.raises(ReviewRefused, match="stale_expected_version"):
        approve(reviewer(tenant), tenant, receipt.proposal_id, receipt.payload_hash, engine=store)
    assert _values(store, tenant) == ["nano"]


def test_auth__keys_are_stored_hashed_and_bad_credentials_fail_closed(
    store: Engine, tenant: str
) -> None:
    with store.begin() as conn:
        key = create_principal(conn, f"{tenant}-rev", tenant, [Scope.REVIEW])
    with store.connect() as conn:
        assert authenticate(conn, key).tenant_id == tenant
        for bad in (None, "", "mwk_not-a-key", key + "x", key.upper()):
            with pytest.raises(Unauthenticated):
                authenticate(conn, bad)
        assert key not in str(conn.execute(select(principals)).all())
