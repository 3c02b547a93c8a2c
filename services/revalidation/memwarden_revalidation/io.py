"""The revalidation stage: apply revoked and superseded evidence to the memories citing it.

Consumers re-read current state rather than trusting event order, and record each event key
in the inbox in the same transaction, so duplicated and reordered events are harmless.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, select

from memwarden_revalidation import store
from memwarden_revalidation.cascade import outcome, successor_span
from memwarden_shared.contract.models import MemoryStatus, Topic
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.state import memory_state
from memwarden_shared.store.db import utcnow
from memwarden_shared.store.schema import messages, proposals

CONSUMER = Stage.REVALIDATION.value


def revalidate_events(conn: Connection, envelopes: list[dict[str, Any]]) -> int:
    """Apply fresh evidence events inside the caller's transaction (the consumer runner
    owns it); returns how many memory versions left recall."""
    removed = 0
    now = utcnow()
    for env in envelopes:
        if env["topic"] == Topic.EVIDENCE_SUPERSEDED:
            removed += _superseded(conn, env["tenant_id"], env["payload"], now)
        else:
            removed += _revoked(conn, env["tenant_id"], env["payload"]["message_id"], now)
    return removed


def _revoked(conn: Connection, tenant_id: str, message_id: str, now: datetime) -> int:
    memory_state.withdraw_pending(conn, tenant_id, message_id)
    removed = 0
    deps = store.dependents(conn, tenant_id, message_id)
    memory_state.lock_memories(conn, [d.memory_id for d in deps])  # one order for all writers
    for dep in deps:
        if outcome(dep) == MemoryStatus.REVOKED:
            memory_state.take_out_of_recall(
                conn,
                tenant_id,
                dep.memory_id,
                dep.version,
                now,
                status=MemoryStatus.REVOKED,
                reason="evidence_revoked",
            )
            removed += 1
    return removed


def _superseded(conn: Connection, tenant_id: str, payload: dict[str, Any], now: datetime) -> int:
    message_id, old_rev, new_rev = (
        payload["message_id"],
        payload["revision"],
        payload["new_revision"],
    )
    texts = {
        r.revision: r.text
        for r in conn.execute(
            select(messages.c.revision, messages.c.text).where(
                messages.c.tenant_id == tenant_id, messages.c.message_id == message_id
            )
        )
    }
    memory_state.withdraw_pending(conn, tenant_id, message_id)
    removed = 0
    deps = store.dependents(conn, tenant_id, message_id, old_rev)
    memory_state.lock_memories(conn, [d.memory_id for d in deps])  # one order for all writers
    for dep in deps:
        spans = conn.execute(
            select(proposals.c.evidence_start, proposals.c.evidence_end).where(
                and_(
                    proposals.c.memory_id == dep.memory_id,
                    proposals.c.memory_version == dep.version,
                    proposals.c.message_id == message_id,
                    proposals.c.message_revision == old_rev,
                )
            )
        ).all()
        old_sentences = {texts.get(old_rev, "")[s.evidence_start : s.evidence_end] for s in spans}
        if any(successor_span(sentence, texts.get(new_rev, "")) for sentence in old_sentences):
            # exact successor: the edited message still says the same sentence
            memory_state.add_evidence(
                conn,
                [
                    memory_state.evidence_row(
                        dep.memory_id, dep.version, tenant_id, message_id, new_rev
                    )
                ],
            )
        elif dep.active_evidence == 0:
            memory_state.take_out_of_recall(
                conn,
                tenant_id,
                dep.memory_id,
                dep.version,
                now,
                status=MemoryStatus.REVOKED,
                reason="evidence_superseded",
            )
            removed += 1
    return removed
