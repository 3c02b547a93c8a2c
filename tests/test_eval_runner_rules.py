"""The eval runner's v1.1 rules (SPEC §13): steps that cannot apply are results, not case
errors, and every proposal step has its own snapshot entry."""

from __future__ import annotations

import io
import json
from typing import Any

from sqlalchemy import Engine

from memwarden.eval.runner import run_cases

TEXT = "I prefer pnpm for all my JavaScript projects."
OTHER = "I prefer yarn for all my JavaScript projects."


def turn(message_id: str, text: str = TEXT) -> dict[str, Any]:
    return {
        "turn": {
            "message_id": message_id,
            "session_id": "s1",
            "role": "user",
            "source": "user_message",
            "text": text,
            "created_at": "2026-08-06T09:30:00Z",
        }
    }


def proposal(message_id: str, quote: str = TEXT, **overrides: Any) -> dict[str, Any]:
    body = {
        "tenant_id": "t1",
        "subject_id": "u1",
        "scope": {"kind": "user", "key": "u1"},
        "kind": "preference",
        "normalized_key": "preference.package_manager",
        "stable_candidate_ordinal": 0,
        "value": "pnpm",
        "evidence": {"message_id": message_id, "quote": quote},
        "extractor_version": "ext-1",
        "confidence": 0.9,
        "expires_at": None,
    }
    return {"proposal": {**body, **overrides}}


def without(body: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != key}


def case(case_id: str, steps: list[dict[str, Any]], expect: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": case_id,
        "category": "runner",
        "lang": "en",
        "tenant_id": "t1",
        "subject_id": "u1",
        "steps": steps,
        "expect": expect,
    }


def run_one(engine: Engine, c: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    snapshots = io.StringIO()
    [result] = run_cases([c], engine=engine, snapshots=snapshots)
    *_, final = [json.loads(line) for line in snapshots.getvalue().splitlines()]
    return result, final


def test_runner__every_proposal_step_has_its_own_snapshot_entry(sqlite_engine: Engine) -> None:
    """Step 1 repeats step 0 exactly (the stored decision, twice); step 2 sends the same id
    with another value (REJECT payload_conflict); the turn between them is not counted."""
    c = case(
        "steps-001",
        [
            turn("m1"),
            proposal("m1"),
            proposal("m1"),
            turn("m2", OTHER),
            proposal("m1", value="yarn"),
        ],
        [
            {"proposal": 0, "decision": "COMMIT"},
            {"proposal": 1, "decision": "COMMIT"},
            {"proposal": 2, "decision": "REJECT"},
        ],
    )
    result, final = run_one(sqlite_engine, c)
    assert result.error is None and result.passed, [v.detail for v in result.verdicts]
    entries = [p for p in final["proposals"] if p["proposal_step"] is not None]
    assert [(p["proposal_step"], p["decision"]) for p in entries] == [
        (0, "COMMIT"),
        (1, "COMMIT"),
        (2, "REJECT"),
    ]
    assert entries[0]["proposal_id"] == entries[1]["proposal_id"] == entries[2]["proposal_id"]
    assert entries[0]["state"] == entries[1]["state"] == "committed"
    assert entries[2]["reasons"] == ["payload_conflict"] and entries[2]["state"] == "rejected"
    assert len(final["proposals"]) == 3


def test_runner__evidence_or_a_proposal_that_cannot_resolve_goes_to_the_gate(
    sqlite_engine: Engine,
) -> None:
    c = case(
        "ghost-001",
        [
            turn("m1"),
            proposal("m9"),  # never sent
            proposal("m1", quote="a sentence the message does not hold"),
            {"proposal": without(proposal("m1")["proposal"], "normalized_key")},
            proposal("m1"),
        ],
        [
            {"proposal": 0, "decision": "REJECT"},
            {"proposal": 1, "decision": "REJECT"},
            {"proposal": 2, "decision": "REJECT"},
            {"proposal": 3, "decision": "COMMIT"},
            {"message_id": "m1", "outcome": "commit", "value_has": ["pnpm"]},
        ],
    )
    result, final = run_one(sqlite_engine, c)
    assert result.error is None and result.passed, [v.detail for v in result.verdicts]
    by_step = {p["proposal_step"]: p for p in final["proposals"]}
    assert by_step[0]["reasons"] == ["message_not_found"] and by_step[0]["message_id"] == "m9"
    assert by_step[1]["reasons"] == ["evidence_mismatch"]
    assert by_step[2]["reasons"] == ["schema_invalid"]  # too malformed to hash: still judged


def test_runner__a_review_with_nothing_pending_is_recorded_and_the_case_goes_on(
    sqlite_engine: Engine,
) -> None:
    c = case(
        "review-001",
        [
            turn("m1"),
            {"op": "approve", "message_id": "m1"},  # nothing was proposed yet
            {"op": "reject", "message_id": "m7"},  # no such message at all
            proposal("m1"),
            {"op": "approve", "message_id": "m1"},  # committed, so not pending
        ],
        [{"message_id": "m1", "outcome": "commit", "value_has": ["pnpm"]}],
    )
    result, final = run_one(sqlite_engine, c)
    assert result.error is None and result.passed, [v.detail for v in result.verdicts]
    assert [(r["review_step"], r["op"], r["result"], r["reason"]) for r in final["reviews"]] == [
        (0, "approve", "refused", "nothing_pending"),
        (1, "reject", "refused", "nothing_pending"),
        (2, "approve", "refused", "nothing_pending"),
    ]


def test_runner__a_refused_approval_is_recorded_not_a_case_error(sqlite_engine: Engine) -> None:
    """yarn would replace pnpm, so it waits for the owner; an approval naming another payload
    hash is refused, recorded, and the candidate still waits."""
    c = case(
        "review-002",
        [
            turn("m1"),
            proposal("m1"),
            turn("m2", OTHER),
            proposal("m2", OTHER, value="yarn"),
            {"op": "approve", "message_id": "m2", "tamper_payload_hash": True},
        ],
        [
            {"proposal": 1, "decision": "CONFIRM_REPLACE"},
            {"message_id": "m2", "outcome": "pending"},
        ],
    )
    result, final = run_one(sqlite_engine, c)
    assert result.error is None and result.passed, [v.detail for v in result.verdicts]
    [review] = final["reviews"]
    assert review["result"] == "refused" and review["reason"] != "nothing_pending"


def test_runner__a_turn_the_models_refuse_is_recorded_without_its_value(
    sqlite_engine: Engine,
) -> None:
    """SPEC §13 v1.1: the refused turn is not stored, the refusal names fields only, and the
    later steps still run and are judged."""
    card = "4111 1111 1111 1111"
    c = case(
        "refused-turn-001",
        [
            turn("m1", f"My card is {card}\x00."),  # a NUL: the text is refused
            turn("m2 ;DROP TABLE messages;--"),  # an id off the strict pattern
            turn("m3"),
        ],
        [
            {"message_id": "m1", "outcome": "no_commit"},
            {"message_id": "m3", "outcome": "commit", "value_has": ["pnpm"]},
        ],
    )
    result, final = run_one(sqlite_engine, c)
    assert result.error is None and result.passed, [v.detail for v in result.verdicts]
    assert [r["turn_step"] for r in final["refused_turns"]] == [0, 1]
    assert final["refused_turns"][0]["fields"] == ["text: control_character"]
    assert final["refused_turns"][1]["fields"] == ["message_id: string_pattern_mismatch"]
    assert card not in json.dumps(final) and "DROP TABLE" not in json.dumps(final)


def test_runner__a_case_without_refused_turns_keeps_its_snapshot_shape(
    sqlite_engine: Engine,
) -> None:
    _, final = run_one(sqlite_engine, case("plain-001", [turn("m1")], []))
    assert "refused_turns" not in final
