"""``POST /v1/review/decisions``: several candidates decided in one request, each exactly as
its single-item route would, an approval bound to its own payload hash (SPEC §10), on both
backends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from tests.test_api import (
    Keys,
    api_client,
    assert_problem,
    auth,
    make_keys,
    post_turns,
    recalled,
    set_policy,
    turn,
)

URL = "/v1/review/decisions"
SAID = {  # one candidate each under review_all
    "preference.package_manager": "I prefer pnpm for all my JavaScript projects.",
    "preference.language": "Please always reply in English.",
    "preference.ui_theme": "我更喜欢深色主题。",
}


@pytest.fixture
def client(store: Engine) -> Iterator[TestClient]:
    with api_client(store) as c:
        yield c


def _pending(client: TestClient, key: str) -> dict[str, dict[str, Any]]:
    r = client.get("/v1/review/pending", headers=auth(key))
    assert r.status_code == 200, r.text
    return {p["normalized_key"]: p for p in r.json()["pending"]}


def _three_pending(client: TestClient, store: Engine, tenant: str) -> tuple[Keys, dict[str, Any]]:
    keys = make_keys(store, tenant)
    set_policy(store, tenant, "review_all")
    turns = [turn(None, text, f"m{i}") for i, text in enumerate(SAID.values())]
    assert post_turns(client, keys.proposer, *turns).json()["stored"] == 3
    pending = _pending(client, keys.reviewer)
    assert set(pending) == set(SAID)
    return keys, pending


def _approve(item: dict[str, Any], payload_hash: str | None = None) -> dict[str, str]:
    return {
        "verdict": "approve",
        "proposal_id": item["proposal_id"],
        "payload_hash": payload_hash or item["payload_hash"],
    }


def _reject(item: dict[str, Any]) -> dict[str, str]:
    return {"verdict": "reject", "proposal_id": item["proposal_id"]}


def test_review_decisions__a_stale_hash_refuses_that_item_only(
    client: TestClient, store: Engine, tenant: str
) -> None:
    keys, pending = _three_pending(client, store, tenant)
    pnpm, english, dark = (pending[k] for k in SAID)
    # english is approved with the hash of another card: what a reviewer saw is not it
    body = {"decisions": [_approve(pnpm), _approve(english, pnpm["payload_hash"]), _reject(dark)]}
    r = client.post(URL, headers=auth(keys.reviewer), json=body)
    assert r.status_code == 200, r.text
    got = [(x["verdict"], x["status"], x["state"], x["code"]) for x in r.json()["results"]]
    assert got == [
        ("approve", 200, "committed", None),
        ("approve", 409, None, "payload_hash_mismatch"),
        ("reject", 200, "rejected", None),
    ]
    assert [x["proposal_id"] for x in r.json()["results"]] == [
        pnpm["proposal_id"],
        english["proposal_id"],
        dark["proposal_id"],
    ]
    assert r.json()["results"][0]["memory_version"] == 1
    assert recalled(client, keys.reader) == ["pnpm"]
    # the refused one still waits, unchanged, and its own hash still approves it
    left = _pending(client, keys.reviewer)
    assert list(left) == ["preference.language"]
    assert left["preference.language"]["payload_hash"] == english["payload_hash"]
    r = client.post(URL, headers=auth(keys.reviewer), json={"decisions": [_approve(english)]})
    assert r.json()["results"][0]["state"] == "committed", r.text
    assert sorted(recalled(client, keys.reader)) == ["en English 英语", "pnpm"]


def test_review_decisions__a_candidate_decided_meanwhile_or_foreign_is_refused_alone(
    client: TestClient, store: Engine, tenant: str
) -> None:
    keys, pending = _three_pending(client, store, tenant)
    pnpm, english, dark = (pending[k] for k in SAID)
    r = client.post(f"/v1/review/{pnpm['proposal_id']}/reject", headers=auth(keys.reviewer))
    assert r.status_code == 200, r.text  # another reviewer, after this page was loaded
    r = client.post(
        URL,
        headers=auth(keys.other_reviewer),  # another tenant's admin sees none of them
        json={"decisions": [_approve(english)]},
    )
    assert [(x["status"], x["code"]) for x in r.json()["results"]] == [(404, "unknown_proposal")]
    body = {"decisions": [_approve(pnpm), _approve(english), _approve(dark)]}
    r = client.post(URL, headers=auth(keys.reviewer), json=body)
    got = [(x["status"], x["state"], x["code"]) for x in r.json()["results"]]
    assert got == [(409, None, "not_pending"), (200, "committed", None), (200, "committed", None)]
    assert sorted(recalled(client, keys.reader)) == ["dark", "en English 英语"]
    assert _pending(client, keys.reviewer) == {}


def test_review_decisions__bodies_are_validated_strictly_and_need_the_review_scope(
    client: TestClient, store: Engine, tenant: str
) -> None:
    keys, pending = _three_pending(client, store, tenant)
    pnpm = pending["preference.package_manager"]
    no_hash = {"verdict": "approve", "proposal_id": pnpm["proposal_id"]}
    refused: list[Any] = [
        {"decisions": []},
        {"decisions": [no_hash]},
        {"decisions": [{**_reject(pnpm), "payload_hash": pnpm["payload_hash"]}]},
        {"decisions": [{**_approve(pnpm), "verdict": "maybe"}]},
        {"decisions": [_approve(pnpm), _reject(pnpm)]},  # one candidate named twice
        {"decisions": [_reject(pnpm)] * 101},
        {"decisions": [{**_approve(pnpm), "payload_hash": "0" * 63}]},
    ]
    for body in refused:
        assert_problem(client.post(URL, headers=auth(keys.reviewer), json=body), 422)
    one = {"decisions": [_approve(pnpm)]}
    assert_problem(client.post(URL, headers=auth(keys.proposer), json=one), 403)
    assert_problem(client.post(URL, json=one), 401)
    assert set(_pending(client, keys.reviewer)) == set(SAID)  # nothing was decided
