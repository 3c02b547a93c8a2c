"""Recall for prompts (seed 004): every memory carries its pointer (memory id, version,
evidence message ids) and the notice "historical record, not current verification";
``format=context`` renders that block in English and Chinese."""

from __future__ import annotations

from sqlalchemy import Engine

from memwarden_recall.context import render_context
from memwarden_recall.query import NOTICE, Recalled, recall
from memwarden_revalidation.commands import revoke_message
from tests.actions_helpers import memory_of, say
from tests.test_api import api_client, auth, make_keys, turn


def recalled(evidence: tuple[str, ...] = ("m1", "m2")) -> Recalled:
    return Recalled(
        memory_id="mem_" + "a" * 32,
        version=3,
        kind="preference",
        normalized_key="preference.package_manager",
        scope={"kind": "user", "key": "u1"},
        value="npm",
        score=0.0,
        expires_at=None,
        evidence_message_ids=evidence,
    )


def test_context__english_block_has_pointer_and_notice() -> None:
    block = render_context([recalled()], "en")
    assert block.splitlines() == [
        "Remembered context (historical record, not current verification; "
        "re-check before acting on it):",
        '- preference.package_manager: "npm"',
        f"  [memory mem_{'a' * 32} v3; evidence messages: m1, m2]"
        " [historical record, not current verification]",
    ]


def test_context__chinese_block_has_pointer_and_notice() -> None:
    block = render_context([recalled(("m9",))], "zh")
    assert f"[记忆 mem_{'a' * 32} 第 3 版；证据消息：m9]" in block
    assert block.count("历史记录，不是当前核实") == 2  # header and the memory's own notice
    assert render_context([], "zh") == "（没有可用的记忆）\n"


def test_recall__results_carry_active_evidence_ids_and_the_notice(
    store: Engine, tenant: str
) -> None:
    mid = say(store, tenant, "I use npm for every project")
    memory_id, version = memory_of(store, tenant, mid)
    [got] = recall(tenant, "u1", engine=store)
    assert (got.memory_id, got.version, got.evidence_message_ids) == (memory_id, version, (mid,))
    assert got.as_json()["notice"] == NOTICE
    revoke_message(tenant, mid, engine=store)
    assert recall(tenant, "u1", engine=store) == []


def test_api_recall__format_context(store: Engine, tenant: str) -> None:
    keys = make_keys(store, tenant)
    with api_client(store) as client:
        client.post(
            "/v1/turns",
            headers=auth(keys.admin),
            json={"turns": [turn(None, "以后回复我都用英文", "m1")]},
        )
        r = client.get(
            "/v1/subjects/u1/recall",
            params={"format": "context", "lang": "zh"},
            headers=auth(keys.reader),
        )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["memories"][0]["evidence_message_ids"] == ["m1"]
    assert body["context"].startswith("记忆上下文")
    assert "证据消息：m1" in body["context"]
