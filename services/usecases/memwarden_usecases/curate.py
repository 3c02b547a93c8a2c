"""Curate (SPEC §15): rewrite a memory base as a release, stage by stage: snapshot, plan,
check, review, attest, publish, rollback, and the reads (status, the catalogue, the
snapshot as JSONL). The collaborators a stage needs (rewriter, reviewer model) are built
here from the settings, so the doors only name them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from memwarden_curate import package
from memwarden_curate.llm import (
    LlmReviewer,
    LlmRewriter,
    budget_from_settings,
    client_from_settings,
)
from memwarden_curate.publish import publish as _publish
from memwarden_curate.publish import rollback as _rollback
from memwarden_curate.runs import (
    CurateRefused,
    allow_reader,
    current_plan,
    get_run,
    items_of,
    status,
)
from memwarden_curate.stages import (
    PlanReviewer,
    Rewriter,
    RulesRewriter,
    attest_plan,
    check_plan,
    make_plan,
    review_plan,
    take_snapshot,
)
from memwarden_shared.config import Settings
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.remote.llm_client import LlmError
from memwarden_shared.state.auth import Principal
from memwarden_shared.store.db import unit_of_work

__all__ = [
    "REWRITERS",
    "CurateRefused",
    "LlmError",
    "attest",
    "catalogue",
    "check",
    "export",
    "plan",
    "publish",
    "review",
    "rollback",
    "run_status",
    "snapshot",
    "summary",
]

REWRITERS = ("rules", "llm")
Out = dict[str, Any]


def snapshot(
    engine: Engine,
    principal: Principal,
    subjects: list[str] | None,
    *,
    run_id: str | None,
    batch_size: int,
) -> Out:
    """Freeze the recallable memories of ``subjects`` (None: every subject of the
    principal's tenant) into a new run."""
    return take_snapshot(
        principal,
        principal.tenant_id,
        subjects,
        run_id=run_id,
        batch_size=batch_size,
        engine=engine,
    )


def plan(
    engine: Engine, principal: Principal, run_id: str, rewriter: str, settings: Settings
) -> Out:
    """Run the named rewriter (``rules`` or ``llm``) over the unfinished batches."""
    return make_plan(principal, run_id, _rewriter(rewriter, settings), engine=engine)


def check(engine: Engine, principal: Principal, run_id: str) -> Out:
    """Coverage and grounding of the plan; ``problems`` lists what fails."""
    return check_plan(principal, run_id, engine=engine)


def review(
    engine: Engine,
    principal: Principal,
    run_id: str,
    *,
    approve: bool,
    reviewer_model: str | None,
    settings: Settings,
) -> Out:
    """An independent review bound to the plan hash (another principal; for a model-written
    plan, another model named by ``reviewer_model``)."""
    return review_plan(
        principal,
        run_id,
        approve=approve,
        reviewer=_reviewer(reviewer_model, settings),
        engine=engine,
    )


def attest(engine: Engine, principal: Principal, run_id: str, statement: dict[str, Any]) -> Out:
    """A person signs for the plan hash: saw the catalogue, sampled mappings."""
    return attest_plan(principal, run_id, statement, engine=engine)


def publish(engine: Engine, principal: Principal, run_id: str) -> Out:
    """The switch, behind a recall block."""
    return _publish(principal, run_id, engine=engine)


def rollback(engine: Engine, principal: Principal, run_id: str) -> Out:
    """Restore the snapshot as new versions."""
    return _rollback(principal, run_id, engine=engine)


def run_status(engine: Engine, principal: Principal, run_id: str) -> Out:
    """Stage, hashes, counts and ledger of a run the principal may read."""
    with unit_of_work(engine) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow_reader(principal, run.tenant_id)
        return status(uow.conn, run)


def catalogue(engine: Engine, principal: Principal, run_id: str) -> Out:
    """The catalogue a reviewer reads: the folded plan, its hash, and each source's kind,
    key and value beside its disposition."""
    with unit_of_work(engine) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow_reader(principal, run.tenant_id)
        folded, phash = current_plan(uow.conn, run)
        items = items_of(run)
    return {
        "run_id": run_id,
        "stage": run.stage,
        "hash": phash,
        "plan_hash": phash,
        "sources": [
            {k: i[k] for k in ("source", "subject_id", "kind", "normalized_key", "value")}
            for i in items
        ],
        **folded,
    }


def export(engine: Engine, principal: Principal, run_id: str) -> str:
    """The frozen package for people: the header line, then one memory per line."""
    with unit_of_work(engine) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow_reader(principal, run.tenant_id)
        return package.to_jsonl(run.package)


def summary(out: Out) -> Out:
    """``run_id``, ``stage``, ``hash`` and counts first: what every door shows."""
    head: Out = {k: out[k] for k in ("run_id", "stage", "hash", "counts") if k in out}
    return {**head, **{k: v for k, v in out.items() if k not in head}}


def _rewriter(name: str, settings: Settings) -> Rewriter:
    if name == "rules":
        return RulesRewriter(default_registry())
    if name == "llm":
        try:
            return LlmRewriter(client_from_settings(settings), budget_from_settings(settings))
        except ValueError as exc:
            raise CurateRefused("llm_not_configured", str(exc)) from None
    raise CurateRefused("unknown_rewriter", f"rewriter must be one of {', '.join(REWRITERS)}")


def _reviewer(model: str | None, settings: Settings) -> PlanReviewer | None:
    if not model:
        return None
    try:
        return LlmReviewer(client_from_settings(settings, model))
    except ValueError as exc:
        raise CurateRefused("llm_not_configured", str(exc)) from None
