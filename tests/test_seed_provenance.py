"""Provenance you can read (seed 000) and receipts that explain (seed 002 §receipts), through
the HTTP API on both stores: one call answers who proposed a memory, on what evidence, who
approved it, what read it since and how to take it back; a review writes its own receipt
linked to the immutable pending receipt."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from memwarden.client import Memory
from memwarden_gate.checks import CHECKS
from tests.test_api import (
    FIRST,
    SECOND,
    Keys,
    api_client,
    auth,
    make_keys,
    pending_replacement,
    recalled,
)


@pytest.fixture
def client(store: Engine) -> Iterator[TestClient]:
    with api_client(store) as c:
        yield c


@pytest.fixture
def keys(store: Engine, tenant: str) -> Keys:
    return make_keys(store, tenant)


def _approved_replacement(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> dict[str, Any]:
    receipt = pending_replacement(client, keys, tenant, make_proposal)
    [item] = client.get("/v1/review/pending", headers=auth(keys.reviewer)).json()["pending"]
    r = client.post(
        f"/v1/review/{receipt['proposal_id']}/approve",
        headers=auth(keys.reviewer),
        json={"payload_hash": item["payload_hash"]},
    )
    assert r.status_code == 200, r.text
    return {**receipt, "payload_hash": item["payload_hash"], "memory_id": r.json()["memory_id"]}


def test_provenance__one_call_answers_where_who_what_read_and_how_to_revoke(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    approved = _approved_replacement(client, keys, tenant, make_proposal)
    assert recalled(client, keys.reader) == ["emacs"]

    r = client.get(f"/v1/memories/{approved['memory_id']}/provenance", headers=auth(keys.reader))
    assert r.status_code == 200, r.text
    why = r.json()
    assert why["current_version"] == 2
    by_message = {p["evidence"]["message_id"]: p for p in why["proposals"]}
    assert {m: p["evidence"]["quote"] for m, p in by_message.items()} == {
        "m0": FIRST,
        "m1": SECOND,
    }
    proposer = {p["proposed_by"] for p in why["proposals"]}
    assert len(proposer) == 1 and proposer.pop().startswith("proposer-")
    assert {p["producer_version"] for p in why["proposals"]} == {"test-1"}
    assert [p["decision"] for p in why["proposals"]] == ["COMMIT", "CONFIRM_REPLACE"]
    assert all(p["receipt"]["proposal_id"] == p["proposal_id"] for p in why["proposals"])
    [approval] = why["approvals"]
    assert approval["approver"].startswith("reviewer-")
    assert approval["approval_hash"] == approved["payload_hash"]
    [read] = why["recent_reads"]
    assert (read["surface"], read["memory"]) == ("recall", f"{approved['memory_id']}:2")
    assert read["principal_id"].startswith("reader-")
    assert why["used_by_actions"] == [] and why["derived_from"] == []
    revokes = {c["message_id"]: c for c in why["revoke"]["revoke_messages"]}
    assert set(revokes) == {"m0", "m1"}
    assert revokes["m1"]["cli"] == f"memwarden revoke --tenant {tenant} --message m1"

    # the command it printed takes the memory back
    r = client.post(revokes["m1"]["api"].split(" ", 1)[1], headers=auth(keys.reviewer))
    assert r.status_code == 200, r.text
    assert recalled(client, keys.reader) == []
    after = client.get(
        f"/v1/memories/{approved['memory_id']}/provenance", headers=auth(keys.reader)
    ).json()
    quotes = {p["evidence"]["message_id"]: p["evidence"]["quote"] for p in after["proposals"]}
    assert quotes["m1"] is None  # a revoked message is not quoted again


def test_provenance__a_memory_of_another_tenant_is_not_found(
    store: Engine,
    client: TestClient,
    keys: Keys,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
) -> None:
    approved = _approved_replacement(client, keys, tenant, make_proposal)
    other = make_keys(store, keys.other_tenant)
    r = client.get(f"/v1/memories/{approved['memory_id']}/provenance", headers=auth(other.reader))
    assert r.status_code == 404
    assert r.json()["code"] == "unknown_memory"


def test_review_receipt__links_the_untouched_pending_receipt_by_its_fingerprint(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    pending = pending_replacement(client, keys, tenant, make_proposal)
    before = client.get(
        f"/v1/proposals/{pending['proposal_id']}/receipt", headers=auth(keys.reader)
    )
    approved = _approved_replacement_of(client, keys, pending)
    after = client.get(f"/v1/proposals/{pending['proposal_id']}/receipt", headers=auth(keys.reader))
    assert before.content == after.content  # the pending receipt is immutable (seed 001)
    why = client.get(
        f"/v1/memories/{approved['memory_id']}/provenance", headers=auth(keys.reader)
    ).json()
    [review] = [r for p in why["proposals"] for r in p["reviews"]]
    assert review["pending_fingerprint"] == hashlib.sha256(before.content).hexdigest()
    body = review["receipt"]
    assert body["pending_fingerprint"] == review["pending_fingerprint"]
    assert (body["verdict"], body["outcome"], body["memory_version"]) == ("approve", "committed", 2)
    assert body["approver"] == review["approver"] and body["authority"].startswith("review:")
    assert body["validator"]["name"] == "memwarden-gate"


def _approved_replacement_of(
    client: TestClient, keys: Keys, pending: dict[str, Any]
) -> dict[str, Any]:
    [item] = client.get("/v1/review/pending", headers=auth(keys.reviewer)).json()["pending"]
    r = client.post(
        f"/v1/review/{pending['proposal_id']}/approve",
        headers=auth(keys.reviewer),
        json={"payload_hash": item["payload_hash"]},
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_receipt__explains_every_check_the_claim_scope_expiry_and_authority(
    client: TestClient, keys: Keys, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    pending = pending_replacement(client, keys, tenant, make_proposal)
    receipt = client.get(
        f"/v1/proposals/{pending['proposal_id']}/receipt", headers=auth(keys.reader)
    ).json()
    assert sorted(receipt["checks"]) == sorted(CHECKS)  # canonical JSON sorts keys
    assert receipt["checks"]["evidence_hash"] == "passed"
    assert receipt["checks"]["fact_key_locked"] == "passed"
    assert receipt["claim"] == {
        "kind": "preference",
        "normalized_key": "preference.editor",
        "value_sha256": hashlib.sha256(b'"emacs"').hexdigest(),
    }
    assert receipt["scope"] == {"kind": "user", "key": "u1"}
    assert receipt["expires_at"] is None and isinstance(receipt["purposes"], list)
    assert receipt["provenance"]["message_id"] == "m1"
    assert receipt["provenance"]["proposed_by"].startswith("proposer-")
    assert receipt["authority"] == "policy:auto" and receipt["approver"] is None
    assert "emacs" not in str({k: v for k, v in receipt.items() if k != "claim"})


def test_client_why__the_embedded_client_answers_the_same(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path, tenant="solo") as memory:
        added = memory.add("I prefer pnpm for every JavaScript project.", subject="me")
        [version] = [m for m in memory.memories("me") if m.current]
        why = memory.why(version.memory_id)
    assert why.memory_id == version.memory_id
    [proposal] = why.proposals
    assert proposal["evidence"]["message_id"] == added.message_ids[0]
    assert proposal["evidence"]["quote"].startswith("I prefer pnpm")
    assert proposal["receipt"]["decision"] == "COMMIT"
    assert why.revoke["revoke_messages"][0]["message_id"] == added.message_ids[0]
