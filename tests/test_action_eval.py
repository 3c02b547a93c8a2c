"""Labelled action cases (SPEC §13 v1.1 action steps) through ``memwarden eval``: the project's
own set (tests/actions, English and Chinese) and the public action development set."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from memwarden.eval.runner import run_cases
from tests.actions.generate import OUT, render

REPO = Path(__file__).resolve().parent.parent
ACTIONS_DEV = Path(
    os.environ.get(
        "MEMWARDEN_ACTIONS_DEVSET", REPO.parent / "shared" / "eval" / "actions_dev.jsonl"
    )
)
DECISIONS = {"ALLOW", "NEEDS_APPROVAL", "DENY", "STALE", "DUPLICATE", "KEY_CONFLICT"}
STATES = {
    "allowed",
    "awaiting_approval",
    "denied",
    "executed",
    "failed",
    "cancelled",
    "needs_repair",
}


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_action_cases__file_is_what_the_generator_writes() -> None:
    assert OUT.read_text(encoding="utf-8") == render()


def test_action_cases__cover_every_decision_and_state_in_both_languages() -> None:
    cases = load(OUT)
    assert len(cases) >= 40
    for lang in ("en", "zh"):
        mine = [c for c in cases if c["lang"] == lang]
        expected = [e for c in mine for e in c["expect"] if "action" in e]
        assert {e["decision"] for e in expected if "decision" in e} == DECISIONS, lang
        assert {e["state"] for e in expected if "state" in e} | {"denied"} >= STATES, lang


def test_action_cases__all_pass_with_actions_in_the_snapshots(store: Engine) -> None:
    cases = load(OUT)
    snapshots = io.StringIO()
    results = run_cases(cases, engine=store, snapshots=snapshots)
    failing = [
        (r.case_id, r.error, [v.detail for v in r.verdicts if not v.passed]) for r in results
    ]
    assert [f for f in failing if f[1] or f[2]] == []
    lines = [json.loads(line) for line in snapshots.getvalue().splitlines()]
    finals = {s["case_id"]: s for s in lines if s["checkpoint"] == "final"}
    derived = finals["act-en-retraction-cascades-through-derived-memory"]
    assert [a["state"] for a in derived["actions"]] == ["cancelled", "needs_repair"]
    assert {m["status"] for m in derived["memories"]} == {"revoked", "needs_revalidation"}
    assert all(
        set(a) == {"action_step", "decision", "reasons", "state", "memory_versions"}
        for s in lines
        for a in s["actions"]
    )


@pytest.mark.skipif(not ACTIONS_DEV.is_file(), reason="the development set lives outside the repo")
def test_action_cases__public_development_set_passes(sqlite_engine: Engine) -> None:
    results = run_cases(load(ACTIONS_DEV), engine=sqlite_engine)
    assert [(r.case_id, r.error) for r in results if not r.passed] == []
