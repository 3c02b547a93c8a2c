"""Curate (SPEC §15): the same stages as ``memwarden curate``, over HTTP.

Each answer carries ``run_id``, ``stage``, ``hash`` and counts. Refusals are 409 problems
with a stable code (``reviewer_is_planner``, ``not_attested``, ``plan_changed``, …); a
run of another tenant is 404, like one that does not exist.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.responses import PlainTextResponse
from pydantic import Field, model_validator

from memwarden.api import problems
from memwarden.api.problems import Problem
from memwarden.api.schemas import HEX64, Body
from memwarden.api.security import Authenticated
from memwarden.api.state import StateDep
from memwarden.api.strict_json import StrictJsonRoute
from memwarden_usecases import curate
from memwarden_usecases.curate import CurateRefused, LlmError

router = APIRouter(
    route_class=StrictJsonRoute,
    prefix="/v1/curate",
    tags=["curate"],
    responses=problems.responses(401, 403, 404, 409, 422),
)

RunId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_.:-]{1,100}$", description="a curate run")]
Out = dict[str, Any]


class SnapshotIn(Body):
    subjects: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        default=None, max_length=10_000, description="the subjects; omit with all_subjects"
    )
    all_subjects: bool = False
    run_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.:-]{1,100}$")
    batch_size: int = Field(default=200, ge=1, le=10_000)

    @model_validator(mode="after")
    def one_scope(self) -> SnapshotIn:
        if bool(self.subjects) == self.all_subjects:
            raise ValueError("give subjects or all_subjects, not both or neither")
        return self


class PlanIn(Body):
    rewriter: str = Field(default="rules", pattern=r"^(rules|llm)$")


class ReviewIn(Body):
    approve: bool = True
    reviewer_model: str | None = Field(default=None, min_length=1, max_length=120)


class AttestIn(Body):
    plan_hash: str = Field(pattern=HEX64, description="the plan hash the attester saw")
    saw_catalogue: bool
    sampled: list[Annotated[str, Field(min_length=1, max_length=300)]] = Field(max_length=10_000)
    note: str | None = Field(default=None, max_length=4000)


def _refused(exc: CurateRefused) -> Problem:
    if exc.code == "unknown_run":
        return Problem(404, str(exc), code=exc.code)
    if exc.code == "forbidden":
        return Problem(403, str(exc), code="missing_scope")
    return Problem(409, str(exc), code=exc.code, title="Curate refused")


def _run(call: Any) -> Out:
    try:
        return curate.summary(call())
    except CurateRefused as exc:
        raise _refused(exc) from None
    except LlmError as exc:  # the reviewer model failed: only the code, never text
        raise Problem(
            502, f"the model call failed: {exc.failure.value}", code="llm_failed"
        ) from None


@router.post("/runs", summary="Snapshot: freeze memories into a run")
def post_snapshot(body: SnapshotIn, state: StateDep, principal: Authenticated) -> Out:
    subjects = None if body.all_subjects else body.subjects
    return _run(
        lambda: curate.snapshot(
            state.engine, principal, subjects, run_id=body.run_id, batch_size=body.batch_size
        )
    )


@router.get("/runs/{run_id}", summary="Status: stage, hashes, counts, ledger")
def get_status(run_id: RunId, state: StateDep, principal: Authenticated) -> Out:
    return _run(lambda: curate.run_status(state.engine, principal, run_id))


@router.get("/runs/{run_id}/plan", summary="The catalogue: every source beside its disposition")
def get_plan(run_id: RunId, state: StateDep, principal: Authenticated) -> Out:
    return _run(lambda: curate.catalogue(state.engine, principal, run_id))


@router.get(
    "/runs/{run_id}/snapshot.jsonl",
    response_class=PlainTextResponse,
    summary="The snapshot package as JSONL (header line, then one memory per line)",
)
def get_snapshot(run_id: RunId, state: StateDep, principal: Authenticated) -> PlainTextResponse:
    try:
        text = curate.export(state.engine, principal, run_id)
    except CurateRefused as exc:
        raise _refused(exc) from None
    return PlainTextResponse(text, media_type="application/jsonl")


@router.post("/runs/{run_id}/plan", summary="Plan: run the rewriter over unfinished batches")
def post_plan(run_id: RunId, body: PlanIn, state: StateDep, principal: Authenticated) -> Out:
    return _run(lambda: curate.plan(state.engine, principal, run_id, body.rewriter, state.settings))


@router.post("/runs/{run_id}/check", summary="Check: coverage and grounding")
def post_check(run_id: RunId, state: StateDep, principal: Authenticated) -> Out:
    return _run(lambda: curate.check(state.engine, principal, run_id))


@router.post("/runs/{run_id}/review", summary="Review: an independent approval bound to the hash")
def post_review(run_id: RunId, body: ReviewIn, state: StateDep, principal: Authenticated) -> Out:
    return _run(
        lambda: curate.review(
            state.engine,
            principal,
            run_id,
            approve=body.approve,
            reviewer_model=body.reviewer_model,
            settings=state.settings,
        )
    )


@router.post("/runs/{run_id}/attest", summary="Attest: a person signs for the plan hash")
def post_attest(run_id: RunId, body: AttestIn, state: StateDep, principal: Authenticated) -> Out:
    return _run(lambda: curate.attest(state.engine, principal, run_id, body.model_dump()))


@router.post("/runs/{run_id}/publish", summary="Publish: the switch, behind a recall block")
def post_publish(run_id: RunId, state: StateDep, principal: Authenticated) -> Out:
    out = _run(lambda: curate.publish(state.engine, principal, run_id))
    state.after_write()
    return out


@router.post("/runs/{run_id}/rollback", summary="Rollback: restore the snapshot as new versions")
def post_rollback(run_id: RunId, state: StateDep, principal: Authenticated) -> Out:
    out = _run(lambda: curate.rollback(state.engine, principal, run_id))
    state.after_write()
    return out
