"""The one owner of a memory's state (SPEC §8.1): every change of a memory version goes
through here, under the fact-key lock, and each row shape is built once.

Transitions: commit (a first version, or a replacement that supersedes the current one),
add evidence, take out of recall (revoke, reject, forget, needs_revalidation), erase a
forgotten value, withdraw pending candidates. History is append-only; a status only ever
leaves COMMITTED, so no transition overwrites REVOKED, FORGOTTEN or SUPERSEDED.

The fact-key lock is written once, here (``queue_lock``; ``lock_memories`` and
``lock_fact_keys`` send it at once): every writer — gate, review, revalidation, forget,
curate — locks the fact-key rows in memory_id order, so writers may wait for each other but
never deadlock, and a fact that does not exist yet is locked by name (an advisory lock on
its memory_id), so its first writers serialise too; its row is inserted once, with its
first version. Retiring a committed version is written once too (``_retire``), for a
replacement (``commit_versions``) and for a version leaving with none (``retire_versions``).
The gate commits a whole wave with one statement per table (``commit_versions`` takes a
list).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, select, text, update

from memwarden_shared.contract.models import MemoryStatus, ProposalState, Topic
from memwarden_shared.delivery.outbox import emit_many, queue_events
from memwarden_shared.state.retraction import retracted
from memwarden_shared.store.db import Batch, Step, dumps
from memwarden_shared.store.dialect import (
    FACT_LOCK_CLASS,
    binds_arrays,
    in_param,
    insert_ignore_stmt,
    lock_rows,
    pairs_in,
    queue_lock_names,
    upsert,
)
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


class LockedRows:
    """What a queued fact-key lock (``queue_lock``) holds, once its batch is sent: ``rows``,
    the stored rows of the ids, locked, and a row for each key to create that is not stored
    yet (``id`` None, version 0), held by the advisory lock on its memory_id;
    ``queue_commit_versions`` inserts it with its first version."""

    __slots__ = ("_create", "_now", "_step")

    def __init__(
        self, step: Step, create: Mapping[str, Mapping[str, Any]], now: datetime | None
    ) -> None:
        self._step, self._create, self._now = step, create, now

    @property
    def rows(self) -> list[dict[str, Any]]:
        stored = {r["memory_id"] for r in self._step.rows}
        new = [
            {"claim_key": "", **key, "id": None, "memory_id": mid, "current_version": 0}
            | {"updated_at": self._now}
            for mid, key in sorted(self._create.items())
            if mid not in stored
        ]
        return [*self._step.rows, *new]


def queue_lock(
    batch: Batch,
    memory_ids: Iterable[str],
    *,
    create: Mapping[str, Mapping[str, Any]] | None = None,
    now: datetime | None = None,
) -> LockedRows:
    """The fact-key lock, queued on the caller's batch: lock the rows of ``memory_ids`` and
    ``create`` (memory_id -> fact key) in memory_id order, the keys of ``create`` that are
    not stored yet included. After ``send()`` the result's rows are the locked rows (a
    memory_id of ``memory_ids`` without a row is absent; one of ``create`` is there, new)."""
    create = create or {}
    if create and now is None:
        raise ValueError("creating fact-key rows needs now (their updated_at)")
    # A fact that does not exist yet has no row to lock: its first writers serialise on an
    # advisory lock on its memory_id (PostgreSQL; SQLite's write lock already does), taken
    # before the row locks, and the winner inserts the row with its first version at commit
    # (one write; before issue 23 a placeholder row was inserted here, then updated). The
    # row lock below runs once the advisory locks are held, so a second writer sees the
    # winner's row and locks it. Every insert of a fact-key row holds this lock: it comes
    # from ``create`` here, through ``queue_commit_versions``.
    queue_lock_names(batch, "memory_state.new_fact_locks", create, FACT_LOCK_CLASS)
    step = batch.add("memory_state.lock", _lock_statement, {"ids": sorted({*memory_ids, *create})})
    return LockedRows(step, create, now)


def _lock_statement(conn: Connection) -> Any:
    # In memory_id order (on PostgreSQL LockRows sits above the sort), the order every writer
    # uses: two writers can wait for each other but never deadlock.
    return lock_rows(
        conn,
        select(fact_keys)
        .where(in_param(conn, fact_keys.c.memory_id, "ids"))
        .order_by(fact_keys.c.memory_id),
    )


def _lock_now(
    conn: Connection,
    memory_ids: Iterable[str],
    create: Mapping[str, Mapping[str, Any]] | None = None,
    now: datetime | None = None,
) -> dict[str, dict[str, Any]]:
    batch = Batch(conn)
    step = queue_lock(batch, memory_ids, create=create, now=now)
    batch.send()
    return {r["memory_id"]: r for r in step.rows}


def lock_memories(conn: Connection, memory_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Lock the fact-key rows of existing memories, in memory_id order; returns them."""
    ids = set(memory_ids)
    return _lock_now(conn, ids) if ids else {}


def lock_fact_keys(
    conn: Connection, keys: Mapping[str, Mapping[str, Any]], now: datetime
) -> dict[str, dict[str, Any]]:
    """Create the fact-key rows of ``keys`` (memory_id -> fact key) that do not exist yet,
    then lock them all in memory_id order; returns the locked rows by memory_id."""
    return _lock_now(conn, (), keys, now) if keys else {}


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


def _project_statement(conn: Connection) -> Any:
    return upsert(
        conn,
        current_memories,
        ["memory_id"],
        lambda new: {c.name: new[c.name] for c in current_memories.c if c.name != "memory_id"},
    )


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
    # overwritten. The rowcount is the rows matched.
    stored = [i for i in items if i.fact_row["id"] is not None]
    moved = _queue_cas(batch, stored, now)
    # a fact's first version: its row, inserted once with that version under the advisory
    # lock of ``queue_lock``; a row there already (a writer without the lock) is a conflict
    # the guard below reports, not an overwrite
    created = batch.add(
        "memory_state.new_fact_keys",
        lambda conn: insert_ignore_stmt(conn, fact_keys),
        [
            {
                **{k: i.fact_row[k] for k in FACT_KEY_COLUMNS},
                "memory_id": i.memory_id,
                "current_version": i.version,
                "updated_at": now,
            }
            for i in items
            if i.fact_row["id"] is None
        ],
    )
    # bi-temporal: the old fact stopped holding (valid_to); the system did not stop knowing
    # it held before, so expired_at stays empty
    _retire(
        batch,
        [
            _Retiring(i.fact_row["tenant_id"], i.memory_id, i.supersedes, valid_to=i.valid_from)
            for i in items
            if i.supersedes is not None
        ],
        now,
        # a replaced version no longer backs actions that read it (seed 002: corrections are
        # traced to the drafts made from the old record)
        actions_reason="memory_superseded",
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
    # the projection moves in place: one write per memory (before issue 23 a replacement
    # deleted the old projection row and inserted the new one)
    batch.add("memory_state.project", _project_statement, [_projection_row(i, now) for i in items])
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
        done = moved.rowcount + created.rowcount
        if done != len(items):
            raise CompareAndSetFailed(f"{len(items) - done} fact keys moved under lock")

    return check


def add_evidence(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Provenance is counted, not guessed: one row per message revision supporting a
    version (``evidence_row``). ON CONFLICT DO NOTHING: the same support twice is once."""
    batch = Batch(conn)
    queue_evidence(batch, rows)
    batch.send()


def queue_evidence(batch: Batch, rows: list[dict[str, Any]]) -> None:
    """``add_evidence`` queued on the caller's batch: on PostgreSQL one set-based statement
    whatever the number of rows (issue 23), elsewhere an executemany."""
    if rows and binds_arrays(batch.conn):
        arrays = {param: [r[c] for r in rows] for param, c in _EVIDENCE_ARRAYS.items()}
        batch.add("memory_state.evidence_set", lambda _conn: text(_EVIDENCE_SQL), arrays)
        return
    batch.add(
        "memory_state.evidence",
        lambda conn: insert_ignore_stmt(
            conn, memory_evidence, ["memory_id", "version", "message_id", "revision"]
        ),
        rows,
    )


# Statements of fixed text over array parameters: one execution for a whole wave, compiled
# and prepared once, where an executemany runs once per row.
_EVIDENCE_SQL = """
INSERT INTO memory_evidence (memory_id, version, tenant_id, message_id, revision)
SELECT * FROM unnest(CAST(:mids AS text[]), CAST(:versions AS integer[]),
    CAST(:tenants AS text[]), CAST(:messages AS text[]), CAST(:revisions AS integer[]))
ON CONFLICT (memory_id, version, message_id, revision) DO NOTHING
"""
_EVIDENCE_ARRAYS = {
    "mids": "memory_id",
    "versions": "version",
    "tenants": "tenant_id",
    "messages": "message_id",
    "revisions": "revision",
}
_CAS_SQL = """
UPDATE fact_keys AS f SET current_version = u.new, updated_at = :now
FROM unnest(CAST(:ids AS bigint[]), CAST(:olds AS integer[]), CAST(:news AS integer[]))
    AS u(id, old, new)
WHERE f.id = u.id AND f.current_version = u.old
"""


def _queue_cas(batch: Batch, items: list[NewVersion], now: datetime) -> Step:
    """Move each stored key from its locked version to the item's; the step's rowcount is
    how many matched."""
    if items and binds_arrays(batch.conn):
        params = {
            "now": now,
            "ids": [i.fact_row["id"] for i in items],
            "olds": [i.fact_row["current_version"] for i in items],
            "news": [i.version for i in items],
        }
        return batch.add("memory_state.cas_set", lambda _conn: text(_CAS_SQL), params)
    return batch.add(
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


@dataclass(frozen=True)
class _Retiring:
    """A committed version to retire as SUPERSEDED. Replaced by a newer version: ``valid_to``
    is when the old fact stopped holding. Leaving with no replacement: ``reason`` and
    ``expired_at`` (when the system stopped holding it true)."""

    tenant_id: str
    memory_id: str
    version: int
    valid_to: datetime | None = None
    reason: str | None = None
    expired_at: datetime | None = None


def _retire(batch: Batch, retiring: list[_Retiring], now: datetime, *, actions_reason: str) -> None:
    """The one retirement of committed versions, on the caller's batch (sent here): the
    version becomes SUPERSEDED only if still COMMITTED (a REVOKED or FORGOTTEN one keeps its
    status), the proposals that formed it are superseded too, and the actions that read it
    are cancelled or marked for repair. Callers hold the fact-key locks."""
    if not retiring:
        return
    batch.add(
        "memory_state.retire_version",
        lambda _conn: (
            update(memory_versions)
            .where(
                memory_versions.c.memory_id == bindparam("b_mid"),
                memory_versions.c.version == bindparam("b_ver"),
                memory_versions.c.status == LIVE,
            )
            .values(
                status=MemoryStatus.SUPERSEDED,
                valid_to=bindparam("b_to"),
                status_reason=bindparam("b_reason"),
                expired_at=bindparam("b_expired"),
            )
        ),
        [
            {
                "b_mid": r.memory_id,
                "b_ver": r.version,
                "b_to": r.valid_to,
                "b_reason": r.reason,
                "b_expired": r.expired_at,
            }
            for r in retiring
        ],
    )
    by_tenant: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for r in retiring:
        by_tenant[r.tenant_id].append((r.memory_id, r.version))
    for tenant_id, refs in sorted(by_tenant.items()):
        # One statement per tenant on the (tenant, state) index (proposals has no memory_id
        # index). The two lists match a superset of the pairs, but a COMMITTED proposal only
        # ever belongs to its memory's current version, which is the one retired here.
        batch.add(
            "memory_state.retire_proposals",
            lambda conn: (
                update(proposals)
                .where(
                    proposals.c.tenant_id == bindparam("b_tenant"),
                    proposals.c.state == ProposalState.COMMITTED,
                    in_param(conn, proposals.c.memory_id, "b_mids"),
                    in_param(conn, proposals.c.memory_version, "b_vers"),
                )
                .values(state=ProposalState.SUPERSEDED)
            ),
            {
                "b_tenant": tenant_id,
                "b_mids": sorted({m for m, _ in refs}),
                "b_vers": sorted({v for _, v in refs}),
            },
        )
    batch.send()  # the cancellations below read and write through the connection
    for tenant_id, refs in sorted(by_tenant.items()):
        retracted(batch.conn, tenant_id, refs, now, actions_reason)


def retire_versions(
    conn: Connection,
    tenant_id: str,
    refs: list[tuple[str, int]],
    now: datetime,
    *,
    reason: str,
    actions_reason: str,
) -> list[tuple[str, int]]:
    """Take committed versions out of recall with no replacement, as SUPERSEDED with
    ``reason`` (history kept, projection rows dropped, the vector sink told; the actions
    that read them repaired with ``actions_reason``). Set-based, one statement per table.
    Returns the ones that were still committed; the others are left as they are. Callers
    hold the fact-key locks."""
    wanted = set(refs)
    if not wanted:
        return []
    live = sorted(
        (r.memory_id, r.version)
        for r in conn.execute(
            select(memory_versions.c.memory_id, memory_versions.c.version).where(
                pairs_in(conn, memory_versions.c.memory_id, memory_versions.c.version, wanted),
                memory_versions.c.status == LIVE,
            )
        )
        if (r.memory_id, r.version) in wanted
    )
    _retire(
        Batch(conn),
        [_Retiring(tenant_id, m, v, reason=reason, expired_at=now) for m, v in live],
        now,
        actions_reason=actions_reason,
    )
    _leave_recall(conn, tenant_id, live, MemoryStatus.SUPERSEDED)
    return live


def _leave_recall(
    conn: Connection, tenant_id: str, refs: list[tuple[str, int]], status: MemoryStatus
) -> None:
    """Drop the projection rows of versions that left recall and tell the vector sink."""
    if not refs:
        return
    conn.execute(
        delete(current_memories).where(
            current_memories.c.memory_id == bindparam("b_mid"),
            current_memories.c.version == bindparam("b_ver"),
        ),
        [{"b_mid": m, "b_ver": v} for m, v in refs],
    )
    emit_many(
        conn,
        [
            (
                Topic.MEMORY_REVOKED,
                f"{m}:{v}:{status.value}",
                tenant_id,
                {"memory_id": m, "version": v},
            )
            for m, v in refs
        ],
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
    _leave_recall(conn, tenant_id, [(memory_id, version)], status)
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
