"""The writes of the commit transaction (SPEC §7). Each function takes the caller's connection;
the caller owns the transaction, so proposal, receipt, version, projection and outbox rows
commit together or not at all."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, update

from shared.action_repair import cancel_actions_using
from shared.canonical import jcs
from shared.db import dumps, insert_ignore
from shared.models import MemoryStatus, ProposalState, Receipt, Topic
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


def receipt_body(receipt: Receipt) -> str:
    return jcs(receipt.model_dump(mode="json")).decode("utf-8")


def commit_version(
    conn: Connection,
    *,
    fact_row: dict[str, Any],
    previous_version: int | None,
    value: Any,
    proposal_id: str,
    message_id: str,
    message_revision: int,
    auto: bool,
    valid_from: datetime,
    expires_at: datetime | None,
    now: datetime,
    derived_from: list[str] | None = None,
) -> tuple[str, int]:
    """Append a committed version, move the projection to it, emit ``memory.committed``."""
    memory_id = fact_row["memory_id"]
    new_version = int(fact_row["current_version"]) + 1
    # Compare-and-set even under the lock: a second guard that history is never overwritten.
    moved = conn.execute(
        update(fact_keys)
        .where(
            fact_keys.c.id == fact_row["id"],
            fact_keys.c.current_version == fact_row["current_version"],
        )
        .values(current_version=new_version, updated_at=now)
    ).rowcount
    if moved != 1:
        raise CompareAndSetFailed(memory_id)
    if previous_version is not None:
        conn.execute(
            update(memory_versions)
            .where(
                memory_versions.c.memory_id == memory_id,
                memory_versions.c.version == previous_version,
            )
            # bi-temporal: the old fact stopped holding (valid_to); the system did not stop
            # knowing it held before, so expired_at stays empty
            .values(status=MemoryStatus.SUPERSEDED, valid_to=valid_from)
        )
        conn.execute(
            update(proposals)
            .where(
                proposals.c.memory_id == memory_id,
                proposals.c.memory_version == previous_version,
                proposals.c.state == ProposalState.COMMITTED,
            )
            .values(state=ProposalState.SUPERSEDED)
        )
        # a replaced version no longer backs actions that read it (seed 002: corrections
        # are traced to the drafts made from the old record)
        cancel_actions_using(
            conn, fact_row["tenant_id"], [(memory_id, previous_version)], now, "memory_superseded"
        )
    key_columns = {name: fact_row[name] for name in FACT_KEY_COLUMNS}
    conn.execute(
        memory_versions.insert().values(
            memory_id=memory_id,
            version=new_version,
            **key_columns,
            value_json=dumps(value),
            status=MemoryStatus.COMMITTED,
            proposal_id=proposal_id,
            auto=auto,
            supersedes=previous_version,
            derived_from=dumps(derived_from or []),
            valid_from=valid_from,
            recorded_at=now,
            expires_at=expires_at,
        )
    )
    add_evidence(conn, memory_id, new_version, fact_row["tenant_id"], message_id, message_revision)
    conn.execute(delete(current_memories).where(current_memories.c.memory_id == memory_id))
    conn.execute(
        current_memories.insert().values(
            memory_id=memory_id,
            version=new_version,
            **key_columns,
            value_json=dumps(value),
            expires_at=expires_at,
            updated_at=now,
        )
    )
    emit(
        conn,
        Topic.MEMORY_COMMITTED,
        f"{memory_id}:{new_version}",
        fact_row["tenant_id"],
        {"memory_id": memory_id, "version": new_version, "subject_id": fact_row["subject_id"]},
    )
    return memory_id, new_version


def add_evidence(
    conn: Connection, memory_id: str, version: int, tenant_id: str, message_id: str, revision: int
) -> None:
    """Provenance is counted, not guessed: one row per message revision supporting a version."""
    insert_ignore(
        conn,
        memory_evidence,
        {
            "memory_id": memory_id,
            "version": version,
            "tenant_id": tenant_id,
            "message_id": message_id,
            "revision": revision,
        },
        ["memory_id", "version", "message_id", "revision"],
    )
