"""The stored stages before publish: snapshot, plan (batched, resumable), check, edit,
review, attest. Each stage is its own transaction(s); every refusal is a
:class:`CurateRefused` with a code, and refusals write nothing."""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import IntegrityError

from memwarden_curate import package, rules
from memwarden_curate.runs import (
    CurateRefused,
    RunRef,
    Stage,
    add_signoff,
    allow,
    allow_reader,
    append,
    current_plan,
    find_run,
    get_run,
    items_of,
    ledger,
    plan_problems,
    set_stage,
    signoffs,
    status,
)
from memwarden_curate.snapshot import ALL, current_items
from memwarden_shared.contract.canonical import rfc3339
from memwarden_shared.contract.registry import Registry, default_registry
from memwarden_shared.state.auth import Principal, Scope
from memwarden_shared.store.db import get_engine, unit_of_work, utcnow
from memwarden_shared.store.schema import curate_runs

DEFAULT_BATCH = 200
# past review: the plan is frozen, sign-offs no longer change anything
CLOSED = (Stage.PUBLISHING, Stage.PUBLISHED, Stage.FAILED, Stage.ROLLED_BACK)
HIGH_RISK_PROCEDURE = ("decision", "task_fact")  # "decision or procedure" (docs/decisions.md)


class Rewriter(Protocol):
    # read-only: a rewriter may compute them (the LLM rewriter names its model)
    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    def rewrite(self, items: list[dict[str, Any]], batch_no: int) -> tuple[dict[str, Any], int]:
        """One batch body and the tokens it cost."""
        ...


@dataclass
class RulesRewriter:
    registry: Registry
    name: str = rules.REWRITER
    model: str | None = None

    def rewrite(self, items: list[dict[str, Any]], batch_no: int) -> tuple[dict[str, Any], int]:
        return rules.rewrite(items, self.registry, batch_no), 0


def take_snapshot(
    principal: Principal,
    tenant_id: str,
    subjects: list[str] | None,
    *,
    run_id: str | None = None,
    batch_size: int = DEFAULT_BATCH,
    engine: Engine | None = None,
) -> dict[str, Any]:
    """Freeze the recallable memories of ``subjects`` (None: every subject) into a run."""
    allow(principal, Scope.ADMIN, tenant_id)
    if subjects is not None and not subjects:
        raise CurateRefused("no_subjects", "name --subject at least once, or --all-subjects")
    chosen = sorted(set(subjects)) if subjects is not None else [ALL]
    if batch_size < 1:
        raise CurateRefused("bad_batch_size", "batch size must be at least 1")
    run_id = run_id or "cur_" + uuid.uuid4().hex[:16]
    now = utcnow()
    with unit_of_work(engine or get_engine()) as uow:
        if find_run(uow.conn, run_id, tenant_id) is not None:
            raise CurateRefused("run_exists", f"run {run_id} exists; snapshots are immutable")
        items = current_items(uow.conn, tenant_id, chosen, now)
        text, digest = package.build(
            tenant_id=tenant_id, subjects=chosen, taken_at=rfc3339(now) or "", items=items
        )
        _insert_run(
            uow.conn,
            dict(
                run_id=run_id,
                tenant_id=tenant_id,
                subjects=json.dumps(chosen),
                stage=Stage.SNAPSHOT,
                planner=principal.principal_id,
                snapshot_hash=digest,
                package=text,
                source_count=len(items),
                batch_size=batch_size,
                created_at=now,
                updated_at=now,
            ),
        )
        run = get_run(uow.conn, run_id, tenant_id)
        out = status(uow.conn, run)
        uow.commit()
    return out


def _insert_run(conn: Connection, values: dict[str, Any]) -> None:
    """A concurrent snapshot of the same id in the same tenant wins the key: a 409 refusal
    here, never an unhandled integrity error (the id is the client's choice)."""
    try:
        with conn.begin_nested():
            conn.execute(curate_runs.insert().values(**values))
    except IntegrityError:
        raise CurateRefused(
            "run_exists", f"run {values['run_id']} exists; snapshots are immutable"
        ) from None


def batches(items: list[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    """Whole subjects per batch (a rewriter must see a subject's memories together), in
    subject order, up to ``size`` memories; a larger subject is a batch of its own."""
    by_subject: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_subject[item["subject_id"]].append(item)
    out: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    for subject in sorted(by_subject):
        group = sorted(by_subject[subject], key=lambda i: i["source"])
        if current and len(current) + len(group) > size:
            out.append(current)
            current = []
        current.extend(group)
    if current:
        out.append(current)
    return out


class RewriterStopped(Exception):
    """The rewriter stops gracefully (budget spent, model unreachable or malformed); the
    finished batches stay in the ledger and ``plan`` resumes after them."""


def make_plan(
    principal: Principal,
    run_id: str,
    rewriter: Rewriter,
    *,
    engine: Engine | None = None,
) -> dict[str, Any]:
    """Run the rewriter over every batch not yet in the ledger. Each finished batch is
    committed on its own, so a crash or an exhausted budget resumes after the last one."""
    engine = engine or get_engine()
    with unit_of_work(engine) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        _refuse_unless_plannable(principal, run, rewriter)
        done = {r.batch_no for r in ledger(uow.conn, run) if r.entry == "batch"}
        todo = batches(items_of(run), run.batch_size)
        set_stage(uow.conn, run, Stage.PLANNING, utcnow(), rewriter=rewriter.name)
        uow.commit()
    stopped = None
    for batch_no, items in enumerate(todo):
        if batch_no in done:
            continue  # finished before a crash: never sent to the rewriter again
        try:
            body, tokens = rewriter.rewrite(items, batch_no)
        except RewriterStopped as exc:
            stopped = str(exc) or "stopped"
            break
        _append_batch(engine, principal, run, rewriter, batch_no, body, tokens)
    with unit_of_work(engine) as uow:
        finished = {r.batch_no for r in ledger(uow.conn, run) if r.entry == "batch"}
        complete = finished >= set(range(len(todo)))
        set_stage(
            uow.conn,
            run,
            Stage.PLANNED if complete else Stage.PLANNING,
            utcnow(),
            outcome={"batches": len(todo), "finished": len(finished), "stopped": stopped},
        )
        out = status(uow.conn, get_run(uow.conn, run_id, run.tenant_id))
        uow.commit()
    return out


def _refuse_unless_plannable(principal: Principal, run: Any, rewriter: Rewriter) -> None:
    allow(principal, Scope.ADMIN, run.tenant_id)
    if principal.principal_id != run.planner:
        raise CurateRefused("not_the_planner", f"run {run.run_id} is planned by {run.planner}")
    if run.stage not in (Stage.SNAPSHOT, Stage.PLANNING):
        raise CurateRefused("already_planned", f"run {run.run_id} is at stage {run.stage}")
    if run.rewriter and run.rewriter != rewriter.name:
        raise CurateRefused(
            "rewriter_changed", f"run {run.run_id} was planned by {run.rewriter}; resume with it"
        )


def _append_batch(
    engine: Engine,
    principal: Principal,
    run: RunRef,
    rewriter: Rewriter,
    batch_no: int,
    body: dict[str, Any],
    tokens: Any,
) -> None:
    """One finished batch into the ledger, in its own transaction."""
    try:
        with unit_of_work(engine) as uow:
            append(
                uow.conn,
                run,
                "batch",
                {**body, "batch_no": batch_no, "rewriter": rewriter.name},
                author=principal.principal_id,
                now=utcnow(),
                batch_no=batch_no,
                tokens=tokens,
            )
            uow.commit()
    except IntegrityError:
        # another plan of this run appended first (the batch, or the same seq): the ledger
        # keeps the first; anything left over is picked up by the next resume
        pass


def check_plan(
    principal: Principal,
    run_id: str,
    *,
    engine: Engine | None = None,
    registry: Registry | None = None,
) -> dict[str, Any]:
    """Coverage and grounding; the run moves to ``checked`` or ``check_failed`` (with the
    list of problems in ``outcome``)."""
    with unit_of_work(engine or get_engine()) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow_reader(principal, run.tenant_id)
        if run.stage in (Stage.SNAPSHOT, Stage.PLANNING):
            raise CurateRefused("not_planned", f"run {run_id} has no finished plan yet")
        found, phash, _ = plan_problems(uow.conn, run, registry or default_registry())
        if run.stage in (Stage.PLANNED, Stage.CHECKED, Stage.CHECK_FAILED):
            set_stage(
                uow.conn,
                run,
                Stage.CHECK_FAILED if found else Stage.CHECKED,
                utcnow(),
                outcome={"plan_hash": phash, "problems": found},
            )
        out = status(uow.conn, get_run(uow.conn, run_id, run.tenant_id))
        uow.commit()
    return {**out, "problems": found}


class PlanReviewer(Protocol):
    @property
    def model(self) -> str: ...

    def review(self, items: list[dict[str, Any]], plan: dict[str, Any]) -> list[dict[str, Any]]:
        """Objections (empty: approve)."""
        ...


def review_plan(
    principal: Principal,
    run_id: str,
    *,
    approve: bool = True,
    reviewer: PlanReviewer | None = None,
    engine: Engine | None = None,
    registry: Registry | None = None,
) -> dict[str, Any]:
    """An independent review bound to the plan hash: another principal than the planner
    and, for a model-written plan, another model too."""
    with unit_of_work(engine or get_engine()) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow(principal, Scope.REVIEW, run.tenant_id)
        if principal.principal_id == run.planner:
            raise CurateRefused(
                "reviewer_is_planner", "review refused: the planner cannot review their own plan"
            )
        if run.stage in CLOSED:
            raise CurateRefused("closed", f"review refused: run {run_id} is {run.stage}")
        found, phash, folded = plan_problems(uow.conn, run, registry or default_registry())
        if run.stage in (Stage.SNAPSHOT, Stage.PLANNING) or found:
            raise CurateRefused(
                "coverage_incomplete",
                f"review refused: the plan does not pass the check ({len(found)} problems)",
                found,
            )
        _refuse_reviewer(run, reviewer)
        objections = reviewer.review(items_of(run), folded) if reviewer else []
        verdict = "approved" if approve and not objections else "changes_requested"
        add_signoff(
            uow.conn,
            run,
            "review",
            principal.principal_id,
            phash,
            verdict,
            utcnow(),
            model=reviewer.model if reviewer else None,
            statement={"objections": objections},
        )
        if verdict == "approved":
            set_stage(uow.conn, run, Stage.REVIEWED, utcnow())
        out = status(uow.conn, get_run(uow.conn, run_id, run.tenant_id))
        uow.commit()
    return {**out, "verdict": verdict, "objections": objections}


def _refuse_reviewer(run: Any, reviewer: PlanReviewer | None) -> None:
    """A model-written plan is reviewed by another model."""
    rewriter_model = _model_of(run.rewriter)
    if rewriter_model is None:
        return
    if reviewer is None:
        raise CurateRefused(
            "reviewer_model_required",
            "review refused: a model wrote this plan; another model must review it",
        )
    if reviewer.model == rewriter_model:
        raise CurateRefused(
            "reviewer_is_rewriter",
            f"review refused: {reviewer.model} wrote the plan and cannot review it",
        )


def _model_of(rewriter: str | None) -> str | None:
    """The model behind an ``llm-<model>-<prompt version>`` rewriter name."""
    if not rewriter or not rewriter.startswith("llm-"):
        return None
    return rewriter[4:].rsplit("-", 1)[0]


def attest_plan(
    principal: Principal,
    run_id: str,
    statement: dict[str, Any],
    *,
    engine: Engine | None = None,
) -> dict[str, Any]:
    """A person with memory:admin, not the planner, signs that they saw the catalogue and
    sampled mappings; the signature names the plan hash and is void for any other."""
    with unit_of_work(engine or get_engine()) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow(principal, Scope.ADMIN, run.tenant_id)
        if principal.principal_id == run.planner:
            raise CurateRefused(
                "attester_is_planner", "attest refused: the planner cannot attest their own plan"
            )
        if run.stage in CLOSED:
            raise CurateRefused("closed", f"attest refused: run {run_id} is {run.stage}")
        _, phash = current_plan(uow.conn, run)
        if statement.get("plan_hash") != phash:
            raise CurateRefused(
                "hash_mismatch",
                f"attest refused: the statement names plan {statement.get('plan_hash')}, "
                f"the plan is {phash}; a signature for one plan is void for any other",
            )
        if not any(
            s.verdict == "approved" and s.plan_hash == phash
            for s in signoffs(uow.conn, run, "review")
        ):
            raise CurateRefused("not_reviewed", "attest refused: no review approved this plan")
        if statement.get("saw_catalogue") is not True:
            raise CurateRefused("catalogue_unseen", "attest refused: saw_catalogue must be true")
        _sample_covers_risk(statement.get("sampled"), items_of(run))
        add_signoff(
            uow.conn,
            run,
            "attest",
            principal.principal_id,
            phash,
            "approved",
            utcnow(),
            statement=statement,
        )
        set_stage(uow.conn, run, Stage.ATTESTED, utcnow())
        out = status(uow.conn, get_run(uow.conn, run_id, run.tenant_id))
        uow.commit()
    return out


def _sample_covers_risk(sampled: Any, items: list[dict[str, Any]]) -> None:
    if not isinstance(sampled, list) or not sampled:
        raise CurateRefused("no_sample", "attest refused: list the sampled source ids")
    kinds = {i["source"]: i["kind"] for i in items}
    unknown = [s for s in sampled if s not in kinds]
    if unknown:
        raise CurateRefused("unknown_sample", f"attest refused: not in the plan: {unknown[:5]}")
    seen = {kinds[s] for s in sampled}
    present = set(kinds.values())
    if "preference" in present and "preference" not in seen:
        raise CurateRefused(
            "sample_misses_preference",
            "attest refused: the sample must include at least one preference",
        )
    if present & set(HIGH_RISK_PROCEDURE) and not seen & set(HIGH_RISK_PROCEDURE):
        raise CurateRefused(
            "sample_misses_decision",
            "attest refused: the sample must include a decision or procedure (task_fact)",
        )
