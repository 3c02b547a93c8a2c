"""Read-only listings for the CLI and API: a subject's memory versions and proposals."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, select

from memwarden_shared.store.db import as_utc, get_engine, unit_of_work
from memwarden_shared.store.schema import (
    current_memories,
    memory_evidence,
    memory_versions,
    proposals,
)


def _iso(moment: Any) -> str | None:
    return as_utc(moment).isoformat() if moment is not None else None


def list_memories(
    tenant_id: str, subject_id: str, *, engine: Engine | None = None
) -> list[dict[str, Any]]:
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        rows = conn.execute(
            select(memory_versions)
            .where(
                memory_versions.c.tenant_id == tenant_id, memory_versions.c.subject_id == subject_id
            )
            .order_by(memory_versions.c.id)
        ).all()
        current = {
            (r.memory_id, r.version)
            for r in conn.execute(
                select(current_memories.c.memory_id, current_memories.c.version).where(
                    current_memories.c.tenant_id == tenant_id,
                    current_memories.c.subject_id == subject_id,
                )
            )
        }
        evidence: dict[tuple[str, int], list[str]] = {}
        for e in conn.execute(
            select(memory_evidence).where(memory_evidence.c.tenant_id == tenant_id)
        ):
            evidence.setdefault((e.memory_id, e.version), []).append(e.message_id)
    return [
        {
            "memory_id": r.memory_id,
            "version": r.version,
            "status": r.status,
            "current": (r.memory_id, r.version) in current,
            "kind": r.kind,
            "normalized_key": r.normalized_key,
            "value": json.loads(r.value_json),
            "scope": {"kind": r.scope_kind, "key": r.scope_key},
            "evidence_message_ids": sorted(evidence.get((r.memory_id, r.version), [])),
            "auto": r.auto,
            "supersedes": r.supersedes,
            "derived_from": json.loads(r.derived_from or "[]"),
            "proposal_id": r.proposal_id,
            "valid_from": _iso(r.valid_from),
            "valid_to": _iso(r.valid_to),
            "recorded_at": _iso(r.recorded_at),
            "expired_at": _iso(r.expired_at),
        }
        for r in rows
    ]


def list_proposals(
    tenant_id: str, subject_id: str, *, engine: Engine | None = None
) -> list[dict[str, Any]]:
    with unit_of_work(engine or get_engine()) as uow:
        rows = uow.conn.execute(
            select(proposals)
            .where(proposals.c.tenant_id == tenant_id, proposals.c.subject_id == subject_id)
            .order_by(proposals.c.id)
        ).all()
    return [
        {
            "proposal_id": r.proposal_id,
            "payload_hash": r.payload_hash,
            "message_id": r.message_id,
            "kind": r.kind,
            "normalized_key": r.normalized_key,
            "scope": {"kind": r.scope_kind, "key": r.scope_key},
            "value": json.loads(r.value_json) if r.value_json else None,
            "decision": r.decision,
            "state": r.state,
            "reasons": json.loads(r.reasons),
            "memory_id": r.memory_id,
            "memory_version": r.memory_version,
            "extractor_version": r.extractor_version,
            "confidence": r.confidence,
            "decided_at": _iso(r.decided_at),
        }
        for r in rows
    ]
