"""Hard rollback (seed 000): the commit switch on both stores. While it is closed nothing
commits (the would-be decision is kept), reads serve what was committed before, the feed
says so; it closes by itself on a cross-tenant write, a stored secret or revocation residue;
only memory:admin with a reason opens it."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, insert, select, update

from memwarden_gate.io import decide_batch
from memwarden_gate.review import ReviewRefused, approve
from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_shared.config import get_settings
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.state import commit_switch
from memwarden_shared.state.auth import Forbidden, Principal, Scope
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.schema import (
    current_memories,
    memory_evidence,
    messages,
    outbox,
    switch_quarantine,
)
from memwarden_shared.store.tenant_scope import all_tenants
from memwarden_usecases import switch
from tests.conftest import in_this_context, turn_dict

# Editors the registry's catalogue knows (an unknown one goes to the owner, deny by default)
_EDITOR_SPEC = default_registry().get("preference", "preference.editor")
assert _EDITOR_SPEC is not None
EDITORS = tuple(sorted(e for e in _EDITOR_SPEC.aliases if e.isascii() and e.isalpha()))


def _commit(engine: Engine, tenant: str, make: Callable[..., dict[str, Any]], value: str) -> Any:
    message_id = "m-" + uuid.uuid4().hex[:8]
    text = f"I prefer {value}."
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id))],
        engine=engine,
        extract=False,
    )
    [receipt] = decide_batch(
        [make(tenant, message_id, text, normalized_key="preference.editor", value=value)],
        engine=engine,
    )
    return receipt


def _admin(tenant: str) -> Principal:
    return Principal("admin-1", tenant, frozenset({Scope.ADMIN}))


def _reviewer(tenant: str) -> Principal:
    return Principal("rev-1", tenant, frozenset({Scope.REVIEW}))


def _feed(engine: Engine, tenant: str, topic: str) -> list[dict[str, Any]]:
    with all_tenants("test reads the feed"), unit_of_work(engine) as uow:
        rows = uow.conn.execute(
            select(outbox.c.payload).where(outbox.c.tenant_id == tenant, outbox.c.topic == topic)
        ).all()
    return [json.loads(r.payload) for r in rows]


def test_switch__closed_holds_commits_keeps_the_would_be_decision_and_last_good_reads(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    assert _commit(store, tenant, make_proposal, "vim").decision == "COMMIT"
    assert switch.close(store, _reviewer(tenant), tenant, "drill") is True
    assert switch.close(store, _reviewer(tenant), tenant, "drill again") is False  # idempotent
    held = _commit(store, tenant, make_proposal, "emacs")
    assert (held.decision, held.reasons) == ("QUARANTINE", ["commit_switch_closed"])
    assert held.authority == "switch:closed"
    assert held.checks is not None and held.checks["commit_switch"] == "failed"
    [row] = switch.quarantined(store, _reviewer(tenant), tenant)
    assert (row["proposal_id"], row["would_be_decision"]) == (held.proposal_id, "CONFIRM_REPLACE")
    assert row["switch_reason"] == "drill"
    assert [m.value for m in recall(tenant, "u1", engine=store)] == ["vim"]  # last good state
    assert [e["reason"] for e in _feed(store, tenant, "commit_switch.closed")] == ["drill"]
    assert switch.status(store, _reviewer(tenant), tenant)["commits"] == "held"

    with pytest.raises(Forbidden):
        switch.open_(store, _reviewer(tenant), tenant, "done")
    with pytest.raises(switch.OpenRefused):
        switch.open_(store, _admin(tenant), tenant, "   ")
    assert switch.open_(store, _admin(tenant), tenant, "drill over") is True
    assert [e["by"] for e in _feed(store, tenant, "commit_switch.opened")] == ["admin-1"]
    assert _commit(store, tenant, make_proposal, "helix").decision == "CONFIRM_REPLACE"


def test_switch__an_approval_is_a_commit_and_waits_too(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    _commit(store, tenant, make_proposal, "vim")
    pending = _commit(store, tenant, make_proposal, "emacs")
    switch.close(store, _reviewer(tenant), tenant, "incident")
    with pytest.raises(ReviewRefused, match="commit_switch_closed"):
        approve(_reviewer(tenant), tenant, pending.proposal_id, pending.payload_hash, engine=store)
    assert [m.value for m in recall(tenant, "u1", engine=store)] == ["vim"]


@pytest.mark.spans_tenants
def test_switch__the_global_switch_holds_every_tenant(
    store: Engine, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    a, b = ("t-" + uuid.uuid4().hex[:8] for _ in range(2))
    switch.close(store, _admin(a), a, "all hands", everyone=True)
    try:
        for t in (a, b):
            assert _commit(store, t, make_proposal, "nano").decision == "QUARANTINE"
        assert switch.status(store, _reviewer(b), b)["held_by"] == commit_switch.GLOBAL
    finally:
        switch.open_(store, _admin(a), a, "all clear", everyone=True)
    assert _commit(store, b, make_proposal, "micro").decision == "COMMIT"


def _plant(engine: Engine, tenant: str, trigger: commit_switch.Trigger, memory: Any) -> None:
    """Put the store into the state the trigger is about, behind the gate's back."""
    with all_tenants("test plants a bad state"), unit_of_work(engine) as uow:
        conn = uow.conn
        if trigger == commit_switch.Trigger.CROSS_TENANT_WRITE:
            conn.execute(
                insert(memory_evidence).values(
                    memory_id=memory.memory_id,
                    version=memory.memory_version,
                    tenant_id="intruder-" + uuid.uuid4().hex[:6],
                    message_id="m-x",
                    revision=1,
                )
            )
        elif trigger == commit_switch.Trigger.STORED_SECRET:
            conn.execute(
                update(current_memories)
                .where(current_memories.c.memory_id == memory.memory_id)
                .values(value_json=json.dumps("ghp_" + uuid.uuid4().hex + "abcd"))
            )
        else:  # revocation residue: the message is revoked, the projection still serves it
            conn.execute(
                update(messages).where(messages.c.tenant_id == tenant).values(status="revoked")
            )
        uow.commit()


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    trigger=st.sampled_from(list(commit_switch.Trigger)[:3]),
    scope=st.sampled_from(["tenant", "global"]),
    editor=st.sampled_from(EDITORS),
)
@pytest.mark.spans_tenants
def test_switch__each_store_trigger_closes_the_switch_without_an_operator(
    sqlite_engine: Engine,
    make_proposal: Callable[..., dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    trigger: commit_switch.Trigger,
    scope: str,
    editor: str,
) -> None:
    monkeypatch.setenv("MEMWARDEN_COMMIT_SWITCH_SCOPE", scope)
    get_settings.cache_clear()
    tenant = "t-" + uuid.uuid4().hex[:8]
    memory = _commit(sqlite_engine, tenant, make_proposal, editor)
    assert memory.decision == "COMMIT", memory.reasons
    assert switch.sweep(sqlite_engine, tenant)["findings"] == []
    _plant(sqlite_engine, tenant, trigger, memory)
    out = switch.sweep(sqlite_engine, tenant)
    assert {f["trigger"] for f in out["findings"]} == {trigger.value}
    target = commit_switch.GLOBAL if scope == "global" else tenant
    assert out["closed"] == [target]
    try:
        status = switch.status(sqlite_engine, _reviewer(tenant), tenant)
        assert (status["commits"], status["held_by"]) == ("held", target)
        assert _feed(sqlite_engine, target, "commit_switch.closed")[-1]["reason"] == trigger.value
    finally:
        switch.open_(sqlite_engine, _admin(tenant), tenant, "test done", everyone=scope == "global")
        get_settings.cache_clear()


def test_switch__two_triggers_at_once_announce_one_closing(pg_engine: Engine, tenant: str) -> None:
    # Both transactions reach the upsert; the loser's ON CONFLICT ... WHERE state <> 'closed'
    # matches nothing once the winner commits, so it returns no row and emits no event.
    barrier = threading.Barrier(2)
    results: list[bool] = []

    def trip() -> None:
        with unit_of_work(pg_engine) as uow:
            barrier.wait(timeout=30)
            results.append(
                commit_switch.trip(
                    uow.conn,
                    tenant,
                    commit_switch.Trigger.STORED_SECRET,
                    {},
                    scope="tenant",
                    now=utcnow(),
                )
            )
            uow.commit()

    threads = [threading.Thread(target=in_this_context(trip)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False, True]
    assert len(_feed(pg_engine, tenant, "commit_switch.closed")) == 1


def test_switch__held_proposals_are_counted_once_per_proposal(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    switch.close(store, _reviewer(tenant), tenant, "drill")
    message_id, text = "m-replay", "I prefer kakoune."
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id))],
        engine=store,
        extract=False,
    )
    body = make_proposal(
        tenant, message_id, text, normalized_key="preference.editor", value="kakoune"
    )
    first = decide_batch([body], engine=store)
    again = decide_batch([body], engine=store)  # an exact replay returns the stored receipt
    assert first == again
    with unit_of_work(store) as uow:
        held = uow.conn.execute(
            select(func.count())
            .select_from(switch_quarantine)
            .where(switch_quarantine.c.tenant_id == tenant)
        ).scalar_one()
    assert held == 1
