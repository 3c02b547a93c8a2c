"""Receipts that explain (seed 002 §receipts), as properties over a generated family of
proposals: a valid one, or one broken in one of several ways (evidence span, evidence
hash, unknown key, ungrounded value, tainted source, review-all policy). Whatever the
decision, the receipt names every check with its outcome, and the outcome agrees with the
decision; it never holds the value."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from memwarden_gate.checks import CHECKS
from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.canonical import jcs
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_usecases.review import set_policy
from tests.conftest import turn_dict

# real editor names (a value must be words the registry accepts to commit), none of them a
# substring of the receipt's own vocabulary
# Editors the registry's catalogue knows: an editor it does not know goes to the owner
# (deny by default, ``unrecognised_token``), which would not be the "none" break's COMMIT
_EDITOR_SPEC = default_registry().get("preference", "preference.editor")
assert _EDITOR_SPEC is not None
# (five letters or more: a shorter name such as "zed" occurs inside the receipt's own words)
EDITORS = tuple(sorted(e for e in _EDITOR_SPEC.aliases if len(e) >= 5))
BREAKS = ("none", "span", "hash", "unknown_key", "ungrounded", "tainted", "review_all")


def _broken(body: dict[str, Any], how: str) -> dict[str, Any]:
    ev = dict(body["evidence"])
    if how == "span":
        ev["end"] -= 3
    elif how == "hash":
        ev["sha256"] = "0" * 64
    else:
        return body | (
            {"normalized_key": "preference.no_such_key"}
            if how == "unknown_key"
            else {"value": "sublimetext-" + uuid.uuid4().hex[:6]}
            if how == "ungrounded"
            else {}
        )
    return body | {"evidence": ev}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(EDITORS), st.sampled_from(BREAKS))
def test_receipt__every_check_is_named_and_agrees_with_the_decision(
    sqlite_engine: Engine, make_proposal: Callable[..., dict[str, Any]], editor: str, how: str
) -> None:
    tenant, message_id = "t-" + uuid.uuid4().hex[:8], "m-" + uuid.uuid4().hex[:8]
    text = f"I use {editor} as my editor."
    role = {"source": "tool_result"} if how == "tainted" else {}
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id, **role))],
        engine=sqlite_engine,
        extract=False,
    )
    if how == "review_all":
        set_policy(sqlite_engine, tenant, "review_all")
    body = make_proposal(tenant, message_id, text, normalized_key="preference.editor", value=editor)
    body = _broken({k: v for k, v in body.items() if k != "proposal_id"}, how)
    [receipt] = decide_batch(
        [make_proposal(tenant, message_id, text, **body)], engine=sqlite_engine
    )

    checks = receipt.checks or {}
    assert set(checks) == set(CHECKS)
    outcomes = set(checks.values())
    if receipt.decision == "REJECT":
        assert "failed" in outcomes
    elif receipt.decision == "QUARANTINE":
        assert checks["taint"] == "failed"
    elif receipt.decision == "NEEDS_CONFIRMATION":
        assert "review" in outcomes and "failed" not in outcomes
    elif receipt.decision == "COMMIT":
        assert outcomes <= {"passed", "not_run"}, (editor, how, checks)
        assert set(receipt.checks_passed) >= {c for c, o in checks.items() if o == "passed"} - {
            "holds",
            "commit_switch",
        }
    assert {"none": "COMMIT", "tainted": "QUARANTINE", "review_all": "NEEDS_CONFIRMATION"}.get(
        how, "REJECT"
    ) == receipt.decision
    assert receipt.validator is not None and receipt.validator.name == "memwarden-gate"
    assert receipt.authority == ("policy:review_all" if how == "review_all" else "policy:auto")
    claim_value = body["value"]
    assert receipt.claim is not None
    assert receipt.claim.value_sha256 == hashlib.sha256(jcs(claim_value)).hexdigest()
    stored = json.dumps(receipt.model_dump(mode="json"))
    assert claim_value not in stored  # receipts hold the value's hash, never the value
