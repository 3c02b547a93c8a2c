"""Read the state of one evaluation case back from the store, in the case's own ids."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, and_, func, select

from memwarden.eval.cases import Namespace
from memwarden_recall.query import recall
from memwarden_shared.contract.canonical import memory_id_for, proposal_identity
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import (
    current_memories,
    memory_evidence,
    memory_versions,
    proposals,
)


@dataclass(frozen=True)
class MemoryView:
    memory_id: str  # recomputed for the case's own tenant, so it is stable across runs
    version: int
    status: str
    current: bool
    recallable: bool
    kind: str
    normalized_key: str
    value: Any
    scope: dict[str, str]
    evidence_message_ids: tuple[str, ...]
    source_message_id: str | None
    auto: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "version": self.version,
            "status": self.status,
            "recallable": self.recallable,
            "kind": self.kind,
            "normalized_key": self.normalized_key,
            "value": self.value,
            "scope": self.scope,
            "evidence_message_ids": list(self.evidence_message_ids),
            "auto": self.auto,
        }


@dataclass(frozen=True)
class ProposalView:
    proposal_id: str
    payload_hash: str
    decision: str
    state: str
    reasons: list[str]
    message_id: str
    identity: dict[str, Any]  # as stored, in the run's namespace


@dataclass(frozen=True)
class CaseState:
    memories: list[MemoryView]
    proposals: list[ProposalView]
    recall: list[dict[str, Any]]

    def recall_text(self) -> list[str]:
        return [json.dumps(r["value"], ensure_ascii=False).lower() for r in self.recall]


def read_state(
    engine: Engine,
    ns: Namespace,
    tenant_ids: list[str],
    subject_id: str,
    now: datetime | None = None,
) -> CaseState:
    """Memories, proposals and recall of ``subject_id`` in the case's tenants; the first tenant
    is the case's own, the one recall is asked for, as of ``now`` (wall-clock when None)."""
    recalled_rows = recall(tenant_ids[0], subject_id, k=10_000, engine=engine, now=now)
    recallable = {(r.memory_id, r.version) for r in recalled_rows}
    with unit_of_work(engine) as uow:
        conn = uow.conn
        versions = conn.execute(
            select(
                memory_versions,
                current_memories.c.version.label("current_version"),
                proposals.c.message_id.label("source_message_id"),
            )
            .outerjoin(
                current_memories,
                and_(
                    current_memories.c.memory_id == memory_versions.c.memory_id,
                    current_memories.c.version == memory_versions.c.version,
                ),
            )
            .outerjoin(
                proposals,
                and_(
                    proposals.c.tenant_id == memory_versions.c.tenant_id,
                    proposals.c.proposal_id == memory_versions.c.proposal_id,
                ),
            )
            .where(
                memory_versions.c.tenant_id.in_(tenant_ids),
                memory_versions.c.subject_id == subject_id,
            )
            .order_by(memory_versions.c.id)
        ).all()
        evidence: dict[tuple[str, int], list[str]] = {}
        for r in conn.execute(
            select(memory_evidence).where(memory_evidence.c.tenant_id.in_(tenant_ids))
        ):
            evidence.setdefault((r.memory_id, r.version), []).append(ns.unmessage(r.message_id))
        props = conn.execute(
            select(proposals)
            .where(proposals.c.tenant_id.in_(tenant_ids), proposals.c.subject_id == subject_id)
            .order_by(proposals.c.id)
        ).all()
    case_ids = {
        v.memory_id: memory_id_for(
            {
                "tenant_id": ns.untenant(v.tenant_id),
                "subject_id": v.subject_id,
                "scope_kind": v.scope_kind,
                "scope_key": ns.unsession(v.scope_kind, v.scope_key),
                "kind": v.kind,
                "normalized_key": v.normalized_key,
                "claim_key": v.claim_key,
            }
        )
        for v in versions
    }
    memories = [
        MemoryView(
            memory_id=case_ids[v.memory_id],
            version=v.version,
            status=v.status,
            current=v.current_version is not None,
            recallable=(v.memory_id, v.version) in recallable,
            kind=v.kind,
            normalized_key=v.normalized_key,
            value=json.loads(v.value_json),
            scope={"kind": v.scope_kind, "key": ns.unsession(v.scope_kind, v.scope_key)},
            evidence_message_ids=tuple(sorted(evidence.get((v.memory_id, v.version), []))),
            source_message_id=ns.unmessage(v.source_message_id) if v.source_message_id else None,
            auto=bool(v.auto),
        )
        for v in versions
    ]
    proposal_views = [
        ProposalView(
            proposal_id=p.proposal_id,
            payload_hash=p.payload_hash,
            decision=p.decision,
            state=p.state,
            reasons=json.loads(p.reasons),
            message_id=ns.unmessage(p.message_id),
            identity=proposal_identity(
                tenant_id=p.tenant_id,
                subject_id=p.subject_id,
                scope={"kind": p.scope_kind, "key": p.scope_key},
                kind=p.kind,
                normalized_key=p.normalized_key,
                message_id=p.message_id,
                start=p.evidence_start,
                end=p.evidence_end,
                stable_candidate_ordinal=p.stable_candidate_ordinal,
                extractor_version=p.extractor_version,
            ),
        )
        for p in props
    ]
    recall_view = [
        {"memory_id": case_ids.get(r.memory_id, r.memory_id), "value": r.value}
        for r in recalled_rows
    ]
    return CaseState(memories, proposal_views, recall_view)


def producer_decisions(engine: Engine, tenant_ids: list[str]) -> dict[tuple[str, str], int]:
    """(extractor version, first gate decision) -> proposals, over the case's tenants: the
    per-producer rates of seed 002 (acceptance, quarantine, conflict)."""
    with unit_of_work(engine) as uow:
        rows = uow.conn.execute(
            select(proposals.c.extractor_version, proposals.c.decision, func.count())
            .where(proposals.c.tenant_id.in_(tenant_ids))
            .group_by(proposals.c.extractor_version, proposals.c.decision)
        ).all()
    return {(r[0], r[1]): int(r[2]) for r in rows}
