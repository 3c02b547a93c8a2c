"""Publish and rollback (SPEC §15.6-7): block recall for the run's subjects, switch in one
transaction under the fact-key locks, probe, lift the block. Any failure leaves (or puts)
the store back in the snapshot's state.

Every memory write goes through the one owner of memory state: ``state.memory_state``
(the fact-key lock, retiring versions) and ``state.curate_writes`` (curated versions).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, and_, select

from memwarden_curate.runs import (
    CurateRefused,
    Stage,
    allow,
    get_run,
    items_of,
    plan_problems,
    set_stage,
    signoffs,
    status,
)
from memwarden_curate.switch import (
    Commit,
    fact_key_of,
    parse_ts,
    restoration,
    stale_sources,
    switch_of,
)
from memwarden_shared.contract.canonical import jcs, sha256_hex
from memwarden_shared.contract.models import MessageStatus
from memwarden_shared.contract.registry import Registry, default_registry
from memwarden_shared.state import curate_block
from memwarden_shared.state.auth import Principal, Scope
from memwarden_shared.state.curate_writes import CuratedVersion, commit_new_versions
from memwarden_shared.state.memory_state import lock_fact_keys, retire_versions
from memwarden_shared.store.db import get_engine, unit_of_work, utcnow
from memwarden_shared.store.dialect import in_list, insert_ignore
from memwarden_shared.store.schema import (
    FACT_KEY_COLUMNS,
    curate_spans,
    curate_writes,
    current_memories,
    fact_keys,
    memory_evidence,
    messages,
)

Hook = Callable[[], None]
CLOSED = (Stage.PUBLISHED, Stage.ROLLED_BACK, Stage.FAILED)


def _refuse_unless_publishable(
    conn: Connection, run: Any, registry: Registry
) -> tuple[dict[str, Any], str]:
    if run.stage in CLOSED or run.published_at is not None:
        raise CurateRefused(
            "already_published",
            f"publish refused: run {run.run_id} is {run.stage}; a run publishes once "
            "(take a new snapshot to curate again)",
        )
    found, phash, folded = plan_problems(conn, run, registry)
    if found:
        raise CurateRefused(
            "coverage_incomplete",
            f"publish refused: coverage is incomplete ({len(found)} problems; run check)",
            found,
        )
    approved = [s for s in signoffs(conn, run, "review") if s.verdict == "approved"]
    attests = signoffs(conn, run, "attest")
    reviewed = any(s.plan_hash == phash for s in approved)
    attested = any(s.plan_hash == phash for s in attests)
    if reviewed and attested:
        return folded, phash
    if any(s.plan_hash != phash for s in approved + attests):
        raise CurateRefused(
            "plan_changed",
            f"publish refused: the plan changed since it was reviewed or attested (now {phash});"
            " earlier sign-offs are void",
        )
    if not reviewed:
        raise CurateRefused("not_reviewed", "publish refused: no independent review approved it")
    raise CurateRefused("not_attested", "publish refused: no attestation for this plan")


def publish(
    principal: Principal,
    run_id: str,
    *,
    engine: Engine | None = None,
    registry: Registry | None = None,
    after_block: Hook | None = None,
    after_apply: Hook | None = None,
) -> dict[str, Any]:
    """The switch. ``after_block``/``after_apply`` are fault-injection points for drills
    and tests (an exception there must leave the snapshot's state)."""
    engine = engine or get_engine()
    registry = registry or default_registry()
    with unit_of_work(engine) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow(principal, Scope.ADMIN, run.tenant_id)
        if run.stage == Stage.PUBLISHING:
            raise CurateRefused(
                "publishing",
                f"publish refused: run {run_id} is publishing (or was interrupted:"
                " its block holds recall empty; run rollback to restore and lift it)",
            )
        folded, phash = _refuse_unless_publishable(uow.conn, run, registry)
        items = items_of(run)
        commits, retire = switch_of(run.tenant_id, items, folded, registry)
        subjects = json.loads(run.subjects)
        others = curate_block.holders(uow.conn, run.tenant_id, subjects) - {run_id}
        if others:
            raise CurateRefused("scope_busy", f"publish refused: {sorted(others)} is publishing")
        now = utcnow()
        curate_block.set_blocks(uow.conn, run.tenant_id, subjects, run_id, now)
        set_stage(uow.conn, run, Stage.PUBLISHING, now)
        uow.commit()
    blocked_at = time.monotonic()
    try:
        if after_block:
            after_block()
        with unit_of_work(engine) as uow:
            written = _apply(uow.conn, run, commits, retire, utcnow())
            uow.commit()
    except Exception as exc:
        # nothing was committed: the store is the snapshot's; lift and say why
        _close(engine, run, Stage.FAILED, blocked_at, {"error": _reason(exc)})
        if isinstance(exc, CurateRefused):
            raise
        raise CurateRefused(
            "publish_failed", f"publish failed ({_reason(exc)}); nothing changed"
        ) from exc
    try:
        if after_apply:
            after_apply()
        missing = _probe(engine, written)
        if missing:
            raise CurateRefused("probe_failed", f"probe recall disagrees on {missing[:5]}")
    except Exception as exc:
        with unit_of_work(engine) as uow:
            restored = restore(uow.conn, run, items, utcnow())
            uow.commit()
        _close(engine, run, Stage.FAILED, blocked_at, {"error": _reason(exc), **restored})
        raise CurateRefused(
            "publish_failed", f"publish failed ({_reason(exc)}); restored the snapshot"
        ) from exc
    return _close(
        engine,
        run,
        Stage.PUBLISHED,
        blocked_at,
        {
            "plan_hash": phash,
            "committed": len(written["commit"]),
            "retired": len(written["retire"]),
        },
        published=True,
    )


def _reason(exc: Exception) -> str:
    return getattr(exc, "code", None) or type(exc).__name__


def _close(
    engine: Engine,
    run: Any,
    stage: Stage,
    blocked_at: float,
    outcome: dict[str, Any],
    *,
    published: bool = False,
) -> dict[str, Any]:
    with unit_of_work(engine) as uow:
        curate_block.lift_blocks(uow.conn, run.tenant_id, run.run_id)
        now = utcnow()
        outcome["read_block_seconds"] = round(time.monotonic() - blocked_at, 4)
        extra = {"published_at": now} if published else {}
        set_stage(uow.conn, run, stage, now, outcome=outcome, **extra)
        uow.commit()
    with unit_of_work(engine) as uow:  # the status read is not worth holding the block for
        return status(uow.conn, get_run(uow.conn, run.run_id, run.tenant_id))


def _projection(conn: Connection, memory_ids: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in range(0, len(memory_ids), 1000):
        chunk = memory_ids[i : i + 1000]
        out.update(
            (r.memory_id, r.version)
            for r in conn.execute(
                select(current_memories.c.memory_id, current_memories.c.version).where(
                    in_list(conn, current_memories.c.memory_id, chunk)
                )
            )
        )
    return out


def _apply(
    conn: Connection,
    run: Any,
    commits: list[Commit],
    retire: list[dict[str, Any]],
    now: datetime,
) -> dict[str, list[tuple[str, int]]]:
    keys = {c.memory_id: c.key for c in commits}
    if len(keys) != len(commits):
        raise CurateRefused("target_collision", "two targets of the plan are one fact")
    keys.update({r["memory_id"]: fact_key_of(r, run.tenant_id, r["claim_key"]) for r in retire})
    locked = lock_fact_keys(conn, keys, now)
    stale = stale_sources(commits, retire, _projection(conn, sorted(keys)))
    if stale:
        raise CurateRefused(
            "snapshot_stale",
            f"publish refused: {len(stale)} memories changed since the snapshot "
            f"(e.g. {sorted(set(stale))[:5]}); take a new snapshot",
        )
    support = _support(conn, [(m["memory_id"], m["version"]) for c in commits for m in c.members])
    versions = [_formed(c, locked[c.memory_id], support, run.run_id, now) for c in commits]
    written = {
        "commit": commit_new_versions(conn, versions, now),
        "retire": retire_versions(
            conn,
            run.tenant_id,
            [(r["memory_id"], r["version"]) for r in retire],
            now,
            reason="curated",
            actions_reason="curate_retired",
        ),
    }
    _spans(
        conn,
        run.tenant_id,
        [(v, c.evidence) for v, c in zip(written["commit"], commits, strict=True)],
    )
    _record(conn, run, "publish", written, now)
    return written


def _formed(
    c: Commit,
    fact_row: dict[str, Any],
    support: dict[tuple[str, int], list[tuple[str, int]]],
    run_id: str,
    now: datetime,
) -> CuratedVersion:
    """A plan's commit as the version it forms on its locked fact key."""
    return CuratedVersion(
        fact_row=fact_row,
        value=c.value,
        # what supports the members now: the snapshot's evidence plus any repeat of the same
        # claim the gate recorded since (a NOOP adds evidence, not a version)
        evidence=[p for m in c.members for p in support[(m["memory_id"], m["version"])]],
        formation_id=sha256_hex(jcs({"curate_run": run_id, "formation": c.label})),
        valid_from=parse_ts(c.valid_from) or now,
        expires_at=parse_ts(c.expires_at),
        derived_from=[m["source"] for m in c.members],
    )


def _support(
    conn: Connection, refs: list[tuple[str, int]]
) -> dict[tuple[str, int], list[tuple[str, int]]]:
    out: dict[tuple[str, int], list[tuple[str, int]]] = defaultdict(list)
    wanted = set(refs)
    ids = sorted({m for m, _ in refs})
    for i in range(0, len(ids), 1000):
        for r in conn.execute(
            select(memory_evidence).where(
                in_list(conn, memory_evidence.c.memory_id, ids[i : i + 1000])
            )
        ):
            if (r.memory_id, r.version) in wanted:
                out[(r.memory_id, r.version)].append((r.message_id, r.revision))
    return out


def _spans(
    conn: Connection, tenant_id: str, written: list[tuple[tuple[str, int], list[dict[str, Any]]]]
) -> None:
    """Which sentence of each message supports a curated version, for later snapshots."""
    rows = [
        {
            "tenant_id": tenant_id,
            "memory_id": ref[0],
            "version": ref[1],
            "message_id": e["message_id"],
            "revision": e["revision"],
            "start": e["start"],
            "end": e["end"],
        }
        for ref, evidence in written
        for e in evidence
        if e.get("start") is not None
    ]
    if rows:
        insert_ignore(
            conn, curate_spans, rows, ["memory_id", "version", "message_id", "revision", "start"]
        )


def _record(
    conn: Connection,
    run: Any,
    phase: str,
    written: dict[str, list[tuple[str, int]]],
    now: datetime,
) -> None:
    rows = [
        {
            "tenant_id": run.tenant_id,
            "run_id": run.run_id,
            "phase": phase,
            "action": action,
            "memory_id": m,
            "version": v,
            "created_at": now,
        }
        for action, refs in written.items()
        for m, v in refs
    ]
    if rows:
        conn.execute(curate_writes.insert(), rows)


def _probe(engine: Engine, written: dict[str, list[tuple[str, int]]]) -> list[str]:
    """Recall's own rule (current, evidence active) over what the switch wrote: every new
    version is recallable and no retired one is. Returns what disagrees.

    Two index lookups rather than recall's correlated EXISTS: right after a bulk switch the
    planner's statistics are stale and would scan the evidence table once per row."""
    ids = sorted({m for m, _ in written["commit"]} | {m for m, _ in written["retire"]})
    current: set[tuple[str, int]] = set()
    supported: set[tuple[str, int]] = set()
    me = memory_evidence
    with unit_of_work(engine) as uow:
        for i in range(0, len(ids), 1000):
            chunk = ids[i : i + 1000]
            current.update(
                (r.memory_id, r.version)
                for r in uow.conn.execute(
                    select(current_memories.c.memory_id, current_memories.c.version).where(
                        in_list(uow.conn, current_memories.c.memory_id, chunk)
                    )
                )
            )
            supported.update(
                (r.memory_id, r.version)
                for r in uow.conn.execute(
                    select(me.c.memory_id, me.c.version)
                    .join(
                        messages,
                        and_(
                            messages.c.tenant_id == me.c.tenant_id,
                            messages.c.message_id == me.c.message_id,
                            messages.c.revision == me.c.revision,
                        ),
                    )
                    .where(
                        in_list(uow.conn, me.c.memory_id, chunk),
                        messages.c.status == MessageStatus.ACTIVE,
                    )
                )
            )
    seen = current & supported
    missing = [f"{m}:{v}" for m, v in written["commit"] if (m, v) not in seen]
    return missing + [f"{m}:{v}" for m, v in written["retire"] if (m, v) in seen]


def restore(
    conn: Connection, run: Any, items: list[dict[str, Any]], now: datetime
) -> dict[str, Any]:
    """Put the snapshot's state back as new versions, for every memory the publish wrote.
    A memory that moved since the publish (someone said something new) is left alone and
    listed; a snapshot version whose evidence is all revoked is not brought back."""
    published = list(
        conn.execute(
            select(curate_writes).where(
                curate_writes.c.tenant_id == run.tenant_id,
                curate_writes.c.run_id == run.run_id,
                curate_writes.c.phase == "publish",
            )
        )
    )
    after = {w.memory_id: w.version for w in published if w.action == "commit"}
    ids = sorted({w.memory_id for w in published})
    snap = {i["memory_id"]: i for i in items}
    locked = lock_fact_keys(conn, _stored_fact_keys(conn, ids), now)
    active = _active_messages(conn, run.tenant_id, [snap[m] for m in ids if m in snap])
    plan = restoration(ids, after, _projection(conn, ids), snap, active)
    back = [
        CuratedVersion(
            fact_row=locked[mid],
            value=item["value"],
            evidence=evidence,
            formation_id=sha256_hex(jcs({"curate_rollback": run.run_id, "source": item["source"]})),
            valid_from=parse_ts(item["valid_from"]) or now,
            expires_at=parse_ts(item["expires_at"]),
            derived_from=[item["source"]],
        )
        for mid, item, evidence in plan.back
    ]
    written = {
        "commit": commit_new_versions(conn, back, now),
        "retire": retire_versions(
            conn,
            run.tenant_id,
            plan.withdraw,
            now,
            reason="curate_rolled_back",
            actions_reason="curate_retired",
        ),
    }
    _spans(
        conn,
        run.tenant_id,
        [
            (ref, item["evidence"])
            for ref, (_, item, _) in zip(written["commit"], plan.back, strict=True)
        ],
    )
    _record(conn, run, "rollback", written, now)
    return {
        "restored": len(written["commit"]),
        "withdrawn": len(written["retire"]),
        "skipped": plan.skipped,
    }


def _stored_fact_keys(conn: Connection, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The fact keys of existing memories, by memory_id."""
    if not ids:
        return {}
    return {
        r.memory_id: {k: getattr(r, k) for k in FACT_KEY_COLUMNS}
        for r in conn.execute(select(fact_keys).where(in_list(conn, fact_keys.c.memory_id, ids)))
    }


def _active_messages(
    conn: Connection, tenant_id: str, items: list[dict[str, Any]]
) -> set[tuple[str, int]]:
    ids = sorted({e["message_id"] for i in items for e in i["evidence"]})
    out: set[tuple[str, int]] = set()
    for i in range(0, len(ids), 1000):
        out.update(
            (r.message_id, r.revision)
            for r in conn.execute(
                select(messages.c.message_id, messages.c.revision).where(
                    messages.c.tenant_id == tenant_id,
                    in_list(conn, messages.c.message_id, ids[i : i + 1000]),
                    messages.c.status == MessageStatus.ACTIVE,
                )
            )
        )
    return out


def rollback(principal: Principal, run_id: str, *, engine: Engine | None = None) -> dict[str, Any]:
    """After a publish: restore the snapshot's state as new versions, under the same block."""
    engine = engine or get_engine()
    with unit_of_work(engine) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow(principal, Scope.ADMIN, run.tenant_id)
        if run.stage not in (Stage.PUBLISHED, Stage.PUBLISHING):
            raise CurateRefused(
                "not_published", f"rollback refused: run {run_id} is {run.stage}, not published"
            )
        subjects = json.loads(run.subjects)
        others = curate_block.holders(uow.conn, run.tenant_id, subjects) - {run_id}
        if others:
            raise CurateRefused("scope_busy", f"rollback refused: {sorted(others)} is publishing")
        curate_block.set_blocks(uow.conn, run.tenant_id, subjects, run_id, utcnow())
        uow.commit()
    blocked_at = time.monotonic()
    with unit_of_work(engine) as uow:
        restored = restore(uow.conn, run, items_of(run, erased_ok=True), utcnow())
        uow.commit()
    return _close(engine, run, Stage.ROLLED_BACK, blocked_at, restored)
