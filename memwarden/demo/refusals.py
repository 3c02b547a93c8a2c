"""What the gate is for: proposals from a (careless or hostile) external extractor that it
refuses, each with the reasons its receipt records.

Every proposal is well-formed, with a correct ``proposal_id``; only what the gate can
re-read from the store gives it away.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine

from memwarden_shared.contract.canonical import proposal_id, proposal_identity, sha256_hex
from memwarden_shared.contract.models import Receipt, Turn
from memwarden_usecases.ingest import ingest
from memwarden_usecases.propose import propose

EXTERNAL_EXTRACTOR = "demo-external-extractor"
# A made-up token in GitHub's format: what a secret scanner must catch, never a real one.
FAKE_TOKEN = "ghp_" + "Zq8RkT3vLw9XcN2bHy5MdP7sJf4GaE6uQo1i"
SAID_AT = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Refusal:
    attempt: str
    receipt: Receipt


def _turn(tenant: str, message_id: str, text: str, **fields: Any) -> Turn:
    return Turn.model_validate(
        {
            "tenant_id": tenant,
            "subject_id": "alice",
            "session_id": "s9",
            "message_id": message_id,
            "role": "user",
            "source": "user_message",
            "text": text,
            "created_at": SAID_AT,
            **fields,
        }
    )


def _proposal(
    tenant: str, message_id: str, text: str, key: str, value: Any, **evidence: Any
) -> dict[str, Any]:
    kind = key.split(".")[0]
    ev = {
        "message_id": message_id,
        "start": 0,
        "end": len(text),
        "sha256": sha256_hex(text),
        **evidence,
    }
    body = {
        "tenant_id": tenant,
        "subject_id": "alice",
        "scope": {"kind": "user", "key": "alice"},
        "kind": kind,
        "normalized_key": key,
        "stable_candidate_ordinal": 0,
        "value": value,
        "evidence": ev,
        "extractor_version": EXTERNAL_EXTRACTOR,
        "confidence": 0.9,
        "expires_at": None,
    }
    identity = proposal_identity(
        tenant_id=tenant,
        subject_id="alice",
        scope=body["scope"],
        kind=kind,
        normalized_key=key,
        message_id=message_id,
        start=ev["start"],
        end=ev["end"],
        stable_candidate_ordinal=0,
        extractor_version=EXTERNAL_EXTRACTOR,
    )
    return {**body, "proposal_id": proposal_id(identity)}


def refused_proposals(engine: Engine, tenant: str) -> list[Refusal]:
    """Store the turns the attempts point at (evidence only), submit the attempts, and
    return each with its receipt."""
    other_tenant = tenant + "-neighbour"
    yarn = "I prefer yarn for everything."
    token = f"Remember that my deploy token is {FAKE_TOKEN}."
    pasted = "I prefer bun for all my projects."
    ingest(
        engine,
        [
            _turn(tenant, "x1", yarn),
            _turn(tenant, "x2", token),
            _turn(tenant, "x3", pasted, source="web_content"),
        ],
        extract=False,
    )
    neighbour = "I prefer npm for my side projects."
    ingest(engine, [_turn(other_tenant, "n1", neighbour)], extract=False)
    attempts = [
        (
            "forged span: claims alice said “I prefer pnpm.” inside x1",
            _proposal(
                tenant,
                "x1",
                yarn,
                "preference.package_manager",
                "pnpm",
                sha256=sha256_hex("I prefer pnpm."),
            ),
        ),
        (
            "secret: files alice's deploy token (x2) as a note",
            _proposal(tenant, "x2", token, "preference.note", f"deploy token {FAKE_TOKEN}"),
        ),
        (
            "tainted: a web page alice pasted (x3) says she prefers bun",
            _proposal(tenant, "x3", pasted, "preference.package_manager", "bun"),
        ),
        (
            "cross-tenant: cites message n1, which belongs to another tenant",
            _proposal(tenant, "n1", neighbour, "preference.package_manager", "npm"),
        ),
    ]
    receipts = propose(
        engine, [proposal for _, proposal in attempts], proposed_by=EXTERNAL_EXTRACTOR
    )
    return [Refusal(what, receipt) for (what, _), receipt in zip(attempts, receipts, strict=True)]
