"""Evaluation cases (SPEC §13): parsing and namespacing. Pure.

Every tenant id gets a run prefix (reruns on a shared database never collide); message and
session ids get a case prefix (cases never share evidence); subjects and scopes stay as
written, so tenant/subject relations are kept.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from memwarden_shared.contract.canonical import proposal_id, proposal_identity, sha256_hex

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

    def unsession(self, kind: str, key: str) -> str:
        """A scope key in the case's own ids: session scopes lose the case prefix."""
        return self.unmessage(key) if kind == "session" else key

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
    """The evidence as an extractor would send it. A quote resolves to its first occurrence.

    Evidence that cannot resolve still goes to the gate, which judges it (SPEC §13 v1.1): a
    message never sent is REJECTed ``message_not_found``; a quote absent from its message is
    sent at offset 0 with the quote's own hash, so the gate finds the mismatch.
    """
    message_id = evidence.get("message_id")
    text = ns.texts.get(message_id) if isinstance(message_id, str) else None
    # What the case file says, unchecked: the gate is the one that judges it.
    start: object
    end: object
    sha: object
    if "quote" in evidence:
        quote = str(evidence["quote"])
        start = text.find(quote) if text is not None else -1
        start = max(start, 0)
        end = start + len(quote)
        sha = sha256_hex(quote)  # equals the span's hash whenever the quote was found
    else:
        start, end = evidence.get("start"), evidence.get("end")
        sha = evidence.get("sha256")
        if sha is None and isinstance(start, int) and isinstance(end, int):
            sha = sha256_hex((text or "")[max(start, 0) : max(end, 0)])
    return {
        "message_id": ns.message(message_id) if isinstance(message_id, str) else message_id,
        "start": start,
        "end": end,
        "sha256": sha,
    }


def proposal_for(step: dict[str, Any], ns: Namespace) -> dict[str, Any]:
    """The proposal as the external extractor would send it, in the run's namespace.

    A proposal too malformed to hash is sent without an id: the gate REJECTs it
    (``schema_invalid``), which is the result the case then judges.
    """
    body = dict(step["proposal"])
    given_id = body.pop("proposal_id", None)
    if isinstance(body.get("tenant_id"), str):
        body["tenant_id"] = ns.tenant(body["tenant_id"])
    if isinstance(body.get("evidence"), dict):
        body["evidence"] = resolve_evidence(body["evidence"], ns)
    scope = body.get("scope")
    if isinstance(scope, dict) and scope.get("kind") == "session" and "key" in scope:
        # session ids carry the case prefix, so a session scope names the prefixed session;
        # the gate checks that it is the evidence's own session
        body["scope"] = {**scope, "key": ns.session(str(scope["key"]))}
    if given_id is not None:
        body["proposal_id"] = given_id  # sent verbatim: forged ids must reach the gate as-is
        return body
    with contextlib.suppress(KeyError, TypeError, ValueError):
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
