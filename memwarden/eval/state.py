"""Read the state of one evaluation case back from the store, in the case's own ids."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine

from memwarden.eval.cases import Namespace
from memwarden_shared.contract.canonical import memory_id_for, proposal_identity
from memwarden_usecases.inspect import subject_rows
from memwarden_usecases.recall import recall


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
    recalled_rows = recall(engine, tenant_ids[0], subject_id, k=10_000, now=now)
    recallable = {(r.memory_id, r.version) for r in recalled_rows}
    stored = subject_rows(engine, tenant_ids, subject_id)
    versions, props = stored.versions, stored.proposals
    evidence = {
        key: [ns.unmessage(m) for m in message_ids] for key, message_ids in stored.evidence.items()
    }
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
