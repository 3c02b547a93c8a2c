"""Reads and writes the revalidation cascade shares: dependents of a message, and taking a
memory version out of recall (history kept, projection row removed, event emitted)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, and_, delete, select, update

from services.revalidation.cascade import Dependent
from shared import provenance
from shared.action_repair import cancel_actions_using
from shared.models import MemoryStatus, ProposalState, Topic
from shared.outbox import emit
from shared.schema import current_memories, memory_evidence, memory_versions, proposals


def dependents(
    conn: Connection, tenant_id: str, message_id: str, revision: int | None = None
) -> list[Dependent]:
    """Committed versions citing the message (or one revision of it), with how many active
    message revisions still support each."""
    active = provenance.active_support_count(memory_versions.c.memory_id, memory_versions.c.version)
    stmt = (
        select(memory_versions.c.memory_id, memory_versions.c.version, active.label("active"))
        .join(
            memory_evidence,
            and_(
                memory_evidence.c.memory_id == memory_versions.c.memory_id,
                memory_evidence.c.version == memory_versions.c.version,
            ),
        )
        .where(
            memory_evidence.c.tenant_id == tenant_id,
            memory_evidence.c.message_id == message_id,
            memory_versions.c.status == MemoryStatus.COMMITTED,
        )
        .distinct()
    )
    if revision is not None:
        stmt = stmt.where(memory_evidence.c.revision == revision)
    return [Dependent(r.memory_id, r.version, int(r.active)) for r in conn.execute(stmt)]


def take_out_of_recall(
    conn: Connection,
    tenant_id: str,
    memory_id: str,
    version: int,
    now: datetime,
    *,
    status: MemoryStatus,
    reason: str,
) -> None:
    """Append the status change, drop the projection row, tell the vector sink, and mark
    versions derived from this one as needing revalidation (they lose recall too)."""
    changed = conn.execute(
        update(memory_versions)
        .where(
            memory_versions.c.memory_id == memory_id,
            memory_versions.c.version == version,
            memory_versions.c.status == MemoryStatus.COMMITTED,
        )
        .values(status=status, status_reason=reason, expired_at=now)
    ).rowcount
    if not changed:
        return  # already out: the cascade is idempotent
    # retraction is repair: actions that read this version are cancelled or need repair
    cancel_actions_using(conn, tenant_id, [(memory_id, version)], now, reason)
    conn.execute(
        update(proposals)
        .where(
            proposals.c.memory_id == memory_id,
            proposals.c.memory_version == version,
            proposals.c.state.in_([ProposalState.COMMITTED, ProposalState.NOOP]),
        )
        .values(state=ProposalState.REVOKED)
    )
    conn.execute(
        delete(current_memories).where(
            current_memories.c.memory_id == memory_id, current_memories.c.version == version
        )
    )
    emit(
        conn,
        Topic.MEMORY_REVOKED,
        f"{memory_id}:{version}:{status.value}",
        tenant_id,
        {"memory_id": memory_id, "version": version},
    )
    for derived in conn.execute(
        select(memory_versions.c.memory_id, memory_versions.c.version).where(
            memory_versions.c.tenant_id == tenant_id,
            memory_versions.c.status == MemoryStatus.COMMITTED,
            memory_versions.c.derived_from.contains(f'"{memory_id}:{version}"'),
        )
    ).all():
        take_out_of_recall(
            conn,
            tenant_id,
            derived.memory_id,
            derived.version,
            now,
            status=MemoryStatus.NEEDS_REVALIDATION,
            reason="source_revoked",
        )


def withdraw_pending(conn: Connection, tenant_id: str, message_id: str) -> None:
    """A candidate citing a revoked or edited message can never be approved."""
    conn.execute(
        update(proposals)
        .where(
            proposals.c.tenant_id == tenant_id,
            proposals.c.message_id == message_id,
            proposals.c.state == ProposalState.PENDING,
        )
        .values(state=ProposalState.REVOKED)
    )
