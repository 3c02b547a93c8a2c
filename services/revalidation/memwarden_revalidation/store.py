"""Reads the revalidation cascade shares: the dependents of a message. The state changes
themselves belong to ``shared.memory_state``."""

from __future__ import annotations

from sqlalchemy import Connection, and_, select

from memwarden_revalidation.cascade import Dependent
from memwarden_shared.contract.models import MemoryStatus
from memwarden_shared.state import provenance
from memwarden_shared.store.schema import memory_evidence, memory_versions


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
