"""The one owner of a memory's state (SPEC §8.1): every change of a memory version goes
through here, under the fact-key lock, and each row shape is built once.

Transitions: commit (a first version, or a replacement that supersedes the current one),
add evidence, take out of recall (revoke, reject, forget, needs_revalidation), erase a
forgotten value, withdraw pending candidates. History is append-only; a status only ever
leaves COMMITTED, so no transition overwrites REVOKED, FORGOTTEN or SUPERSEDED.

The gate commits a whole wave with one statement per table (``commit_versions`` takes a
list); callers lock first (``lock_memories`` or ``shared.db.lock_fact_key``), in memory_id
order, the order every writer uses, so writers may wait for each other but never deadlock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, select, update

from memwarden_shared.contract.models import MemoryStatus, ProposalState, Topic
from memwarden_shared.delivery.outbox import emit, queue_events
from memwarden_shared.state.retraction import retracted
from memwarden_shared.store.db import Batch, dumps, in_list, in_param, insert_ignore_stmt
from memwarden_shared.store.schema import (
    FACT_KEY_COLUMNS,
    current_memories,
    fact_keys,
    memory_evidence,
    memory_versions,
    proposals,
)

# the one status a version may leave; anything else is final. A plain equality, not IN:
# an IN list is an expanding parameter, which executemany (a batch of retirements) refuses.
LIVE = MemoryStatus.COMMITTED


class CompareAndSetFailed(RuntimeError):
    """The fact key moved although we held its lock: a bug, never a user error."""


@dataclass(frozen=True)
class NewVersion:
    """One version to commit on a locked fact-key row."""

    fact_row: dict[str, Any]  # the locked ``fact_keys`` row
    value: Any
    proposal_id: str
    message_id: str
    message_revision: int
    auto: bool
    valid_from: datetime
    expires_at: datetime | None
    supersedes: int | None = None  # the current version it replaces, if any
    # exact ``memory_id:version``s this one was derived from (SPEC §14); revoking one of
    # them takes this version out of recall too
    derived_from: tuple[str, ...] = ()

    @property
    def memory_id(self) -> str:
        return str(self.fact_row["memory_id"])

    @property
    def version(self) -> int:
        return int(self.fact_row["current_version"]) + 1


def lock_memories(conn: Connection, memory_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Lock the fact-key rows of existing memories, in memory_id order; returns them."""
    ids = sorted(set(memory_ids))
    if not ids:
        return {}
    stmt = (
        select(fact_keys)
        .where(in_list(conn, fact_keys.c.memory_id, ids))
        .order_by(fact_keys.c.memory_id)
    )
    if conn.dialect.name == "postgresql":
        stmt = stmt.with_for_update()
    return {r.memory_id: dict(r._mapping) for r in conn.execute(stmt)}


def evidence_row(
    memory_id: str, version: int, tenant_id: str, message_id: str, revision: int
) -> dict[str, Any]:
    return {
        "memory_id": memory_id,
        "version": version,
        "tenant_id": tenant_id,
        "message_id": message_id,
        "revision": revision,
    }


def _version_row(item: NewVersion, now: datetime) -> dict[str, Any]:
    key = {k: item.fact_row[k] for k in FACT_KEY_COLUMNS}
    return {
        "memory_id": item.memory_id,
        "version": item.version,
        **key,
        "value_json": dumps(item.value),
        "status": MemoryStatus.COMMITTED,
        "status_reason": None,
        "proposal_id": item.proposal_id,
        "auto": item.auto,
        "supersedes": item.supersedes,
        "derived_from": dumps(list(item.derived_from)),
        "valid_from": item.valid_from,
        "valid_to": None,
        "recorded_at": now,
        "expired_at": None,
        "expires_at": item.expires_at,
    }


def _projection_row(item: NewVersion, now: datetime) -> dict[str, Any]:
    key = {k: item.fact_row[k] for k in FACT_KEY_COLUMNS}
    return {
        "memory_id": item.memory_id,
        "version": item.version,
        **key,
        "value_json": dumps(item.value),
        "expires_at": item.expires_at,
        "updated_at": now,
    }


def commit_versions(conn: Connection, items: list[NewVersion], now: datetime) -> None:
    """Commit new versions on locked fact keys (see ``queue_commit_versions``), now."""
    batch = Batch(conn)
    check = queue_commit_versions(batch, items, now)
    batch.send()
    check()


def queue_commit_versions(
    batch: Batch, items: list[NewVersion], now: datetime
) -> Callable[[], None]:
    """Queue the commit of new versions on locked fact keys, one statement per table:
    compare-and-set the key's version, retire the superseded version (only if still
    COMMITTED), append the version and its evidence, move the projection, emit
    ``memory.committed``. The caller sends the batch (with its own rows, one round trip on
    PostgreSQL), then calls the returned check, which raises ``CompareAndSetFailed`` (the
    transaction must then roll back) unless every key moved."""
    if not items:
        return lambda: None
    # Compare-and-set even under the lock: a second guard that history is never
    # overwritten. executemany reports the total rows matched.
    moved = batch.add(
        "memory_state.cas",
        lambda _conn: (
            update(fact_keys)
            .where(
                fact_keys.c.id == bindparam("b_id"),
                fact_keys.c.current_version == bindparam("b_old"),
            )
            .values(current_version=bindparam("b_new"), updated_at=bindparam("b_now"))
        ),
        [
            {
                "b_id": i.fact_row["id"],
                "b_old": i.fact_row["current_version"],
                "b_new": i.version,
                "b_now": now,
            }
            for i in items
        ],
    )
    replaced = [i for i in items if i.supersedes is not None]
    if replaced:
        # bi-temporal: the old fact stopped holding (valid_to); the system did not stop
        # knowing it held before, so expired_at stays empty. Only a live version is retired:
        # a REVOKED or FORGOTTEN one keeps its status.
        batch.add(
            "memory_state.retire_version",
            lambda _conn: (
                update(memory_versions)
                .where(
                    memory_versions.c.memory_id == bindparam("b_mid"),
                    memory_versions.c.version == bindparam("b_ver"),
                    memory_versions.c.status == LIVE,
                )
                .values(status=MemoryStatus.SUPERSEDED, valid_to=bindparam("b_to"))
            ),
            [{"b_mid": i.memory_id, "b_ver": i.supersedes, "b_to": i.valid_from} for i in replaced],
        )
        batch.add(
            "memory_state.retire_proposal",
            lambda _conn: (
                update(proposals)
                .where(
                    proposals.c.memory_id == bindparam("b_mid"),
                    proposals.c.memory_version == bindparam("b_ver"),
                    proposals.c.state == ProposalState.COMMITTED,
                )
                .values(state=ProposalState.SUPERSEDED)
            ),
            [{"b_mid": i.memory_id, "b_ver": i.supersedes} for i in replaced],
        )
        batch.send()  # the retraction hooks below read and write through the connection
        for i in replaced:
            # a replaced version no longer backs actions that read it (seed 002: corrections
            # are traced to the drafts made from the old record)
            retracted(
                batch.conn,
                i.fact_row["tenant_id"],
                [(i.memory_id, int(i.supersedes or 0))],
                now,
                "memory_superseded",
            )
    batch.add(
        "memory_state.version",
        lambda _conn: memory_versions.insert(),
        [_version_row(i, now) for i in items],
    )
    queue_evidence(
        batch,
        [
            evidence_row(
                i.memory_id, i.version, i.fact_row["tenant_id"], i.message_id, i.message_revision
            )
            for i in items
        ],
    )
    batch.add(
        "memory_state.unproject",
        lambda conn: delete(current_memories).where(
            in_param(conn, current_memories.c.memory_id, "ids")
        ),
        {"ids": [i.memory_id for i in items]},
    )
    batch.add(
        "memory_state.project",
        lambda _conn: current_memories.insert(),
        [_projection_row(i, now) for i in items],
    )
    queue_events(
        batch,
        [
            (
                Topic.MEMORY_COMMITTED,
                f"{i.memory_id}:{i.version}",
                i.fact_row["tenant_id"],
                {
                    "memory_id": i.memory_id,
                    "version": i.version,
                    "subject_id": i.fact_row["subject_id"],
                },
            )
            for i in items
        ],
    )

    def check() -> None:
        if moved.rowcount != len(items):
            raise CompareAndSetFailed(f"{len(items) - moved.rowcount} fact keys moved under lock")

    return check


def add_evidence(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Provenance is counted, not guessed: one row per message revision supporting a
    version (``evidence_row``). ON CONFLICT DO NOTHING: the same support twice is once."""
    batch = Batch(conn)
    queue_evidence(batch, rows)
    batch.send()


def queue_evidence(batch: Batch, rows: list[dict[str, Any]]) -> None:
    """``add_evidence`` queued on the caller's batch."""
    batch.add(
        "memory_state.evidence",
        lambda conn: insert_ignore_stmt(
            conn, memory_evidence, ["memory_id", "version", "message_id", "revision"]
        ),
        rows,
    )


def take_out_of_recall(
    conn: Connection,
    tenant_id: str,
    memory_id: str,
    version: int,
    now: datetime,
    *,
    status: MemoryStatus,
    reason: str,
) -> bool:
    """Revoke, reject, forget or mark for revalidation one version: append the status
    change (only from COMMITTED), drop the projection row, tell the vector sink, and do the
    same to versions derived from it (NEEDS_REVALIDATION). Takes the fact-key lock; returns
    False when the version was already out (the cascade is idempotent)."""
    lock_memories(conn, [memory_id])
    changed = conn.execute(
        update(memory_versions)
        .where(
            memory_versions.c.memory_id == memory_id,
            memory_versions.c.version == version,
            memory_versions.c.status == LIVE,
        )
        .values(status=status, status_reason=reason, expired_at=now)
    ).rowcount
    if not changed:
        return False
    # retraction is repair: actions that read this version are cancelled or need repair
    retracted(conn, tenant_id, [(memory_id, version)], now, reason)
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
            memory_versions.c.status == LIVE,
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
    return True


def erase_value(conn: Connection, memory_id: str, version: int) -> None:
    """Forget: the version keeps its place in history, not its value."""
    conn.execute(
        update(memory_versions)
        .where(
            memory_versions.c.memory_id == memory_id,
            memory_versions.c.version == version,
            memory_versions.c.status == MemoryStatus.FORGOTTEN,
        )
        .values(value_json="null")
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


def settle_proposal(
    conn: Connection,
    proposal_row_id: int,
    state: ProposalState,
    memory: tuple[str, int] | None = None,
) -> None:
    """An owner's verdict on a pending candidate: COMMITTED (with the version it became),
    CONFLICTED (the fact moved since the gate decided) or REJECTED. Only a PENDING proposal
    changes: a withdrawn (REVOKED) one stays withdrawn."""
    values: dict[str, Any] = {"state": state}
    if memory is not None:
        values.update(memory_id=memory[0], memory_version=memory[1])
    conn.execute(
        update(proposals)
        .where(proposals.c.id == proposal_row_id, proposals.c.state == ProposalState.PENDING)
        .values(**values)
    )


def erase_proposal_values(conn: Connection, tenant_id: str, message_id: str) -> None:
    """Forget: proposals citing the message keep their audit fields, not their values."""
    conn.execute(
        update(proposals)
        .where(proposals.c.tenant_id == tenant_id, proposals.c.message_id == message_id)
        .values(value_json=None)
    )
