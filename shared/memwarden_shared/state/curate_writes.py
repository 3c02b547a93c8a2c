"""Curate's new versions, committed through the one owner of memory state
(``state.memory_state``, SPEC §8.1) as the gate's, review's and revalidation's are. The
fact-key lock (``memory_state.lock_fact_keys``) and the retirement of versions that leave
with no replacement (``memory_state.retire_versions``) are the owner's too. Callers own the
transaction and lock first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from memwarden_shared.state import memory_state


@dataclass(frozen=True)
class CuratedVersion:
    """One version to commit on a locked fact key (``fact_row`` from
    ``memory_state.lock_fact_keys``)."""

    fact_row: dict[str, Any]
    value: Any
    evidence: list[tuple[str, int]]  # (message_id, revision): every message that says it
    formation_id: str  # stands in the proposal_id column: a reviewed plan, not a proposal
    valid_from: datetime
    expires_at: datetime | None
    derived_from: list[str]  # the source versions it was formed from

    @property
    def memory_id(self) -> str:
        return str(self.fact_row["memory_id"])

    @property
    def version(self) -> int:
        return int(self.fact_row["current_version"]) + 1


def commit_new_versions(
    conn: Connection, items: list[CuratedVersion], now: datetime
) -> list[tuple[str, int]]:
    """Commit curated versions through the one owner of memory state (compare-and-set,
    retire the replaced version only if still COMMITTED, projection, ``memory.committed``,
    actions that read a replaced version cancelled), then link every further evidence
    message. Returns ``(memory_id, version)`` of each."""
    if not items:
        return []
    commits = []
    for i in items:
        first_message, first_revision = sorted(set(i.evidence))[0]
        commits.append(
            memory_state.NewVersion(
                fact_row=i.fact_row,
                value=i.value,
                proposal_id=i.formation_id,  # a reviewed plan stands in for a proposal
                message_id=first_message,
                message_revision=first_revision,
                auto=False,
                valid_from=i.valid_from,
                expires_at=i.expires_at,
                supersedes=i.version - 1 if i.version > 1 else None,
                derived_from=tuple(sorted(i.derived_from)),
            )
        )
    memory_state.commit_versions(conn, commits, now)
    memory_state.add_evidence(
        conn,
        [
            memory_state.evidence_row(
                i.memory_id, i.version, i.fact_row["tenant_id"], message_id, revision
            )
            for i in items
            for message_id, revision in sorted(set(i.evidence))[1:]
        ],
    )
    return [(i.memory_id, i.version) for i in items]
