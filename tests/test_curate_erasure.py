"""Forget reaches curate (issue 21 item 5): a snapshot package and its run's ledger keep no
forgotten content, a rollback never brings it back, and the audit finds what is left."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, update

from memwarden_curate.publish import rollback
from memwarden_curate.runs import CurateRefused
from memwarden_curate.stages import check_plan, take_snapshot
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import curate_runs
from memwarden_shared.store.tenant_scope import all_tenants
from memwarden_usecases import retract
from memwarden_usecases.audit import audit
from memwarden_usecases.pipeline import drain
from tests.curate_helpers import curate, people, say_all, the_run, values

# Values the registry's catalogue knows (deny by default commits nothing else on its own)
_SPEC = default_registry().get("preference", "preference.editor")
assert _SPEC is not None
EDITORS = sorted(e for e in _SPEC.aliases if e.isascii() and e.isalpha() and len(e) >= 4)
SETTINGS = settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def _lines(editor: str) -> list[tuple[str, str, str]]:
    return [
        ("m-keep", "u1", "Remember that I deploy only on Tuesdays."),
        ("m-forget", "u1", f"I use {editor} as my editor."),
    ]


def _curate_findings(engine: Engine, tenant: str) -> list[dict[str, object]]:
    with all_tenants("test reads the audit"):
        report = audit(tenant, engine=engine)
    return [f for f in report.findings if str(f["where"]).startswith("curate")]


@SETTINGS
@given(editor=st.sampled_from(EDITORS))
def test_forget__a_snapshot_taken_before_keeps_no_forgotten_value(
    sqlite_engine: Engine, editor: str
) -> None:
    tenant = "t-" + uuid.uuid4().hex[:10]
    say_all(sqlite_engine, tenant, _lines(editor))
    assert editor in " ".join(values(sqlite_engine, tenant))
    run_id = take_snapshot(people(tenant)["planner"], tenant, ["u1"], engine=sqlite_engine)[
        "run_id"
    ]
    with sqlite_engine.connect() as conn:
        before = the_run(conn, run_id).package
    assert editor in before

    retract.forget(sqlite_engine, tenant, "m-forget")
    drain(sqlite_engine)

    with sqlite_engine.connect() as conn:
        run = the_run(conn, run_id)
    assert editor not in run.package and "Tuesdays" in run.package  # only the forgotten item
    assert run.erased_at is not None
    assert _curate_findings(sqlite_engine, tenant) == []
    with pytest.raises(CurateRefused) as refused:  # a plan on what is left would mislead
        check_plan(people(tenant)["planner"], run_id, engine=sqlite_engine)
    assert refused.value.code in ("snapshot_erased", "not_planned")

    # the audit is the net under the erasure: put the frozen value back, it is found
    with all_tenants("test plants residue"), unit_of_work(sqlite_engine) as uow:
        uow.conn.execute(
            update(curate_runs)
            .where(curate_runs.c.tenant_id == tenant, curate_runs.c.run_id == run_id)
            .values(package=before)
        )
        uow.commit()
    assert [f["where"] for f in _curate_findings(sqlite_engine, tenant)] == ["curate_runs"]


@pytest.mark.parametrize("store", ["sqlite", "postgres"], indirect=True)
def test_forget__after_a_publish_rollback_restores_only_what_was_not_forgotten(
    store: Engine, tenant: str
) -> None:
    say_all(store, tenant, [*_lines(EDITORS[0]), ("m-2", "u1", "I prefer pnpm for my projects.")])
    out = curate(store, tenant, subjects=["u1"])
    retract.forget(store, tenant, "m-forget")
    drain(store)
    with store.connect() as conn:
        assert EDITORS[0] not in the_run(conn, out["run_id"]).package
    back = rollback(people(tenant)["planner"], out["run_id"], engine=store)
    assert back["stage"] == "rolled_back"
    drain(store)
    after = " ".join(values(store, tenant))
    assert EDITORS[0] not in after and "pnpm" in after
    assert _curate_findings(store, tenant) == []
