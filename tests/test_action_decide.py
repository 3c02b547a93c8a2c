"""The action gate's pure parts: the decision table and the action registry."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memwarden_actions.decide import UsedMemory, decide_action
from memwarden_actions.request import ActionRequest, key_hash, request_hash
from memwarden_shared.contract.action_registry import ActionRegistryError, load_action_registry
from memwarden_shared.contract.registry import default_registry

NOW = datetime(2026, 7, 1, tzinfo=UTC)
GOOD = UsedMemory(
    name="mem_" + "1" * 32,
    found=True,
    version=2,
    latest_version=2,
    status="committed",
    status_reason=None,
    supported=True,
    sources_supported=True,
    expires_at=None,
    prohibited_actions=("payment.create",),
    retrieval_purposes=("coding_assistance",),
)


def decide(*used: UsedMemory, intent: str = "package.install", **kw: Any) -> tuple[str, list[str]]:
    args: dict[str, Any] = {
        "known_intent": True,
        "high_consequence": False,
        "may_request": True,
        "purpose": None,
        "now": NOW,
        **kw,
    }
    v = decide_action(intent=intent, used=list(used), **args)
    return v.decision.value, list(v.reasons)


@pytest.mark.parametrize(
    ("memory", "kw", "expected"),
    [
        (GOOD, {}, ("ALLOW", [])),
        (GOOD, {"high_consequence": True}, ("NEEDS_APPROVAL", ["high_consequence"])),
        (GOOD, {"may_request": False}, ("DENY", ["not_authorised"])),
        (replace(GOOD, status="revoked"), {}, ("DENY", ["memory_revoked"])),
        (
            replace(GOOD, status="forgotten", supported=False),
            {},
            ("DENY", ["memory_revoked", "evidence_revoked"]),
        ),
        (
            replace(GOOD, status="needs_revalidation", status_reason="evidence_superseded"),
            {},
            ("DENY", ["memory_superseded"]),
        ),
        (replace(GOOD, supported=False), {}, ("DENY", ["evidence_revoked"])),
        (replace(GOOD, sources_supported=False), {}, ("DENY", ["evidence_revoked"])),
        (replace(GOOD, expires_at=NOW), {}, ("DENY", ["memory_expired"])),
        (replace(GOOD, expires_at=NOW + timedelta(seconds=1)), {}, ("ALLOW", [])),
        (GOOD, {"purpose": "marketing"}, ("DENY", ["purpose_not_allowed"])),
        (GOOD, {"purpose": "coding_assistance"}, ("ALLOW", [])),
        (replace(GOOD, found=False), {}, ("DENY", ["memory_not_found"])),
        (replace(GOOD, version=1), {}, ("STALE", ["stale_version"])),
        (replace(GOOD, version=1, status="revoked"), {}, ("DENY", ["memory_revoked"])),
        (replace(GOOD, prohibited_actions=("*",)), {}, ("DENY", ["prohibited_action"])),
    ],
)
def test_decide__first_matching_row_wins(
    memory: UsedMemory, kw: dict[str, Any], expected: tuple[str, list[str]]
) -> None:
    assert decide(memory, **kw) == expected


def test_decide__a_preference_prohibits_every_high_consequence_intent() -> None:
    for spec in default_registry().keys.values():
        if spec.kind == "preference":
            assert {"payment.create", "record.delete", "deploy.production"} <= set(
                spec.prohibited_actions
            ), spec.normalized_key


def test_hashes__key_binds_intent_and_params_approval_also_binds_uses() -> None:
    assert key_hash("email.send", {"a": 1, "b": 2}) == key_hash("email.send", {"b": 2, "a": 1})
    assert key_hash("email.send", {"a": 1}) != key_hash("message.send", {"a": 1})
    assert request_hash("x.y", {}, ["m:1", "n:2"]) == request_hash("x.y", {}, ["n:2", "m:1"])
    assert request_hash("x.y", {}, ["m:1"]) != request_hash("x.y", {}, ["m:2"])


@pytest.mark.parametrize(
    "field",
    [
        {"uses": ["not-a-memory"]},
        {"uses": ["mem_" + "1" * 32, "mem_" + "1" * 32 + ":2"]},
        {"params": {"n": 2**60}},
        {"params": {"x": float("nan")}},
        {"intent": "Email Send"},
    ],
)
def test_request__bad_input_is_refused(field: dict[str, Any]) -> None:
    body = {"tenant_id": "t", "subject_id": "u", "intent": "email.send", "idempotency_key": "k"}
    with pytest.raises(ValueError):
        ActionRequest(**{**body, **field})


def test_registry__intents_and_the_high_consequence_flag() -> None:
    registry = load_action_registry()
    ordinary = {"package.install", "message.send", "email.send", "settings.update", "calendar.book"}
    high = {"payment.create", "record.delete", "deploy.production"}
    assert {i for i, s in registry.intents.items() if not s.high_consequence} == ordinary
    assert {i for i, s in registry.intents.items() if s.high_consequence} == high


def test_registry__a_tenant_extension_adds_or_raises_never_lowers(tmp_path: Path) -> None:
    extra = tmp_path / "extra.json"
    extra.write_text(
        json.dumps(
            {
                "registry_version": "t1",
                "intents": [
                    {"intent": "ticket.close", "high_consequence": False},
                    {"intent": "email.send", "high_consequence": True},
                ],
            }
        )
    )
    registry = load_action_registry(extra=extra)
    assert registry.get("ticket.close") is not None
    assert registry.get("email.send").high_consequence  # type: ignore[union-attr]
    extra.write_text(
        json.dumps(
            {
                "registry_version": "t2",
                "intents": [
                    {"intent": "payment.create", "high_consequence": False},
                ],
            }
        )
    )
    with pytest.raises(ActionRegistryError, match="cannot be lowered"):
        load_action_registry(extra=extra)
    for bad in (
        "{",
        json.dumps({"intents": []}),
        json.dumps({"registry_version": "x", "intents": [{"intent": "Bad"}]}),
    ):
        extra.write_text(bad)
        with pytest.raises(ActionRegistryError):
            load_action_registry(extra=extra)
