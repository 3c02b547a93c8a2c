"""The decision matrix of SPEC §5, row by row (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memwarden_gate.checks import Assessment
from memwarden_gate.decide import CurrentFact, decide
from memwarden_shared.contract.models import Decision

EARLY = datetime(2026, 1, 1, tzinfo=UTC)
LATE = datetime(2026, 2, 1, tzinfo=UTC)


def assessment(**kw: object) -> Assessment:
    a = Assessment()
    for k, v in kw.items():
        setattr(a, k, v)
    return a


ROWS = [
    # (name, assessment, current, seen, locked, evidence_at, expected decision, expected reason)
    (
        "reject wins over everything",
        assessment(reject=["secret"], tainted=True, review=["inferred"]),
        None,
        0,
        0,
        LATE,
        Decision.REJECT,
        "secret",
    ),
    (
        "tainted is quarantined",
        assessment(tainted=True, not_durable=["not_durable"]),
        None,
        0,
        0,
        LATE,
        Decision.QUARANTINE,
        "tainted_source",
    ),
    (
        "not durable is rejected",
        assessment(not_durable=["not_durable", "one_time"], review=["inferred"]),
        None,
        0,
        0,
        LATE,
        Decision.REJECT,
        "not_durable",
    ),
    (
        "inferred needs confirmation",
        assessment(review=["inferred"]),
        CurrentFact(1, "vim", EARLY),
        1,
        1,
        LATE,
        Decision.NEEDS_CONFIRMATION,
        "inferred",
    ),
    (
        "review_all needs confirmation",
        assessment(review=["policy_review_all"]),
        None,
        0,
        0,
        LATE,
        Decision.NEEDS_CONFIRMATION,
        "policy_review_all",
    ),
    (
        "equal to current is a noop",
        assessment(),
        CurrentFact(1, "emacs", EARLY),
        1,
        1,
        LATE,
        Decision.NOOP,
        "semantic_duplicate",
    ),
    (
        "conflict with current asks to replace",
        assessment(),
        CurrentFact(1, "vim", EARLY),
        1,
        1,
        LATE,
        Decision.CONFIRM_REPLACE,
        "conflicts_current",
    ),
    (
        "lost race, newer evidence: replace",
        assessment(),
        CurrentFact(1, "vim", EARLY),
        0,
        1,
        LATE,
        Decision.CONFIRM_REPLACE,
        "conflicts_current",
    ),
    (
        "lost race, not newer: conflict",
        assessment(),
        CurrentFact(1, "vim", LATE),
        0,
        1,
        EARLY,
        Decision.CONFLICT,
        "lost_race",
    ),
    (
        "lost race to an equal value: noop",
        assessment(),
        CurrentFact(1, "emacs", LATE),
        0,
        1,
        EARLY,
        Decision.NOOP,
        "semantic_duplicate",
    ),
    ("clean explicit proposal commits", assessment(), None, 0, 0, LATE, Decision.COMMIT, None),
]


@pytest.mark.parametrize(
    ("name", "a", "current", "seen", "locked", "at", "decision", "reason"),
    ROWS,
    ids=[r[0] for r in ROWS],
)
def test_decide__first_matching_row_wins(
    name: str,
    a: Assessment,
    current: CurrentFact | None,
    seen: int,
    locked: int,
    at: datetime,
    decision: Decision,
    reason: str | None,
) -> None:
    verdict = decide(
        a, value="emacs", current=current, seen_version=seen, locked_version=locked, evidence_at=at
    )
    assert verdict.decision == decision
    if reason:
        assert reason in verdict.reasons
