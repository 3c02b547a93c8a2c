"""Repair that closes (seed 002 retraction as repair, steps 5-7) and who saw what (the read
log), on both stores."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client import REGISTRY
from sqlalchemy import Engine, func, select

from memwarden_actions.lifecycle import OutcomeStatus, report_outcome
from memwarden_actions.request import ActionRequest
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.state import read_log
from memwarden_shared.state.auth import Forbidden, Principal, Scope
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.schema import read_log as read_log_table
from memwarden_usecases import act as act_usecase
from memwarden_usecases import provenance, repair
from memwarden_usecases.pipeline import drain
from memwarden_usecases.recall import recall
from tests.actions_helpers import act, agent, memory_of, say


def _reviewer(tenant: str) -> Principal:
    return Principal("rev-1", tenant, frozenset({Scope.REVIEW}))


def _metric(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _total(sample: str) -> float:
    """A counter summed over its labels."""
    return sum(s.value for family in REGISTRY.collect() for s in family.samples if s.name == sample)


def test_repair__an_executed_effect_is_tracked_until_someone_closes_it(
    store: Engine, tenant: str
) -> None:
    mid = say(store, tenant, "I use npm for every project")
    memory_id, _ = memory_of(store, tenant, mid)
    executed = act(store, tenant, "package.install", [memory_id])
    waiting = act(store, tenant, "package.install", [memory_id], key="second")
    report_outcome(
        agent(tenant), tenant, executed["action_id"], OutcomeStatus.EXECUTED, "job-9", engine=store
    )
    rechecks = _total("memwarden_action_rechecks_failed_total")
    revoke_message(tenant, mid, engine=store)
    drain(store)
    # the action not yet executed was re-asked and no longer passes; the executed one is open
    assert _total("memwarden_action_rechecks_failed_total") == rechecks + 1
    [open_repair] = repair.repairs(store, tenant)
    assert (open_repair["action_id"], open_repair["state"]) == (
        executed["action_id"],
        "needs_repair",
    )
    assert open_repair["external_ref"] == "job-9" and open_repair["needs_repair_since"]
    assert waiting["action_id"] != open_repair["action_id"]

    with pytest.raises(repair.RepairRefused):
        repair.close(store, _reviewer(tenant), tenant, executed["action_id"], "  ")
    with pytest.raises(Forbidden):
        repair.close(store, agent(tenant), tenant, executed["action_id"], "done")

    marked = repair.irreversible(
        store, _reviewer(tenant), tenant, executed["action_id"], "package was published"
    )
    assert (marked["state"], marked["note"]) == ("irreversible", "package was published")
    [still] = repair.repairs(store, tenant)  # irreversible stays on the list until closed
    assert still["state"] == "irreversible"
    assert _metric("memwarden_unrepaired_effects") == 1

    closed = repair.close(store, _reviewer(tenant), tenant, executed["action_id"], "yanked")
    assert (closed["state"], closed["recorded_by"]) == ("repaired", "rev-1")
    assert closed["repaired_at"] is not None
    assert repair.repairs(store, tenant) == []
    assert _metric("memwarden_time_to_repair_seconds_count", outcome="irreversible") >= 1
    with pytest.raises(repair.RepairRefused):  # a closed repair cannot be closed again
        repair.close(store, _reviewer(tenant), tenant, executed["action_id"], "again")


def test_read_log__recall_and_actions_record_who_saw_which_version_never_values(
    store: Engine, tenant: str
) -> None:
    mid = say(store, tenant, "I use npm for every project")
    memory_id, version = memory_of(store, tenant, mid)
    found = recall(store, tenant, "u1", reader="agent-7")
    assert [r.memory_id for r in found] == [memory_id]
    request = ActionRequest(
        tenant_id=tenant,
        subject_id="u1",
        intent="package.install",
        uses=[memory_id],
        idempotency_key="k-1",
    )
    act_usecase.request(store, agent(tenant), request)
    act_usecase.request(store, agent(tenant), request)  # a DUPLICATE read nothing new
    rows = provenance.reads(store, tenant, memory_id)
    assert [(r["surface"], r["principal_id"], r["memory"]) for r in rows] == [
        ("action", "agent-1", f"{memory_id}:{version}"),
        ("recall", "agent-7", f"{memory_id}:{version}"),
    ]
    columns = set(read_log_table.c.keys())
    assert "npm" not in str(rows) and not {"value", "value_json", "query", "text"} & columns


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ages=st.lists(st.integers(min_value=0, max_value=200), min_size=1, max_size=12))
@pytest.mark.spans_tenants
def test_read_log__retention_drops_exactly_the_rows_past_the_window(
    sqlite_engine: Engine, ages: list[int]
) -> None:
    now = utcnow()
    retention = timedelta(days=90).total_seconds()
    with unit_of_work(sqlite_engine) as uow:
        uow.conn.execute(read_log_table.delete())
        for i, days in enumerate(ages):
            rows = read_log.rows_for(
                "t1",
                "u1",
                "p1",
                read_log.Surface.RECALL,
                [(f"mem{i}", 1)],
                now - timedelta(days=days, seconds=1),
            )
            read_log.record(uow.conn, rows)
        gone = read_log.prune(uow.conn, now, retention)
        left = uow.conn.execute(select(func.count()).select_from(read_log_table)).scalar_one()
        uow.commit()
    assert gone == sum(1 for d in ages if d >= 90)
    assert left == len(ages) - gone
