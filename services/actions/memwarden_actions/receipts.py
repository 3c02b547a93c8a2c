"""The action receipt (SPEC §14) built from a stored action row, and the gate's refusals.

A receipt names the exact ``memory_id:version`` list read and the hashes the key and any
approval are bound to; it never repeats the params (they may hold message text).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from memwarden_actions.decide import ActionDecision


class UnknownIntent(ValueError):
    """The intent is not in the action registry (HTTP 422)."""


class UnknownAction(LookupError):
    """No such action in the tenant (HTTP 404)."""


class ActionRefused(ValueError):
    """An approval or outcome report that cannot apply to the action's state (HTTP 409)."""


class ActionKeyConflict(ValueError):
    """The idempotency key was first used with another intent or params (HTTP 409)."""

    def __init__(self, action_id: str) -> None:
        super().__init__("idempotency key already used with another intent or params")
        self.action_id = action_id

    def receipt(self) -> dict[str, Any]:
        return {
            "schema_version": 1,
            "decision": ActionDecision.KEY_CONFLICT.value,
            "reasons": ["idempotency_key_reused_with_other_params"],
            "action_id": self.action_id,
        }


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def receipt(row: Any, *, duplicate: bool = False) -> dict[str, Any]:
    """The receipt of a stored action; a retry under the same key gets ``DUPLICATE`` with the
    first decision beside it, and the same action id (no second effect)."""
    outcome = None
    if row["outcome_at"] is not None:
        outcome = {"external_ref": row["external_ref"], "reported_at": _iso(row["outcome_at"])}
    body = {
        "schema_version": 1,
        "action_id": row["action_id"],
        "tenant_id": row["tenant_id"],
        "subject_id": row["subject_id"],
        "intent": row["intent"],
        "decision": ActionDecision.DUPLICATE.value if duplicate else row["decision"],
        "reasons": json.loads(row["reasons"]),
        "state": row["state"],
        "state_reason": row["state_reason"],
        "memory_versions": json.loads(row["uses_json"]),
        "purpose": row["purpose"],
        "requested_by": row["requested_by"],
        "approved_by": row["approved_by"],
        "idempotency_key": row["idempotency_key"],
        "key_hash": row["key_hash"],
        "request_hash": row["request_hash"],
        "decided_at": _iso(row["decided_at"]),
        "outcome": outcome,
    }
    if duplicate:
        body["first_decision"] = row["decision"]
    return body
