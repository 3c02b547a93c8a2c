"""The differential oracle: a store's final state, reduced to what must not depend on
scheduling, and the comparison of a distributed run with the embedded run of the same input.

The outbox lifecycle and the dead-letter table are read by introspection, so the same
checks run on the schema before and after the outbox became the source of truth (§8.1):
``consumed_at`` when the outbox has it, otherwise ``sent_at`` (all an old schema records).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, func, inspect, select

from memwarden_shared.contract.models import MemoryStatus, Topic
from memwarden_shared.store.schema import (
    current_memories,
    memory_versions,
    outbox,
    proposals,
    vector_index,
)

# (subject, normalized_key, value_json, status of the latest version, number of versions)
Fact = tuple[str, str, str, str, int]


@dataclass
class Snapshot:
    facts: dict[str, Fact]  # by memory_id (a hash of the fact key: equal across stores)
    current: set[tuple[str, int]]  # (memory_id, version) in the projection
    indexed: list[tuple[str, int]]  # (memory_id, version) in the vector index
    twice_current: list[str]  # memory ids with two or more committed versions
    undecided: list[str]  # proposal ids submitted to the gate without a stored decision
    pending: set[tuple[str, str, str]]  # (subject, key, value) awaiting an owner
    unconsumed: int  # outbox rows not (yet) consumed
    dead_letters: int
    proposals: int
    # (message_id, normalized_key, value_json, decision) of every stored proposal
    decisions: set[tuple[str, str, str, str]] = field(default_factory=set)

    def comparable(self) -> dict[str, Any]:
        """Everything but the tenant-specific ids: two tenants fed the same turns compare."""
        return {
            "facts": sorted(self.facts.values()),
            "pending": sorted(self.pending),
            "decisions": sorted(self.decisions),
            "index_mirrors_projection": sorted(self.indexed) == sorted(self.current),
            "twice_current": len(self.twice_current),
            "undecided": len(self.undecided),
        }

    def progress(self) -> tuple[int, ...]:
        """Counts that move only as work gets done (a redelivery loop moves none of them)."""
        return (
            self.unconsumed,
            len(self.undecided),
            self.proposals,
            len(self.indexed),
            len(self.current),
            sum(f[4] for f in self.facts.values()),
        )

    def settled(self) -> bool:
        return (
            self.unconsumed == 0
            and not self.undecided
            and sorted(self.indexed) == sorted(self.current)
        )


def snapshot(engine: Engine, tenant: str) -> Snapshot:
    with engine.connect() as conn:
        versions = conn.execute(
            select(
                memory_versions.c.memory_id,
                memory_versions.c.version,
                memory_versions.c.subject_id,
                memory_versions.c.normalized_key,
                memory_versions.c.value_json,
                memory_versions.c.status,
            )
            .where(memory_versions.c.tenant_id == tenant)
            .order_by(memory_versions.c.memory_id, memory_versions.c.version)
        ).all()
        facts: dict[str, Fact] = {}
        counts: Counter[str] = Counter()
        committed: Counter[str] = Counter()
        for v in versions:
            counts[v.memory_id] += 1
            if v.status == MemoryStatus.COMMITTED:
                committed[v.memory_id] += 1
            facts[v.memory_id] = (v.subject_id, v.normalized_key, v.value_json, v.status, 0)
        facts = {m: (*f[:4], counts[m]) for m, f in facts.items()}
        current = {
            (r.memory_id, r.version)
            for r in conn.execute(
                select(current_memories.c.memory_id, current_memories.c.version).where(
                    current_memories.c.tenant_id == tenant
                )
            )
        }
        indexed = [
            (r.memory_id, r.version)
            for r in conn.execute(
                select(vector_index.c.memory_id, vector_index.c.version).where(
                    vector_index.c.tenant_id == tenant
                )
            )
        ]
        decided = set(
            conn.execute(
                select(proposals.c.proposal_id).where(proposals.c.tenant_id == tenant)
            ).scalars()
        )
        submitted = {
            json.loads(p)["proposal_id"]
            for p in conn.execute(
                select(outbox.c.payload).where(
                    outbox.c.tenant_id == tenant, outbox.c.topic == str(Topic.PROPOSAL_SUBMITTED)
                )
            ).scalars()
        }
        decisions = {
            (r.message_id, r.normalized_key, r.value_json or "", r.decision)
            for r in conn.execute(
                select(
                    proposals.c.message_id,
                    proposals.c.normalized_key,
                    proposals.c.value_json,
                    proposals.c.decision,
                ).where(proposals.c.tenant_id == tenant)
            )
        }
        pending = {
            (r.subject_id, r.normalized_key, r.value_json or "")
            for r in conn.execute(
                select(
                    proposals.c.subject_id, proposals.c.normalized_key, proposals.c.value_json
                ).where(proposals.c.tenant_id == tenant, proposals.c.state == "pending")
            )
        }
        return Snapshot(
            facts=facts,
            current=current,
            indexed=indexed,
            twice_current=sorted(m for m, n in committed.items() if n > 1),
            undecided=sorted(submitted - decided),
            pending=pending,
            unconsumed=unconsumed_outbox_rows(conn, tenant),
            dead_letters=dead_letter_count(conn),
            proposals=len(decided),
            decisions=decisions,
        )


def unconsumed_outbox_rows(conn: Connection, tenant: str | None = None) -> int:
    columns = {c["name"] for c in inspect(conn).get_columns("outbox")}
    done: ColumnElement[Any] = outbox.c.sent_at
    if "consumed_at" in columns:
        from sqlalchemy import column

        done = column("consumed_at")
    stmt = select(func.count()).select_from(outbox).where(done.is_(None))
    if tenant is not None:
        stmt = stmt.where(outbox.c.tenant_id == tenant)
    return int(conn.execute(stmt).scalar_one())


def dead_letter_count(conn: Connection) -> int:
    """Rows in ``dead_letters`` (issue 9 item 4); 0 where the table does not exist yet."""
    if not inspect(conn).has_table("dead_letters"):
        return 0
    from sqlalchemy import table

    return int(conn.execute(select(func.count()).select_from(table("dead_letters"))).scalar_one())


@dataclass(frozen=True)
class Difference:
    lost: list[str]  # facts the oracle has and the run does not
    duplicated: list[str]  # memory ids with two current versions, or indexed twice
    mismatched: list[str]  # facts present in both with another value, status or history

    def summary(self) -> dict[str, int]:
        return {
            "lost": len(self.lost),
            "duplicated": len(self.duplicated),
            "mismatched": len(self.mismatched),
        }


def compare(run: Snapshot, oracle: Snapshot) -> Difference:
    lost = sorted(set(oracle.facts) - set(run.facts))
    extra = sorted(set(run.facts) - set(oracle.facts))
    differ = sorted(
        m for m in set(run.facts) & set(oracle.facts) if run.facts[m] != oracle.facts[m]
    )
    index_twice = [m for m, n in Counter(m for m, _ in run.indexed).items() if n > 1]
    pending_diff = sorted(
        [f"pending candidate {p} only in the run" for p in run.pending - oracle.pending]
        + [f"pending candidate {p} only in the oracle" for p in oracle.pending - run.pending]
    )
    return Difference(
        lost=lost,
        duplicated=sorted(set(run.twice_current) | set(index_twice)),
        mismatched=differ + extra + pending_diff,
    )


def explain(run: Snapshot, oracle: Snapshot, diff: Difference, limit: int = 8) -> str:
    """The first few differences, readable in a failure message."""
    lines = []
    for m in diff.lost[:limit]:
        lines.append(f"lost {m}: oracle {oracle.facts[m]}")
    for m in diff.mismatched[:limit]:
        if m in run.facts or m in oracle.facts:
            lines.append(f"mismatch {m}: run {run.facts.get(m)} oracle {oracle.facts.get(m)}")
        else:
            lines.append(m)
    for m in diff.duplicated[:limit]:
        lines.append(f"duplicated {m}: run {run.facts.get(m)}")
    return "\n".join(lines)
