"""Races at the action gate, on real PostgreSQL (SPEC §14): one decision per idempotency key,
and a revocation racing an ALLOW is never missed by both sides."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

import memwarden_actions.io as action_io
from memwarden_actions.decide import decide_action
from memwarden_actions.lifecycle import affected_by_message
from memwarden_actions.receipts import ActionKeyConflict
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import action_uses, actions
from memwarden_usecases.pipeline import drain
from tests.actions_helpers import act, memory_of, say
from tests.conftest import in_this_context

ROUNDS = 8


def count(engine: Engine, table: Any, tenant: str) -> int:
    with unit_of_work(engine) as uow:
        return int(
            uow.conn.execute(
                select(func.count()).select_from(table).where(table.c.tenant_id == tenant)
            ).scalar_one()
        )


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_idempotency__concurrent_same_key_gives_one_decision_and_one_receipt(
    pg_engine: Engine, tenant: str, round_: int
) -> None:
    mid = say(pg_engine, tenant, "I use npm for every project")
    memory_id, _ = memory_of(pg_engine, tenant, mid)
    barrier = threading.Barrier(2)

    def request(_: int) -> dict[str, Any]:
        barrier.wait()
        return act(pg_engine, tenant, "package.install", [memory_id], key="same", params={"p": 1})

    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(in_this_context(request), range(2)))
    # Losing interleaving without the conflict-safe insert: both read "no row", both decide,
    # both insert -> two receipts (or a unique violation surfacing as a 500).
    assert sorted(g["decision"] for g in got) == ["ALLOW", "DUPLICATE"]
    assert got[0]["action_id"] == got[1]["action_id"]
    assert count(pg_engine, actions, tenant) == 1
    assert count(pg_engine, action_uses, tenant) == 1


def test_idempotency__concurrent_same_key_other_params_one_wins_one_conflicts(
    pg_engine: Engine, tenant: str
) -> None:
    barrier = threading.Barrier(2)

    def request(n: int) -> str:
        barrier.wait()
        try:
            return str(
                act(pg_engine, tenant, "message.send", [], key="k", params={"text": n})["decision"]
            )
        except ActionKeyConflict:
            return "KEY_CONFLICT"

    with ThreadPoolExecutor(2) as pool:
        got = sorted(pool.map(in_this_context(request), range(2)))
    assert got == ["ALLOW", "KEY_CONFLICT"]
    assert count(pg_engine, actions, tenant) == 1


def test_race__revocation_during_an_allow_cancels_it(
    pg_engine: Engine, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dangerous interleaving, forced: the action has read the evidence as active and is
    about to commit ALLOW when the revocation and its whole cascade try to run.

    Without the share locks the revocation and cascade finish first, find no action to
    cancel, and the action then commits ALLOW on revoked evidence: neither side saw the
    other. With them, the revocation waits for the action's commit and then cancels it."""
    mid = say(pg_engine, tenant, "I use npm for every project")
    memory_id, _ = memory_of(pg_engine, tenant, mid)
    decided = threading.Event()
    revoked = threading.Event()
    real_decide = decide_action  # the name action_io calls, patched below

    def decide_then_hold(**kw: Any) -> Any:
        verdict = real_decide(**kw)
        decided.set()
        revoked.wait(timeout=2)  # gives revocation and cascade every chance to go first
        return verdict

    monkeypatch.setattr(action_io, "decide_action", decide_then_hold)

    def revoke() -> None:
        decided.wait()
        revoke_message(tenant, mid, engine=pg_engine)
        drain(pg_engine)  # the cascade, too, before the action is let go
        revoked.set()

    with ThreadPoolExecutor(2) as pool:
        action = pool.submit(
            in_this_context(act), pg_engine, tenant, "package.install", [memory_id]
        )
        done = pool.submit(in_this_context(revoke))
        receipt = action.result()
        done.result()
    drain(pg_engine)
    repair = affected_by_message(tenant, mid, engine=pg_engine)
    states = {a["action_id"]: a["state"] for a in repair["actions"]}
    assert receipt["decision"] == "ALLOW"
    assert states == {receipt["action_id"]: "cancelled"}


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_race__revocation_and_action_at_once_never_leave_an_allowed_action(
    pg_engine: Engine, tenant: str, round_: int
) -> None:
    mid = say(pg_engine, tenant, "I use npm for every project")
    memory_id, _ = memory_of(pg_engine, tenant, mid)
    barrier = threading.Barrier(2)

    def action() -> dict[str, Any]:
        barrier.wait()
        return act(pg_engine, tenant, "package.install", [memory_id])

    def revoke() -> None:
        barrier.wait()
        revoke_message(tenant, mid, engine=pg_engine)
        drain(pg_engine)

    with ThreadPoolExecutor(2) as pool:
        got = pool.submit(in_this_context(action))
        pool.submit(in_this_context(revoke)).result()
        receipt = got.result()
    drain(pg_engine)
    repair = affected_by_message(tenant, mid, engine=pg_engine)
    state = {a["action_id"]: a["state"] for a in repair["actions"]}.get(receipt["action_id"])
    # either the action saw the revocation (DENY), or the revocation saw the action (cancelled)
    assert (receipt["decision"], state) in {("DENY", "denied"), ("ALLOW", "cancelled")}
