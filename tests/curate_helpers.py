"""Small factories for the curate tests: memories through the real pipeline, principals,
and a run taken to any stage."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine, select

from memwarden_curate.publish import publish
from memwarden_curate.runs import CurateRefused, Stage, allow, append, get_run, set_stage, status
from memwarden_curate.stages import (
    CLOSED,
    RulesRewriter,
    attest_plan,
    check_plan,
    make_plan,
    review_plan,
    take_snapshot,
)
from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.state.auth import Principal, Scope
from memwarden_shared.store.db import get_engine, unit_of_work, utcnow
from memwarden_shared.store.schema import curate_runs
from memwarden_usecases.pipeline import drain
from tests.conftest import turn_dict


def people(tenant: str) -> dict[str, Principal]:
    return {
        "planner": Principal("planner", tenant, frozenset({Scope.ADMIN})),
        "reviewer": Principal("reviewer", tenant, frozenset({Scope.REVIEW})),
        "attester": Principal("attester", tenant, frozenset({Scope.ADMIN})),
    }


def say_all(engine: Engine, tenant: str, lines: list[tuple[str, str, str]]) -> None:
    """``(message_id, subject, text)``; one day apart, in order, then the pipeline runs."""
    turns = [
        Turn.model_validate(
            turn_dict(
                tenant,
                text,
                message_id=mid,
                subject=subject,
                created_at=f"2026-05-{1 + n % 28:02d}T09:00:00Z",
            )
        )
        for n, (mid, subject, text) in enumerate(lines)
    ]
    ingest_turns(turns, engine=engine)
    drain(engine)


def values(engine: Engine, tenant: str, subject: str = "u1") -> list[str]:
    return sorted(str(m.value) for m in recall(tenant, subject, engine=engine, k=1000))


def statement(out: dict[str, Any], sampled: list[str]) -> dict[str, Any]:
    return {"plan_hash": out["plan_hash"], "saw_catalogue": True, "sampled": sampled}


def sample_of(engine: Engine, tenant: str, run_id: str) -> list[str]:
    """One source of each kind in the run: a sample that covers the high-risk kinds."""
    from memwarden_curate.runs import get_run, items_of
    from memwarden_shared.store.db import unit_of_work

    with unit_of_work(engine) as uow:
        items = items_of(get_run(uow.conn, run_id, tenant))
    first: dict[str, str] = {}
    for item in items:
        first.setdefault(item["kind"], item["source"])
    return sorted(first.values())


def to_attested(
    engine: Engine, tenant: str, subjects: list[str] | None = None, **snap: Any
) -> dict[str, Any]:
    who = people(tenant)
    out = take_snapshot(who["planner"], tenant, subjects, engine=engine, **snap)
    run = out["run_id"]
    make_plan(who["planner"], run, RulesRewriter(default_registry()), engine=engine)
    check = check_plan(who["planner"], run, engine=engine)
    assert check["problems"] == [], check["problems"]
    reviewed = review_plan(who["reviewer"], run, engine=engine)
    return attest_plan(
        who["attester"], run, statement(reviewed, sample_of(engine, tenant, run)), engine=engine
    )


def curate(engine: Engine, tenant: str, **kw: Any) -> dict[str, Any]:
    attested = to_attested(engine, tenant, **kw)
    return publish(people(tenant)["planner"], attested["run_id"], engine=engine)


def the_run(conn: Connection, run_id: str) -> Any:
    """The run of ``run_id`` the test's scope sees (test run ids are random: one per id)."""
    return conn.execute(select(curate_runs).where(curate_runs.c.run_id == run_id)).one()


def edit_plan(
    principal: Principal,
    run_id: str,
    *,
    dispositions: list[dict[str, Any]],
    targets: list[dict[str, Any]] | None = None,
    engine: Engine | None = None,
) -> dict[str, Any]:
    """Append an ``edit`` entry to a run's ledger (plan.py folds it into the plan): the plan
    hash changes, which voids every earlier sign-off. No door writes edits; the tests do,
    to change a plan after its sign-offs."""
    with unit_of_work(engine or get_engine()) as uow:
        run = get_run(uow.conn, run_id, principal.tenant_id)
        allow(principal, Scope.ADMIN, run.tenant_id)
        if run.stage in (Stage.SNAPSHOT, Stage.PLANNING):
            raise CurateRefused("not_planned", f"run {run_id} has no finished plan to edit")
        if run.stage in CLOSED:
            raise CurateRefused("closed", f"run {run_id} is {run.stage}; plans are frozen")
        body = {"dispositions": dispositions, "targets": targets or []}
        append(uow.conn, run, "edit", body, author=principal.principal_id, now=utcnow())
        set_stage(uow.conn, run, Stage.PLANNED, utcnow())
        out = status(uow.conn, get_run(uow.conn, run_id, run.tenant_id))
        uow.commit()
    return out
