"""Debounce: the turns of one conversation that arrive together are extracted as one run, in
the order they were said, each proposal still citing one sentence of one message."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, select

from memwarden_extractor.debounce import extract_debounced, extract_run, session_runs
from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_shared.contract.canonical import sha256_hex
from memwarden_shared.contract.models import ProposalBody, Turn
from memwarden_shared.store.schema import proposals
from memwarden_usecases.pipeline import drain
from tests.conftest import turn_dict


def _turn(message_id: str, minute: int, session: str = "s1", text: str = "x.") -> Turn:
    return Turn.model_validate(
        turn_dict(
            "t1",
            text,
            message_id=message_id,
            session=session,
            created_at=f"2026-05-01T09:{minute:02d}:00Z",
        )
    )


def _body(turn: Turn, value: str, *, start: int = 0, confidence: float = 0.8) -> ProposalBody:
    end = len(turn.text)
    return ProposalBody.model_validate(
        {
            "tenant_id": turn.tenant_id,
            "subject_id": turn.subject_id,
            "scope": {"kind": "user", "key": turn.subject_id},
            "kind": "preference",
            "normalized_key": "preference.package_manager",
            "stable_candidate_ordinal": start,
            "value": value,
            "evidence": {
                "message_id": turn.message_id,
                "start": start,
                "end": end,
                "sha256": sha256_hex(turn.text[start:end]),
            },
            "extractor_version": "test-1",
            "confidence": confidence,
        }
    )


def _fake(said: dict[str, list[tuple[str, float]]]) -> Any:
    """An extractor that proposes, per message id, the given (value, confidence) in order."""

    def extract_turn(turn: Turn) -> list[ProposalBody]:
        return [
            _body(turn, value, start=i, confidence=c)
            for i, (value, c) in enumerate(said.get(turn.message_id, []))
        ]

    return extract_turn


def test_session_runs__group_per_session_in_the_order_said() -> None:
    late, early, other = _turn("m2", 5), _turn("m1", 1), _turn("o1", 3, session="s2")
    runs = session_runs([late, other, early])
    assert [[t.message_id for t in run] for run in runs] == [["m1", "m2"], ["o1"]]


def test_extract_run__drops_a_repeat_within_one_message_only() -> None:
    m1, m2 = _turn("m1", 1), _turn("m2", 2)
    extract_turn = _fake({"m1": [("pnpm", 0.5), ("pnpm", 0.9)], "m2": [("pnpm", 0.8)]})
    kept = extract_run([m1, m2], extract_turn)
    # the same-message repeat goes (the more confident one stays); the other message's repeat
    # stays too: it is a second piece of evidence for the same memory
    assert [(b.evidence.message_id, b.confidence) for b in kept] == [("m1", 0.9), ("m2", 0.8)]


def test_extract_run__keeps_every_change_of_mind_in_order() -> None:
    m1 = _turn("m1", 1)
    extract_turn = _fake({"m1": [("pnpm", 0.8), ("yarn", 0.8), ("pnpm", 0.8)]})
    assert [b.value for b in extract_run([m1], extract_turn)] == ["pnpm", "yarn", "pnpm"]


def test_extract_debounced__merges_sessions_by_time() -> None:
    a1, b1, a2 = _turn("a1", 1), _turn("b1", 2, session="s2"), _turn("a2", 3)
    extract_turn = _fake({"a1": [("pnpm", 0.8)], "b1": [("yarn", 0.8)], "a2": [("bun", 0.8)]})
    bodies = extract_debounced([a2, b1, a1], extract_turn)
    assert [b.value for b in bodies] == ["pnpm", "yarn", "bun"]


def test_extract_batch__the_gate_sees_a_change_of_mind_in_the_order_said(
    store: Engine, tenant: str
) -> None:
    said_first = turn_dict(
        tenant, "I prefer pnpm for all my JavaScript projects.", created_at="2026-05-01T09:00:00Z"
    )
    said_next = turn_dict(tenant, "Actually, I prefer yarn.", created_at="2026-05-01T09:01:00Z")
    # they arrive together, the later one first: one turn.received batch
    ingest_turns([Turn.model_validate(said_next), Turn.model_validate(said_first)], engine=store)
    drain(store)
    with store.connect() as conn:
        rows = conn.execute(
            select(proposals.c.message_id, proposals.c.decision, proposals.c.value_json)
            .where(proposals.c.tenant_id == tenant)
            .order_by(proposals.c.id)
        ).all()
    assert [(r.message_id, r.decision) for r in rows] == [
        (said_first["message_id"], "COMMIT"),
        (said_next["message_id"], "CONFIRM_REPLACE"),
    ]
    assert [m.value for m in recall(tenant, "u1", engine=store)] == ["pnpm"]


def test_extract_batch__each_turn_keeps_its_own_evidence(store: Engine, tenant: str) -> None:
    turns = [
        turn_dict(tenant, "我一直用 pnpm。", created_at="2026-05-01T09:00:00+08:00"),
        turn_dict(tenant, "I prefer pnpm over npm.", created_at="2026-05-01T09:05:00+08:00"),
    ]
    ingest_turns([Turn.model_validate(t) for t in turns], engine=store)
    drain(store)
    with store.connect() as conn:
        rows = conn.execute(
            select(proposals.c.message_id, proposals.c.decision)
            .where(proposals.c.tenant_id == tenant)
            .order_by(proposals.c.id)
        ).all()
    # a repeat from another message still reaches the gate: a NOOP that records the evidence
    assert [(r.message_id, r.decision) for r in rows] == [
        (turns[0]["message_id"], "COMMIT"),
        (turns[1]["message_id"], "NOOP"),
    ]
