"""The action gate's unit of work (SPEC §14): read the used memories from the store under
share locks, decide, record the action with its receipt fields, once per idempotency key.

Locks, and why: the used memories' fact-key rows, version rows and evidence message rows are
read ``FOR SHARE`` (PostgreSQL; SQLite holds its database write lock from BEGIN). A revocation,
a supersede or a cascade that changes one of those rows waits for this transaction and then
finds the action (``shared.action_repair``); one that got there first is seen here. The
idempotency key is claimed with ``INSERT … ON CONFLICT DO NOTHING``: a concurrent request with
the same key waits on the unique index, inserts nothing, and reads the winner's row back.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, and_, select

from memwarden_actions.decide import ActionDecision, UsedMemory, decide_action
from memwarden_actions.receipts import ActionKeyConflict, receipt
from memwarden_actions.request import ActionRequest, key_hash, request_hash
from memwarden_shared.contract.action_registry import ActionRegistry, default_action_registry
from memwarden_shared.contract.canonical import sha256_hex
from memwarden_shared.contract.models import MemoryStatus, MessageStatus
from memwarden_shared.contract.registry import Registry, default_registry
from memwarden_shared.state.action_repair import ActionState
from memwarden_shared.state.auth import Forbidden, Principal, Scope
from memwarden_shared.store.db import dumps, get_engine, unit_of_work, utcnow
from memwarden_shared.store.dialect import in_list, insert_ignore_stmt, lock_rows
from memwarden_shared.store.schema import (
    action_uses,
    actions,
    fact_keys,
    memory_evidence,
    memory_versions,
    messages,
)

log = logging.getLogger("memwarden.actions")

STATE_FOR = {
    ActionDecision.ALLOW: ActionState.ALLOWED,
    ActionDecision.NEEDS_APPROVAL: ActionState.AWAITING_APPROVAL,
    ActionDecision.DENY: ActionState.DENIED,
    ActionDecision.STALE: ActionState.DENIED,
}


def action_id_for(tenant_id: str, idempotency_key: str) -> str:
    """One action per key and tenant, so the id is derived from them."""
    return "act_" + sha256_hex(f"{tenant_id}\x00{idempotency_key}")[:32]


def request_action(
    req: ActionRequest,
    principal: Principal,
    *,
    engine: Engine | None = None,
    now: datetime | None = None,
    registry: Registry | None = None,
    actions_registry: ActionRegistry | None = None,
) -> dict[str, Any]:
    """Decide ``req`` and return its receipt (an unregistered intent is a recorded DENY
    ``unknown_intent``). Raises ``Forbidden`` for a principal of another tenant (nothing is
    recorded) and ``ActionKeyConflict`` when the key was used with another intent or params."""
    if principal.tenant_id != req.tenant_id:
        raise Forbidden("principal belongs to another tenant")
    spec = (actions_registry or default_action_registry()).get(req.intent)
    now = now or utcnow()
    bound = key_hash(req.intent, req.params)
    with unit_of_work(engine or get_engine()) as uow:
        conn = uow.conn
        first = _by_key(conn, req.tenant_id, req.idempotency_key)
        if first is not None:
            return _retry(first, bound)
        used = read_used(conn, req, registry or default_registry())
        verdict = decide_action(
            intent=req.intent,
            known_intent=spec is not None,
            high_consequence=spec is not None and spec.high_consequence,
            may_request=principal.allows(Scope.ACTION_REQUEST),
            purpose=req.purpose,
            used=used,
            now=now,
        )
        versions = [f"{m.name.split(':')[0]}:{m.version}" for m in used if m.found]
        row = {
            "action_id": action_id_for(req.tenant_id, req.idempotency_key),
            "tenant_id": req.tenant_id,
            "subject_id": req.subject_id,
            "requested_by": principal.principal_id,
            "intent": req.intent,
            "params_json": dumps(req.params),
            "purpose": req.purpose,
            "idempotency_key": req.idempotency_key,
            "key_hash": bound,
            "request_hash": request_hash(req.intent, req.params, versions),
            "uses_json": dumps(versions),
            "decision": verdict.decision.value,
            "reasons": dumps(list(verdict.reasons)),
            "state": STATE_FOR[verdict.decision].value,
            "decided_at": now,
            "updated_at": now,
        }
        stored = _claim_key(conn, row)
        if stored is None:
            # Lost the race for the key: the winner has committed (we waited on its index
            # entry), so its row is there to read; ours was never written.
            winner = _by_key(conn, req.tenant_id, req.idempotency_key)
            if winner is None:  # cannot happen: a rolled-back winner would have let us insert
                raise RuntimeError("idempotency key taken but no row to read back")
            return _retry(winner, bound)
        if versions:
            conn.execute(
                action_uses.insert(),
                [
                    {
                        "action_id": row["action_id"],
                        "tenant_id": req.tenant_id,
                        "memory_id": v.split(":")[0],
                        "version": int(v.split(":")[1]),
                    }
                    for v in versions
                ],
            )
        uow.commit()
    log.info(
        "action decided: %s intent=%s decision=%s reasons=%s",
        row["action_id"],
        req.intent,
        verdict.decision.value,
        list(verdict.reasons),
    )
    return receipt(stored)


def _by_key(conn: Connection, tenant_id: str, key: str) -> dict[str, Any] | None:
    found = (
        conn.execute(
            select(actions).where(
                actions.c.tenant_id == tenant_id, actions.c.idempotency_key == key
            )
        )
        .mappings()
        .first()
    )
    return dict(found) if found else None


def _retry(first: dict[str, Any], bound: str) -> dict[str, Any]:
    """The same key again: the stored receipt if it means the same action, else a conflict."""
    if first["key_hash"] != bound:
        raise ActionKeyConflict(first["action_id"])
    return receipt(first, duplicate=True)


def _claim_key(conn: Connection, row: dict[str, Any]) -> dict[str, Any] | None:
    """Insert the action unless its key is taken; the stored row, or None when it was."""
    # No conflict target: the action id is derived from the key, so a concurrent twin hits
    # uq_actions_action_id as well; with a target naming only the key, PostgreSQL raises on
    # the other unique index instead of skipping the row.
    stmt = insert_ignore_stmt(conn, actions)
    # RETURNING, not rowcount: the driver's rowcount is not reliable for a skipped row
    stored = conn.execute(stmt.values(row).returning(*actions.c)).mappings().first()
    return dict(stored) if stored is not None else None


def _share(conn: Connection, stmt: Any) -> Any:
    return lock_rows(conn, stmt, read=True)


def read_used(conn: Connection, req: ActionRequest, registry: Registry) -> list[UsedMemory]:
    """The used memories as the store shows them now, with their rows share-locked."""
    named = [(n.split(":")[0], int(n.split(":")[1]) if ":" in n else None) for n in req.uses]
    ids = sorted({m for m, _ in named})
    if not ids:
        return []
    keys, versions = _share_locked(conn, ids)
    latest = {m: vs[max(vs)] for m, vs in versions.items()}
    support = _supported(conn, req.tenant_id, [(m, v.version) for m, v in latest.items()])
    out = []
    for name, (memory_id, version) in zip(req.uses, named, strict=True):
        key = keys.get(memory_id)
        top = latest.get(memory_id)
        if key is None or top is None or not _names_own_version(key, versions, version, req):
            out.append(_missing(name))
            continue
        out.append(
            _found(
                name,
                version,
                top,
                supported=support.get((memory_id, top.version), False),
                sources_supported=_sources_supported(conn, req.tenant_id, top.derived_from),
                registry=registry,
            )
        )
    return out


def _found(
    name: str,
    version: int | None,
    top: Any,
    *,
    supported: bool,
    sources_supported: bool,
    registry: Registry,
) -> UsedMemory:
    """A used memory as its latest version shows it (``version``: the one named, if any);
    a key missing from the registry prohibits every action."""
    spec = registry.get(top.kind, top.normalized_key)
    return UsedMemory(
        name=name,
        found=True,
        version=version if version is not None else top.version,
        latest_version=top.version,
        status=top.status,
        status_reason=top.status_reason,
        supported=supported,
        sources_supported=sources_supported,
        expires_at=top.expires_at,
        prohibited_actions=spec.prohibited_actions if spec else ("*",),
        retrieval_purposes=spec.retrieval_purposes if spec else (),
    )


def _share_locked(
    conn: Connection, ids: list[str]
) -> tuple[dict[str, Any], dict[str, dict[int, Any]]]:
    """The fact keys and every version of ``ids``, share-locked in memory_id order (a
    commit or revocation of them waits for this decision, or went first)."""
    keys = {
        r.memory_id: r
        for r in conn.execute(
            _share(
                conn,
                select(fact_keys)
                .where(in_list(conn, fact_keys.c.memory_id, ids))
                .order_by(fact_keys.c.memory_id),
            )
        )
    }
    versions: dict[str, dict[int, Any]] = {}
    for r in conn.execute(
        _share(
            conn,
            select(memory_versions)
            .where(in_list(conn, memory_versions.c.memory_id, ids))
            .order_by(memory_versions.c.memory_id, memory_versions.c.version),
        )
    ):
        versions.setdefault(r.memory_id, {})[r.version] = r
    return keys, versions


def _names_own_version(
    key: Any, versions: dict[str, dict[int, Any]], version: int | None, req: ActionRequest
) -> bool:
    """The memory is the requester's subject's, in its tenant, and the named version (if
    any) exists."""
    return (
        key.tenant_id == req.tenant_id
        and key.subject_id == req.subject_id
        and (version is None or version in versions[key.memory_id])
    )


def _missing(name: str) -> UsedMemory:
    return UsedMemory(name, False, 0, 0, "", None, False, False, None, (), ())


def _supported(
    conn: Connection, tenant_id: str, pairs: list[tuple[str, int]]
) -> dict[tuple[str, int], bool]:
    """Whether each version has an active supporting message revision; the message rows are
    share-locked so a revocation of one of them waits for this decision (or went first)."""
    if not pairs:
        return {}
    wanted = set(pairs)
    edges = [
        e
        for e in conn.execute(
            select(memory_evidence).where(
                memory_evidence.c.tenant_id == tenant_id,
                in_list(conn, memory_evidence.c.memory_id, {m for m, _ in pairs}),
            )
        )
        if (e.memory_id, e.version) in wanted
    ]
    if not edges:
        return {}
    rows = conn.execute(
        _share(
            conn,
            select(messages.c.message_id, messages.c.revision, messages.c.status)
            .where(
                messages.c.tenant_id == tenant_id,
                in_list(conn, messages.c.message_id, sorted({e.message_id for e in edges})),
            )
            .order_by(messages.c.message_id, messages.c.revision),
        )
    ).all()
    active = {(r.message_id, r.revision) for r in rows if r.status == MessageStatus.ACTIVE}
    out: dict[tuple[str, int], bool] = {}
    for e in edges:
        key = (e.memory_id, e.version)
        out[key] = out.get(key, False) or (e.message_id, e.revision) in active
    return out


def _sources_supported(conn: Connection, tenant_id: str, derived_from: str | None) -> bool:
    """A summary or inference is only as good as what it was derived from: each source version
    must still be committed and supported (the cascade may not have run yet)."""
    sources = [s.rsplit(":", 1) for s in json.loads(derived_from or "[]")]
    if not sources:
        return True
    pairs = [(m, int(v)) for m, v in sources]
    committed = {
        (r.memory_id, r.version)
        for r in conn.execute(
            select(memory_versions.c.memory_id, memory_versions.c.version).where(
                in_list(conn, memory_versions.c.memory_id, {m for m, _ in pairs}),
                memory_versions.c.status == MemoryStatus.COMMITTED,
                memory_versions.c.tenant_id == tenant_id,
            )
        )
    }
    support = _supported(conn, tenant_id, pairs)
    return all(p in committed and support.get(p, False) for p in pairs)


def load_action(conn: Connection, tenant_id: str, action_id: str, *, lock: bool = False) -> Any:
    stmt = select(actions).where(
        and_(actions.c.tenant_id == tenant_id, actions.c.action_id == action_id)
    )
    return conn.execute(lock_rows(conn, stmt) if lock else stmt).mappings().first()
