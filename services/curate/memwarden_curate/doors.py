"""What the CLI and the HTTP API call: the stages with their collaborators built from
settings, and the reads (status, the snapshot as JSONL)."""

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
from memwarden_curate.runs import (
    CurateRefused,
    allow_reader,
    current_plan,
    get_run,
    items_of,
    status,
)
from memwarden_curate.stages import PlanReviewer, Rewriter, RulesRewriter
from memwarden_shared.config import Settings
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.state.auth import Principal
from memwarden_shared.store.db import get_engine, unit_of_work

REWRITERS = ("rules", "llm")


def rewriter(name: str, settings: Settings) -> Rewriter:
    if name == "rules":
        return RulesRewriter(default_registry())
    if name == "llm":
        try:
            return LlmRewriter(client_from_settings(settings), budget_from_settings(settings))
        except ValueError as exc:
            raise CurateRefused("llm_not_configured", str(exc)) from None
    raise CurateRefused("unknown_rewriter", f"rewriter must be one of {', '.join(REWRITERS)}")


def reviewer(model: str | None, settings: Settings) -> PlanReviewer | None:
    if not model:
        return None
    try:
        return LlmReviewer(client_from_settings(settings, model))
    except ValueError as exc:
        raise CurateRefused("llm_not_configured", str(exc)) from None


def run_status(
    principal: Principal, run_id: str, *, engine: Engine | None = None
) -> dict[str, Any]:
    with unit_of_work(engine or get_engine()) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow_reader(principal, run.tenant_id)
        return status(uow.conn, run)


def plan_of(principal: Principal, run_id: str, *, engine: Engine | None = None) -> dict[str, Any]:
    """The catalogue a reviewer reads: the folded plan, its hash, and each source's kind,
    key and value beside its disposition."""
    with unit_of_work(engine or get_engine()) as uow:
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


def snapshot_jsonl(principal: Principal, run_id: str, *, engine: Engine | None = None) -> str:
    """The frozen package for people: the header line, then one memory per line."""
    with unit_of_work(engine or get_engine()) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow_reader(principal, run.tenant_id)
        return package.to_jsonl(run.package)


def summary(out: dict[str, Any]) -> dict[str, Any]:
    """``run_id``, ``stage``, ``hash`` and counts first: what every command prints."""
    head: dict[str, Any] = {k: out[k] for k in ("run_id", "stage", "hash", "counts") if k in out}
    return {**head, **{k: v for k, v in out.items() if k not in head}}
