"""Evaluation cases (SPEC §13): parsing and namespacing. Pure.

Every tenant id gets a run prefix (reruns on a shared database never collide); message and
session ids get a case prefix (cases never share evidence); subjects and scopes stay as
written, so tenant/subject relations are kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shared.canonical import proposal_id, proposal_identity, sha256_hex

OUTCOMES = frozenset({"commit", "no_commit", "not_auto", "pending", "no_durable"})
OPS = frozenset(
    {"approve", "reject", "revoke_message", "forget", "replay"}
    | {"act", "outcome", "approve_action"}  # action steps (SPEC §13 v1.1, §14)
)


class CaseError(ValueError):
    """A case that cannot be run as written."""


@dataclass
class Namespace:
    run_prefix: str
    case_id: str
    texts: dict[str, str] = field(default_factory=dict)  # case message id -> text

    def tenant(self, tenant_id: str) -> str:
        return f"{self.run_prefix}.{tenant_id}"

    def message(self, message_id: str) -> str:
        return f"{self.case_id}.{message_id}"

    def session(self, session_id: str) -> str:
        return f"{self.case_id}.{session_id}"

    def unmessage(self, message_id: str) -> str:
        prefix = f"{self.case_id}."
        return message_id[len(prefix) :] if message_id.startswith(prefix) else message_id

    def untenant(self, tenant_id: str) -> str:
        prefix = f"{self.run_prefix}."
        return tenant_id[len(prefix) :] if tenant_id.startswith(prefix) else tenant_id


def turn_for(case: dict[str, Any], step: dict[str, Any], ns: Namespace) -> dict[str, Any]:
    t = step["turn"]
    ns.texts[t["message_id"]] = t["text"]
    turn = {
        "tenant_id": ns.tenant(case["tenant_id"]),
        "subject_id": case["subject_id"],
        "session_id": ns.session(t["session_id"]),
        "message_id": ns.message(t["message_id"]),
        "role": t["role"],
        "source": t["source"],
        "text": t["text"],
        "created_at": t["created_at"],
    }
    if t.get("author_id"):
        turn["author_id"] = t["author_id"]
    return turn


def resolve_evidence(evidence: dict[str, Any], ns: Namespace) -> dict[str, Any]:
    message_id = evidence.get("message_id")
    if message_id not in ns.texts:
        raise CaseError(f"evidence names message {message_id!r}, which no earlier turn sent")
    text = ns.texts[message_id]
    if "quote" in evidence:
        start = text.find(evidence["quote"])
        if start < 0:
            raise CaseError(f"quote not found in message {message_id!r}")
        end = start + len(evidence["quote"])
    else:
        start, end = int(evidence["start"]), int(evidence["end"])
    sha = evidence.get("sha256") or sha256_hex(text[max(start, 0) : max(end, 0)])
    return {"message_id": ns.message(message_id), "start": start, "end": end, "sha256": sha}


def proposal_for(step: dict[str, Any], ns: Namespace) -> dict[str, Any]:
    """The proposal as the external extractor would send it, in the run's namespace."""
    body = dict(step["proposal"])
    given_id = body.pop("proposal_id", None)
    body["tenant_id"] = ns.tenant(body["tenant_id"])
    body["evidence"] = resolve_evidence(body["evidence"], ns)
    if given_id is not None:
        body["proposal_id"] = given_id  # sent verbatim: forged ids must reach the gate as-is
    else:
        body["proposal_id"] = proposal_id(
            proposal_identity(
                tenant_id=body["tenant_id"],
                subject_id=body["subject_id"],
                scope=body["scope"],
                kind=body["kind"],
                normalized_key=body["normalized_key"],
                message_id=body["evidence"]["message_id"],
                start=body["evidence"]["start"],
                end=body["evidence"]["end"],
                stable_candidate_ordinal=body["stable_candidate_ordinal"],
                extractor_version=body["extractor_version"],
            )
        )
    return body


def validate_case(case: dict[str, Any]) -> None:
    for name in ("id", "category", "tenant_id", "subject_id", "steps", "expect"):
        if name not in case:
            raise CaseError(f"case lacks {name!r}")
    for i, step in enumerate(case["steps"]):
        kinds = {"turn", "proposal", "op", "check"} & set(step)
        if len(kinds) != 1:
            raise CaseError(f"step {i} must be exactly one of turn/proposal/op/check")
        if "op" in step and step["op"] not in OPS:
            raise CaseError(f"step {i}: unknown op {step['op']!r}")
    for exp in case["expect"] + [e for s in case["steps"] for e in s.get("check", [])]:
        if "outcome" in exp and exp["outcome"] not in OUTCOMES:
            raise CaseError(f"unknown outcome {exp['outcome']!r}")
