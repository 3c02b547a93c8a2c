"""Every memory write of curate's publish and rollback, behind two functions.

SPEC §8.1 wants one owner of memory state (commit, retire, …) that the gate, review,
revalidation, forget and curate all call. Until that module exists on this branch, these
two functions write the same row shapes as ``services/gate/commit.py`` (commit) and
``services/revalidation/store.py`` (take out of recall), which curate may not import.
Re-point them at the state owner and nothing else in curate changes.

Callers hold the fact-key lock (``lock_fact_key``) of every memory they touch and own the
transaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, update

from shared.db import dumps, insert_ignore
from shared.models import MemoryStatus, ProposalState, Topic
from shared.outbox import emit
from shared.schema import (
    FACT_KEY_COLUMNS,
    current_memories,
    fact_keys,
    memory_evidence,
    memory_versions,
    proposals,
)


class CompareAndSetFailed(RuntimeError):
    """The fact key moved although we held its lock: a bug, never a user error."""


def commit_new_version(
    conn: Connection,
    *,
    fact_row: dict[str, Any],
    value: Any,
    evidence: Iterable[tuple[str, int]],
    formation_id: str,
    valid_from: datetime,
    expires_at: datetime | None,
    derived_from: list[str],
    now: datetime,
) -> tuple[str, int]:
    """Append a committed version on a locked fact key, supported by every
    ``(message_id, revision)`` in ``evidence``; retire the version it replaces (if still
    committed), move the projection, emit ``memory.committed``. ``formation_id`` stands in
    the ``proposal_id`` column: curate versions come from a reviewed plan, not a proposal."""
    memory_id = str(fact_row["memory_id"])
    previous = int(fact_row["current_version"])
    version = previous + 1
    # Compare-and-set even under the lock: a second guard that history is never overwritten.
    moved = conn.execute(
        update(fact_keys)
        .where(fact_keys.c.id == fact_row["id"], fact_keys.c.current_version == previous)
        .values(current_version=version, updated_at=now)
    ).rowcount
    if moved != 1:
        raise CompareAndSetFailed(memory_id)
    supersedes = None
    if previous:
        supersedes = previous
        conn.execute(
            update(memory_versions)
            .where(
                memory_versions.c.memory_id == memory_id,
                memory_versions.c.version == previous,
                memory_versions.c.status == MemoryStatus.COMMITTED,
            )
            .values(status=MemoryStatus.SUPERSEDED, valid_to=valid_from)
        )
        conn.execute(
            update(proposals)
            .where(
                proposals.c.memory_id == memory_id,
                proposals.c.memory_version == previous,
                proposals.c.state == ProposalState.COMMITTED,
            )
            .values(state=ProposalState.SUPERSEDED)
        )
    key = {name: fact_row[name] for name in FACT_KEY_COLUMNS}
    conn.execute(
        memory_versions.insert().values(
            memory_id=memory_id,
            version=version,
            **key,
            value_json=dumps(value),
            status=MemoryStatus.COMMITTED,
            proposal_id=formation_id,
            auto=False,
            supersedes=supersedes,
            derived_from=json.dumps(sorted(derived_from)),
            valid_from=valid_from,
            recorded_at=now,
            expires_at=expires_at,
        )
    )
    rows = [
        {
            "memory_id": memory_id,
            "version": version,
            "tenant_id": fact_row["tenant_id"],
            "message_id": message_id,
            "revision": revision,
        }
        for message_id, revision in sorted(set(evidence))
    ]
    if rows:
        insert_ignore(
            conn, memory_evidence, rows, ["memory_id", "version", "message_id", "revision"]
        )
    conn.execute(delete(current_memories).where(current_memories.c.memory_id == memory_id))
    conn.execute(
        current_memories.insert().values(
            memory_id=memory_id,
            version=version,
            **key,
            value_json=dumps(value),
            expires_at=expires_at,
            updated_at=now,
        )
    )
    emit(
        conn,
        Topic.MEMORY_COMMITTED,
        f"{memory_id}:{version}",
        fact_row["tenant_id"],
        {"memory_id": memory_id, "version": version, "subject_id": fact_row["subject_id"]},
    )
    return memory_id, version


def retire_version(
    conn: Connection, tenant_id: str, memory_id: str, version: int, now: datetime, *, reason: str
) -> bool:
    """Take a committed version out of recall as SUPERSEDED (history kept, projection row
    dropped, the vector sink told). False when it was no longer committed."""
    changed = conn.execute(
        update(memory_versions)
        .where(
            memory_versions.c.memory_id == memory_id,
            memory_versions.c.version == version,
            memory_versions.c.status == MemoryStatus.COMMITTED,
        )
        .values(status=MemoryStatus.SUPERSEDED, status_reason=reason, expired_at=now)
    ).rowcount
    if not changed:
        return False
    conn.execute(
        update(proposals)
        .where(
            proposals.c.memory_id == memory_id,
            proposals.c.memory_version == version,
            proposals.c.state == ProposalState.COMMITTED,
        )
        .values(state=ProposalState.SUPERSEDED)
    )
    conn.execute(
        delete(current_memories).where(
            current_memories.c.memory_id == memory_id, current_memories.c.version == version
        )
    )
    emit(
        conn,
        Topic.MEMORY_REVOKED,
        f"{memory_id}:{version}:{MemoryStatus.SUPERSEDED.value}",
        tenant_id,
        {"memory_id": memory_id, "version": version},
    )
    return True
