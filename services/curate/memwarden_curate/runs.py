"""Stored state of a curate run: the run row, the append-only ledger, the sign-offs."""

from __future__ import annotations

import json
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from sqlalchemy import Connection, and_, func, select, update

from memwarden_curate import coverage, package, plan
from memwarden_shared.contract.canonical import claim_text, jcs, normalized_content_hash, sha256_hex
from memwarden_shared.contract.registry import Registry
from memwarden_shared.state.auth import Forbidden, Principal, Scope, authorize
from memwarden_shared.store.schema import (
    curate_ledger,
    curate_runs,
    curate_signoffs,
    curate_writes,
    suppressions,
)


class Stage(StrEnum):
    SNAPSHOT = "snapshot"
    PLANNING = "planning"  # some batches finished; ``plan`` resumes after the last one
    PLANNED = "planned"
    CHECK_FAILED = "check_failed"
    CHECKED = "checked"
    REVIEWED = "reviewed"
    ATTESTED = "attested"
    PUBLISHING = "publishing"  # the read block is up
    PUBLISHED = "published"
    FAILED = "failed"  # a publish failed and was rolled back to the snapshot
    ROLLED_BACK = "rolled_back"


class CurateRefused(Exception):
    """A refusal with a stable code and a message a person can act on."""

    def __init__(self, code: str, message: str, problems: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.code = code
        self.problems = problems or []


def allow(principal: Principal, scope: Scope, tenant_id: str) -> None:
    try:
        authorize(principal, scope, tenant_id)
    except Forbidden as exc:
        raise CurateRefused("forbidden", str(exc)) from None


def allow_reader(principal: Principal, tenant_id: str) -> None:
    """Reading a run (status, check, export): readers, reviewers and admins of the tenant."""
    if principal.tenant_id == tenant_id and (
        principal.allows(Scope.READ) or principal.allows(Scope.REVIEW)
    ):
        return
    allow(principal, Scope.READ, tenant_id)


class RunRef(Protocol):
    """What names a run: its tenant and its id (a run row is one). Run ids are the client's
    choice, so they are unique per tenant only: every lookup names both (issue 22)."""

    @property
    def tenant_id(self) -> str: ...
    @property
    def run_id(self) -> str: ...


def _of(table: Any, run: RunRef) -> Any:
    return and_(table.c.tenant_id == run.tenant_id, table.c.run_id == run.run_id)


def find_run(conn: Connection, run_id: str, tenant_id: str) -> Any:
    """The run ``run_id`` of ``tenant_id``, or None. Another tenant's run of the same id is
    simply a different run: neither visible nor in the way."""
    return conn.execute(
        select(curate_runs).where(
            curate_runs.c.tenant_id == tenant_id, curate_runs.c.run_id == run_id
        )
    ).first()


def get_run(conn: Connection, run_id: str, tenant_id: str) -> Any:
    row = find_run(conn, run_id, tenant_id)
    if row is None:
        raise CurateRefused("unknown_run", f"no curate run {run_id} in this tenant")
    return row


def set_stage(conn: Connection, run: RunRef, stage: Stage, now: datetime, **extra: Any) -> None:
    values: dict[str, Any] = {"stage": stage, "updated_at": now}
    if "outcome" in extra:
        values["outcome"] = json.dumps(extra.pop("outcome"), ensure_ascii=False, default=str)
    values.update(extra)
    conn.execute(update(curate_runs).where(_of(curate_runs, run)).values(**values))


def items_of(run: Any, *, erased_ok: bool = False) -> list[dict[str, Any]]:
    """The snapshot's items. A package that no longer matches its hash is refused: altered,
    or erased by a forget (``erased_at``). Only a rollback (``erased_ok``) goes on with an
    erased package, without the erased items: it must never bring forgotten values back."""
    if package.verify(run.package, run.snapshot_hash):
        return package.load(run.package)[1]
    if run.erased_at is None:
        raise CurateRefused("snapshot_altered", "the stored snapshot no longer matches its hash")
    if not erased_ok:
        raise CurateRefused(
            "snapshot_erased",
            "a forget erased part of this snapshot after it was taken; take a new snapshot",
        )
    return [i for i in package.load(run.package)[1] if not i.get("erased")]


def ledger(conn: Connection, run: RunRef) -> list[Any]:
    return list(
        conn.execute(
            select(curate_ledger).where(_of(curate_ledger, run)).order_by(curate_ledger.c.seq)
        )
    )


def append(
    conn: Connection,
    run: RunRef,
    entry: str,
    body: dict[str, Any],
    *,
    author: str,
    now: datetime,
    batch_no: int | None = None,
    tokens: int = 0,
) -> int:
    """Append one ledger row; rows are never updated or deleted."""
    seq = conn.execute(
        select(func.coalesce(func.max(curate_ledger.c.seq), 0)).where(_of(curate_ledger, run))
    ).scalar_one()
    text = jcs(body).decode("utf-8")
    conn.execute(
        curate_ledger.insert().values(
            tenant_id=run.tenant_id,
            run_id=run.run_id,
            seq=int(seq) + 1,
            entry=entry,
            batch_no=batch_no,
            body=text,
            body_hash=sha256_hex(text),
            tokens=tokens,
            author=author,
            created_at=now,
        )
    )
    return int(seq) + 1


def current_plan(conn: Connection, run: Any) -> tuple[dict[str, Any], str]:
    """The folded plan and its hash."""
    entries = [{"entry": r.entry, "body": json.loads(r.body)} for r in ledger(conn, run)]
    folded = plan.fold(entries)
    return folded, plan.plan_hash(run.snapshot_hash, folded)


def plan_problems(
    conn: Connection, run: Any, registry: Registry
) -> tuple[list[dict[str, str]], str, dict[str, Any]]:
    """The coverage check, plus the one gate check that needs the store: a new claim whose
    normalised content a subject asked to forget (suppression) is refused (SPEC §9)."""
    folded, phash = current_plan(conn, run)
    if run.stage in (Stage.SNAPSHOT, Stage.PLANNING):
        return [{"code": "not_planned", "detail": "the plan is unfinished"}], phash, folded
    found = coverage.check(items_of(run), folded, registry)
    hashes = {
        (str(t.get("subject_id")), normalized_content_hash(claim_text(t.get("value")))): t
        for t in folded["targets"]
    }
    if hashes:
        held = {
            (r.subject_id, r.content_hash)
            for r in conn.execute(
                select(suppressions.c.subject_id, suppressions.c.content_hash).where(
                    suppressions.c.tenant_id == run.tenant_id,
                    suppressions.c.content_hash.in_(sorted({h for _, h in hashes})),
                )
            )
        }
        for key in sorted(held & set(hashes)):
            found.append(
                {
                    "code": "suppressed",
                    "target": str(hashes[key].get("target")),
                    "detail": "the subject asked to forget this claim",
                }
            )
    return found, phash, folded


def signoffs(conn: Connection, run: RunRef, kind: str) -> list[Any]:
    return list(
        conn.execute(
            select(curate_signoffs)
            .where(_of(curate_signoffs, run), curate_signoffs.c.kind == kind)
            .order_by(curate_signoffs.c.id)
        )
    )


def add_signoff(
    conn: Connection,
    run: RunRef,
    kind: str,
    principal_id: str,
    plan_hash: str,
    verdict: str,
    now: datetime,
    *,
    model: str | None = None,
    statement: dict[str, Any] | None = None,
) -> None:
    conn.execute(
        curate_signoffs.insert().values(
            tenant_id=run.tenant_id,
            run_id=run.run_id,
            kind=kind,
            principal_id=principal_id,
            plan_hash=plan_hash,
            verdict=verdict,
            model=model,
            statement=json.dumps(statement or {}, ensure_ascii=False),
            created_at=now,
        )
    )


def status(conn: Connection, run: Any) -> dict[str, Any]:
    """Stage, hashes, counts and ledger of a run (what every command prints)."""
    folded, phash = current_plan(conn, run)
    rows = ledger(conn, run)
    writes: dict[str, int] = {}
    for w in conn.execute(select(curate_writes).where(_of(curate_writes, run))):
        writes[f"{w.phase}_{w.action}"] = writes.get(f"{w.phase}_{w.action}", 0) + 1

    def bound(kind: str) -> list[dict[str, Any]]:
        return [
            {
                "principal_id": s.principal_id,
                "plan_hash": s.plan_hash,
                "verdict": s.verdict,
                "model": s.model,
                "valid": s.plan_hash == phash,
                "at": s.created_at,
            }
            for s in signoffs(conn, run, kind)
        ]

    return {
        "run_id": run.run_id,
        "tenant_id": run.tenant_id,
        "subjects": json.loads(run.subjects),
        "stage": run.stage,
        "hash": phash if rows else run.snapshot_hash,
        "snapshot_hash": run.snapshot_hash,
        "plan_hash": phash if rows else None,
        "planner": run.planner,
        "rewriter": run.rewriter,
        "counts": {"sources": run.source_count, **plan.counts(folded), "writes": writes},
        "ledger": [
            {
                "seq": r.seq,
                "entry": r.entry,
                "batch_no": r.batch_no,
                "body_hash": r.body_hash,
                "tokens": r.tokens,
                "author": r.author,
                "at": r.created_at,
            }
            for r in rows
        ],
        "reviews": bound("review"),
        "attestations": bound("attest"),
        "outcome": json.loads(run.outcome),
        "published_at": run.published_at,
    }
