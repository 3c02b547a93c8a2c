"""The commit switch for the doors (seed 000, hard rollback): its status, closing and opening
it, the proposals it held back, and the sentinel sweep that closes it without an operator
when the store shows a cross-tenant write, a stored secret or revocation residue."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, and_, select

from memwarden_shared.config import get_settings
from memwarden_shared.contract.canonical import claim_text
from memwarden_shared.contract.models import MemoryStatus
from memwarden_shared.detect.secret_shape_scan import value_secret_kinds
from memwarden_shared.state import commit_switch, provenance
from memwarden_shared.state.auth import Principal, Scope, authorize
from memwarden_shared.state.commit_switch import GLOBAL, Trigger
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.schema import (
    current_memories,
    memory_evidence,
    memory_versions,
    switch_quarantine,
)
from memwarden_shared.store.tenant_scope import all_tenants


class OpenRefused(ValueError):
    """Opening a switch needs a reason (and ``memory:admin``, checked first)."""


def status(engine: Engine, principal: Principal, tenant_id: str) -> dict[str, Any]:
    """The tenant's switch and the global one, and whether commits are held now (a reader's
    or a reviewer's question)."""
    authorize(principal, Scope.REVIEW if principal.allows(Scope.REVIEW) else Scope.READ, tenant_id)
    return _status(engine, tenant_id)


def status_unchecked(engine: Engine, principal: Principal) -> dict[str, Any]:
    """:func:`status` of the principal's own tenant, for a caller that just changed it."""
    return _status(engine, principal.tenant_id)


def operator_status(engine: Engine, tenant_id: str) -> dict[str, Any]:
    """:func:`status` for an operator at the console of the store (the CLI)."""
    return _status(engine, tenant_id)


def _status(engine: Engine, tenant_id: str) -> dict[str, Any]:
    with all_tenants("the global commit switch is a row of tenant *"), unit_of_work(engine) as uow:
        found = commit_switch.switches(uow.conn, {tenant_id})
        held = commit_switch.closed_for(uow.conn, {tenant_id}).get(tenant_id)
    own = found.get(tenant_id) or commit_switch.never_changed(tenant_id)
    everyone = found.get(GLOBAL) or commit_switch.never_changed(GLOBAL)
    return {
        "tenant_id": tenant_id,
        "commits": "held" if held else "flowing",
        "held_by": held.tenant_id if held else None,
        "tenant": own.as_json(),
        "global": everyone.as_json(),
    }


def close(
    engine: Engine, principal: Principal, tenant_id: str, reason: str, *, everyone: bool = False
) -> bool:
    """Close the tenant's switch (``everyone``: the global one) by hand; any reviewer may pull
    the brake, only an admin releases it. False when it was already closed."""
    authorize(principal, Scope.ADMIN if everyone else Scope.REVIEW, tenant_id)
    target = GLOBAL if everyone else tenant_id
    with all_tenants("closing the global switch"), unit_of_work(engine) as uow:
        changed = commit_switch.close(
            uow.conn, target, reason or "operator", by=principal.principal_id, now=utcnow()
        )
        uow.commit()
    return changed


def open_(
    engine: Engine, principal: Principal, tenant_id: str, reason: str, *, everyone: bool = False
) -> bool:
    """Open the switch again: ``memory:admin`` and a reason, always."""
    authorize(principal, Scope.ADMIN, tenant_id)
    if not reason.strip():
        raise OpenRefused("opening the commit switch needs a reason")
    target = GLOBAL if everyone else tenant_id
    with all_tenants("opening the global switch"), unit_of_work(engine) as uow:
        changed = commit_switch.open_(
            uow.conn, target, reason.strip(), by=principal.principal_id, now=utcnow()
        )
        uow.commit()
    return changed


def quarantined(
    engine: Engine, principal: Principal, tenant_id: str, *, limit: int = 100
) -> list[dict[str, Any]]:
    """Proposals the closed switch held back, newest first, with their would-be decision."""
    authorize(principal, Scope.REVIEW, tenant_id)
    with unit_of_work(engine) as uow:
        rows = uow.conn.execute(
            select(switch_quarantine)
            .where(switch_quarantine.c.tenant_id == tenant_id)
            .order_by(switch_quarantine.c.id.desc())
            .limit(limit)
        ).all()
    return [
        {
            "proposal_id": r.proposal_id,
            "payload_hash": r.payload_hash,
            "subject_id": r.subject_id,
            "would_be_decision": r.would_be_decision,
            "would_be_reasons": json.loads(r.would_be_reasons),
            "switch_reason": r.switch_reason,
            "created_at": r.created_at.isoformat(),
        }
        for r in rows
    ]


@dataclass(frozen=True)
class Finding:
    """A state of the store that closes a switch by itself."""

    tenant_id: str
    trigger: Trigger
    memory: str  # "memory_id:version"

    def as_json(self) -> dict[str, str]:
        return {"tenant_id": self.tenant_id, "trigger": self.trigger.value, "memory": self.memory}


def scan(conn: Connection, tenant_id: str | None = None) -> list[Finding]:
    """Three set-based reads: evidence rows of another tenant than their memory's (a
    cross-tenant write), current values that scan as a secret (a stored secret), and
    current projection rows that are not committed or lost their evidence (revocation
    residue). ``tenant_id`` narrows the reads."""
    return (
        _cross_tenant(conn, tenant_id)
        + _stored_secrets(conn, tenant_id)
        + _residue(conn, tenant_id)
    )


def _narrow(stmt: Any, column: Any, tenant_id: str | None) -> Any:
    return stmt.where(column == tenant_id) if tenant_id else stmt


def _cross_tenant(conn: Connection, tenant_id: str | None) -> list[Finding]:
    stmt = select(
        memory_versions.c.tenant_id, memory_evidence.c.memory_id, memory_evidence.c.version
    ).join(
        memory_evidence,
        and_(
            memory_evidence.c.memory_id == memory_versions.c.memory_id,
            memory_evidence.c.version == memory_versions.c.version,
            memory_evidence.c.tenant_id != memory_versions.c.tenant_id,
        ),
    )
    rows = conn.execute(_narrow(stmt, memory_versions.c.tenant_id, tenant_id)).all()
    return [Finding(r[0], Trigger.CROSS_TENANT_WRITE, f"{r[1]}:{r[2]}") for r in rows]


def _stored_secrets(conn: Connection, tenant_id: str | None) -> list[Finding]:
    stmt = select(
        current_memories.c.tenant_id,
        current_memories.c.memory_id,
        current_memories.c.version,
        current_memories.c.value_json,
    )
    rows = conn.execute(_narrow(stmt, current_memories.c.tenant_id, tenant_id)).all()
    return [
        Finding(r.tenant_id, Trigger.STORED_SECRET, f"{r.memory_id}:{r.version}")
        for r in rows
        if value_secret_kinds(claim_text(json.loads(r.value_json)))
    ]


def _residue(conn: Connection, tenant_id: str | None) -> list[Finding]:
    supported = provenance.supported(current_memories.c.memory_id, current_memories.c.version)
    stmt = select(
        current_memories.c.tenant_id,
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
    )
    rows = conn.execute(_narrow(stmt, current_memories.c.tenant_id, tenant_id)).all()
    return [
        Finding(r.tenant_id, Trigger.REVOCATION_RESIDUE, f"{r.memory_id}:{r.version}")
        for r in rows
        if r.status != MemoryStatus.COMMITTED or not r.supported
    ]


# An operator's (or a scheduled) sweep across tenants: the sentinel reads every tenant's
# projection, like the residue audit.
@all_tenants("the sentinel sweep reads every tenant's projection")
def sweep(
    engine: Engine, tenant_id: str | None = None, *, now: datetime | None = None
) -> dict[str, Any]:
    """Scan the store and close the switch of every tenant with a finding (or the global one,
    by configuration). Returns the findings and the switches this sweep closed."""
    now = now or utcnow()
    scope = get_settings().commit_switch_scope
    with unit_of_work(engine) as uow:
        findings = scan(uow.conn, tenant_id)
        closed = []
        for f in findings:
            if commit_switch.trip(
                uow.conn, f.tenant_id, f.trigger, {"memory": f.memory}, scope=scope, now=now
            ):
                closed.append(GLOBAL if scope == "global" else f.tenant_id)
        uow.commit()
    return {"findings": [f.as_json() for f in findings], "closed": closed}
