"""Residue audit (SPEC §9): nothing revoked, forgotten or superseded may remain where recall
or the index could find it, and suppression rows may hold no text.

Forgotten content is searched for by its suppression hash (the only trace forget keeps):
every string in outbox payloads, dead letters and shadow tables, and each sentence of it,
is hashed the same way and compared with the tenant's suppression rows. Forgotten messages
must have had their text erased.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    MetaData,
    String,
    Table,
    Text,
    and_,
    cast,
    func,
    inspect,
    or_,
    select,
)

from memwarden_shared.config import get_settings
from memwarden_shared.contract.models import MemoryStatus
from memwarden_shared.delivery.dead_letters import count_dead_letters
from memwarden_shared.delivery.outbox import delivery_health
from memwarden_shared.observe.health import unindexed_versions
from memwarden_shared.state import provenance
from memwarden_shared.state.candidates import undecided_count
from memwarden_shared.state.erasure import holds_forgotten
from memwarden_shared.store.db import get_engine, unit_of_work
from memwarden_shared.store.schema import (
    curate_ledger,
    curate_runs,
    current_memories,
    memory_versions,
    messages,
    metadata,
    outbox,
    processed_events,
    proposals,
    suppressions,
    vector_index,
)
from memwarden_shared.store.tenant_scope import all_tenants

HASH = re.compile(r"^[0-9a-f]{64}$")


@dataclass
class AuditReport:
    findings: list[dict[str, Any]] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not self.findings

    def as_json(self) -> dict[str, Any]:
        return {
            "clean": self.clean,
            "findings": self.findings,
            "checked": self.checked,
            "caches": "none: recall reads the projection and the vector table directly",
        }


# An operator's residue check across the store (also of shared tables: outbox, dead letters);
# ``tenant_id`` narrows it with the application's own filters.
@all_tenants("the residue audit reads every tenant's rows")
def audit(tenant_id: str | None = None, *, engine: Engine | None = None) -> AuditReport:
    report = AuditReport()

    def scoped(stmt: Any, table: Any) -> Any:
        return stmt.where(table.c.tenant_id == tenant_id) if tenant_id else stmt

    supported = provenance.supported(current_memories.c.memory_id, current_memories.c.version)
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        projection = conn.execute(
            scoped(
                select(
                    current_memories.c.memory_id,
                    current_memories.c.version,
                    memory_versions.c.status,
                    supported.label("supported"),
                ).join(
                    memory_versions,
                    and_(
                        memory_versions.c.memory_id == current_memories.c.memory_id,
                        memory_versions.c.version == current_memories.c.version,
                    ),
                    isouter=True,
                ),
                current_memories,
            )
        ).all()
        for r in projection:
            if r.status != MemoryStatus.COMMITTED:
                report.findings.append(
                    {
                        "where": "projection",
                        "memory": f"{r.memory_id}:{r.version}",
                        "problem": f"status {r.status}",
                    }
                )
            elif not r.supported:
                report.findings.append(
                    {
                        "where": "projection",
                        "memory": f"{r.memory_id}:{r.version}",
                        "problem": "no active supporting message",
                    }
                )
        current = {(r.memory_id, r.version) for r in projection}
        vectors = conn.execute(
            scoped(select(vector_index.c.memory_id, vector_index.c.version), vector_index)
        ).all()
        for r in vectors:
            if (r.memory_id, r.version) not in current:
                report.findings.append(
                    {
                        "where": "vector_index",
                        "memory": f"{r.memory_id}:{r.version}",
                        "problem": "not a current committed version",
                    }
                )
        for r in conn.execute(
            scoped(select(suppressions.c.subject_id, suppressions.c.content_hash), suppressions)
        ):
            if not HASH.match(r.content_hash):
                report.findings.append(
                    {
                        "where": "suppressions",
                        "subject": r.subject_id,
                        "problem": "holds something other than a hash",
                    }
                )
        kept = conn.execute(
            scoped(
                select(memory_versions.c.memory_id, memory_versions.c.version).where(
                    memory_versions.c.status == MemoryStatus.FORGOTTEN,
                    memory_versions.c.value_json != "null",
                ),
                memory_versions,
            )
        ).all()
        for r in kept:
            report.findings.append(
                {
                    "where": "memory_versions",
                    "memory": f"{r.memory_id}:{r.version}",
                    "problem": "forgotten value still stored",
                }
            )
        undrained = conn.execute(
            scoped(
                select(func.count())
                .select_from(outbox)
                .where(outbox.c.sent_at.is_(None), outbox.c.consumed_at.is_(None)),
                outbox,
            )
        ).scalar_one()
        if undrained:
            report.findings.append(
                {
                    "where": "outbox",
                    "problem": f"{undrained} events not yet relayed; run after the cascade drains",
                }
            )
        _stuck_work(conn, tenant_id, report)
        forgotten = _forgotten(conn, tenant_id)
        report.findings += _forgotten_in_outbox(conn, tenant_id, forgotten)
        report.findings += _forgotten_in_side_tables(conn, tenant_id, forgotten)
        report.findings += _forgotten_in_curate(conn, tenant_id, forgotten)
        report.findings += [
            {"where": "messages", "message": r.message_id, "problem": "forgotten text still stored"}
            for r in conn.execute(
                scoped(
                    select(messages.c.message_id).where(
                        messages.c.erased_at.is_not(None), messages.c.text != ""
                    ),
                    messages,
                )
            )
        ]
        report.checked = {
            "projection_rows": len(projection),
            "vector_rows": len(vectors),
            "proposals": conn.execute(
                scoped(select(func.count()).select_from(proposals), proposals)
            ).scalar_one(),
        }
    return report


def _stuck_work(conn: Connection, tenant_id: str | None, report: AuditReport) -> None:
    """Nothing stuck may look healthy: unindexed current versions, candidates without a
    decision, events published but not consumed past the deadline, dead letters."""
    for memory_id, version in unindexed_versions(conn, tenant_id):
        report.findings.append(
            {
                "where": "vector_index",
                "memory": f"{memory_id}:{version}",
                "problem": "current committed version has no vector row",
            }
        )
    undecided = undecided_count(conn, tenant_id)
    if undecided:
        report.findings.append(
            {"where": "proposal_candidates", "problem": f"{undecided} candidates not decided"}
        )
    health = delivery_health(
        conn, redeliver_seconds=get_settings().redeliver_seconds, tenant_id=tenant_id
    )
    if health.overdue:
        report.findings.append(
            {
                "where": "outbox",
                "problem": f"{health.overdue} events published but not consumed past the "
                "redelivery deadline",
            }
        )
    dead = count_dead_letters(conn, tenant_id)
    if dead:
        report.findings.append(
            {"where": "dead_letters", "problem": f"{dead} events set aside (deadletter list)"}
        )


@dataclass
class _Forgotten:
    """Per tenant: the suppression hashes and the ids of messages whose text was erased."""

    hashes: dict[str, set[str]] = field(default_factory=dict)
    messages: dict[str, set[str]] = field(default_factory=dict)

    def suspect(self, tenant_id: str, values: list[Any]) -> bool:
        """Whether a row of ``tenant_id`` with these column values derives from a forgotten
        message (names its id, as a column or inside a JSON payload) and holds its content.
        A later message that says the same again is the user's new words, not residue."""
        hashes = self.hashes.get(tenant_id, set())
        return self.cites(tenant_id, values) and any(
            isinstance(v, str) and holds_forgotten(v, hashes) for v in values
        )

    def cites(self, tenant_id: str, values: list[Any]) -> bool:
        """Whether one of ``values`` is, or names in its JSON, a message whose text was
        erased."""
        ids = self.messages.get(tenant_id, set())
        if not ids or not self.hashes.get(tenant_id):
            return False
        return any(v in ids or (isinstance(v, str) and _names_any(v, ids)) for v in values)


def _names_any(text: str, ids: set[str]) -> bool:
    try:
        value: Any = json.loads(text)
    except ValueError:
        return False
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str) and v in ids:
            return True
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def _forgotten(conn: Connection, tenant_id: str | None) -> _Forgotten:
    out = _Forgotten()
    stmt = select(suppressions.c.tenant_id, suppressions.c.content_hash)
    erased = select(messages.c.tenant_id, messages.c.message_id).where(
        messages.c.erased_at.is_not(None)
    )
    if tenant_id:
        stmt = stmt.where(suppressions.c.tenant_id == tenant_id)
        erased = erased.where(messages.c.tenant_id == tenant_id)
    for r in conn.execute(stmt):
        out.hashes.setdefault(r.tenant_id, set()).add(r.content_hash)
    for r in conn.execute(erased):
        out.messages.setdefault(r.tenant_id, set()).add(r.message_id)
    return out


def _forgotten_in_outbox(
    conn: Connection, tenant_id: str | None, forgotten: _Forgotten
) -> list[dict[str, Any]]:
    stmt = select(outbox.c.id, outbox.c.tenant_id, outbox.c.topic, outbox.c.payload)
    if tenant_id:
        stmt = stmt.where(outbox.c.tenant_id == tenant_id)
    return [
        {"where": "outbox", "event": r.id, "topic": r.topic, "problem": "holds forgotten content"}
        for r in conn.execute(stmt)
        if forgotten.suspect(r.tenant_id, [r.payload])
    ]


def _side_tables(conn: Connection) -> list[Table]:
    """Shadow and dead-letter tables that exist in this database, reflected, so one added by
    a later migration is searched too."""
    names = [n for n in inspect(conn).get_table_names() if n.startswith("shadow") or "dead" in n]
    if not names:
        return []
    reflected = MetaData()
    reflected.reflect(conn, only=names)
    return [reflected.tables[n] for n in names]


def _forgotten_in_curate(
    conn: Connection, tenant_id: str | None, forgotten: _Forgotten
) -> list[dict[str, Any]]:
    """Snapshot packages that froze a forgotten message and still hold its content, and the
    ledger rows of those runs (their plans name sources, not messages) that hold it."""
    runs = select(curate_runs.c.tenant_id, curate_runs.c.run_id, curate_runs.c.package)
    ledger = select(curate_ledger.c.tenant_id, curate_ledger.c.run_id, curate_ledger.c.body)
    if tenant_id:
        runs = runs.where(curate_runs.c.tenant_id == tenant_id)
        ledger = ledger.where(curate_ledger.c.tenant_id == tenant_id)
    findings: list[dict[str, Any]] = []
    citing = set()
    for r in conn.execute(runs):
        if forgotten.cites(r.tenant_id, [r.package]):
            citing.add((r.tenant_id, r.run_id))
            if forgotten.suspect(r.tenant_id, [r.package]):
                findings.append(
                    {"where": "curate_runs", "run": r.run_id, "problem": "holds forgotten content"}
                )
    for r in conn.execute(ledger):
        hashes = forgotten.hashes.get(r.tenant_id, set())
        if (r.tenant_id, r.run_id) in citing and holds_forgotten(r.body, hashes):
            findings.append(
                {"where": "curate_ledger", "run": r.run_id, "problem": "holds forgotten content"}
            )
    return findings


def _forgotten_in_side_tables(
    conn: Connection, tenant_id: str | None, forgotten: _Forgotten
) -> list[dict[str, Any]]:
    findings: list[dict[str, Any]] = []
    for table in _side_tables(conn):
        columns = [c for c in table.columns if isinstance(c.type, String | Text)]
        stmt = select(*columns)
        if tenant_id and "tenant_id" in table.c:
            stmt = stmt.where(table.c.tenant_id == tenant_id)
        for row in conn.execute(stmt):
            values = list(row)
            tenants = (
                [getattr(row, "tenant_id", None)]
                if "tenant_id" in table.c
                else list(forgotten.messages)
            )
            if any(forgotten.suspect(t, values) for t in tenants if t):
                findings.append({"where": table.name, "problem": "holds forgotten content"})
    return findings


def text_found(engine: Engine, tenant_ids: list[str], text: str) -> bool:
    """Whether ``text`` appears in any column of any row of the tenants, in every table (the
    evidence store included, and the inbox by its event keys): what an evaluation's
    ``secret_absent`` expectation asks of the store."""
    with engine.connect() as conn:
        for table in metadata.sorted_tables:
            stmt = select(table)
            if "tenant_id" in table.c:
                stmt = stmt.where(table.c.tenant_id.in_(tenant_ids))
            elif table is processed_events:
                stmt = stmt.where(
                    or_(*(cast(table.c.event_key, String).like(f"{t}:%") for t in tenant_ids))
                )
            for row in conn.execute(stmt):
                if any(isinstance(v, str) and text in v for v in row):
                    return True
    return False
