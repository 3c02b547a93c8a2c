"""Canonical hashing (SPEC §4): RFC 8785 JSON, proposal identity and payload hashes. Pure."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import rfc8785
from memwarden.shared.textfold import suppression_form

IDENTITY_SCHEMA = 1


def jcs(obj: Any) -> bytes:
    """RFC 8785 canonical JSON bytes of ``obj``."""
    return rfc8785.dumps(obj)


def sha256_hex(data: str | bytes) -> str:
    """sha256 hex digest; text is hashed as its UTF-8 bytes."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def rfc3339(moment: datetime | None) -> str | None:
    """The one textual form of a timestamp inside hashes: UTC with a ``Z`` suffix.

    Microseconds are kept only when non-zero, so ``2026-12-31T00:00:00Z`` hashes the same
    whether it arrived as ``+00:00`` or ``Z``.
    """
    if moment is None:
        return None
    if moment.tzinfo is None:
        raise ValueError("timestamps must carry a UTC offset")
    utc = moment.astimezone(UTC)
    spec = "microseconds" if utc.microsecond else "seconds"
    return utc.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def proposal_identity(
    *,
    tenant_id: str,
    subject_id: str,
    scope: dict[str, str],
    kind: str,
    normalized_key: str,
    message_id: str,
    start: int,
    end: int,
    stable_candidate_ordinal: int,
    extractor_version: str,
) -> dict[str, Any]:
    """The identity object of SPEC §4; the value is deliberately not part of it."""
    return {
        "schema": IDENTITY_SCHEMA,
        "tenant_id": tenant_id,
        "subject_id": subject_id,
        "scope": {"kind": scope["kind"], "key": scope["key"]},
        "kind": kind,
        "normalized_key": normalized_key,
        "message_id": message_id,
        "start": start,
        "end": end,
        "stable_candidate_ordinal": stable_candidate_ordinal,
        "extractor_version": extractor_version,
    }


def proposal_id(identity: dict[str, Any]) -> str:
    """``sha256(JCS(identity))``."""
    return sha256_hex(jcs(identity))


def payload_hash(
    *, value: Any, confidence: float, expires_at: datetime | None, evidence_hash: str
) -> str:
    """``sha256(JCS({value, confidence, expires_at, evidence_hash}))``."""
    return sha256_hex(
        jcs(
            {
                "value": value,
                "confidence": confidence,
                "expires_at": rfc3339(expires_at),
                "evidence_hash": evidence_hash,
            }
        )
    )


def normalized_content_hash(text: str) -> str:
    """Suppression hash (SPEC §8, seed 004) of :func:`shared.textfold.suppression_form`:
    folded (NFKC, invisible characters, homoglyphs, traditional Chinese), lower-case,
    politeness words dropped, numerals as digits, whitespace and punctuation removed.

    It matches the same words re-extracted from old sessions; it does not match paraphrases.
    """
    return sha256_hex(suppression_form(text))


def claim_text(value: Any) -> str:
    """The text of a proposed value as suppression and secret checks see it."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def claim_key(value: Any, multi_valued: bool) -> str:
    """'' for single-valued keys; otherwise the first 32 hex of the claim's content hash."""
    return normalized_content_hash(claim_text(value))[:32] if multi_valued else ""


def memory_id_for(fact_key: dict[str, str]) -> str:
    """A memory is the lineage of one fact key, so its id is derived from that key."""
    return "mem_" + sha256_hex(jcs(fact_key))[:32]
