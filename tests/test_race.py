"""Races on one fact key, on PostgreSQL, held at a barrier (SPEC §7)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from sqlalchemy import Engine, select

from memwarden_gate.io import decide_batch
from memwarden_gate.review import ReviewRefused, approve
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.canonical import claim_key, memory_id_for, sha256_hex
from memwarden_shared.contract.models import Receipt, Turn
from memwarden_shared.state import memory_state
from memwarden_shared.state.auth import Principal, Scope
from memwarden_shared.state.curate_writes import CuratedVersion, commit_new_versions
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.schema import current_memories, fact_keys, memory_versions
from tests.conftest import in_this_context, turn_dict

EDITORS = ["vim", "emacs", "nano", "helix", "zed", "neovim", "pycharm", "cursor"]
SCOPE = {"kind": "workspace", "key": "race"}


def _proposals(
    engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]], same_time: bool
) -> list[dict[str, Any]]:
    out = []
    for i, editor in enumerate(EDITORS):
        text = f"I prefer {editor}."
        created = "2026-05-01T09:00:00Z" if same_time else f"2026-05-01T09:{i:02d}:00Z"
        turn = Turn.model_validate(turn_dict(tenant, text, message_id=f"m{i}", created_at=created))
        ingest_turns([turn], engine=engine, extract=False)
        out.append(
            make_proposal(
                tenant, f"m{i}", text, normalized_key="preference.editor", value=editor, scope=SCOPE
            )
        )
    return out


def _run_at_barrier(jobs: list[Callable[[], Any]]) -> list[Any]:
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def worker(i: int) -> None:
        barrier.wait()
        try:
            results[i] = jobs[i]()
        except Exception as exc:  # collected and asserted on below
            results[i] = exc

    threads = [
        threading.Thread(target=in_this_context(worker), args=(i,)) for i in range(len(jobs))
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


@pytest.mark.postgres
def test_race__first_writers_of_a_new_fact_key_produce_exactly_one_commit(
    pg_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    proposals = _proposals(pg_engine, tenant, make_proposal, same_time=True)

    # The losing interleaving without the lock row: every thread reads "no current value",
    # every thread inserts version 1, and the last commit silently wins. With
    # INSERT … ON CONFLICT DO NOTHING + SELECT … FOR UPDATE they queue on one row instead.
    def decide_one(proposal: dict[str, Any]) -> Receipt:
        return decide_batch([proposal], engine=pg_engine)[0]

    receipts = _run_at_barrier([partial(decide_one, p) for p in proposals])
    assert not [r for r in receipts if isinstance(r, Exception)], receipts
    decisions = Counter(r.decision.value for r in receipts)
    assert decisions["COMMIT"] == 1
    assert set(decisions) <= {"COMMIT", "CONFIRM_REPLACE", "CONFLICT"}
    winner = next(r for r in receipts if r.decision == "COMMIT")
    with pg_engine.connect() as conn:
        versions = conn.execute(
            select(memory_versions.c.version, memory_versions.c.value_json).where(
                memory_versions.c.tenant_id == tenant
            )
        ).all()
        key = conn.execute(select(fact_keys).where(fact_keys.c.tenant_id == tenant)).one()
        current = conn.execute(
            select(current_memories.c.value_json).where(current_memories.c.tenant_id == tenant)
        ).scalar_one()
    assert [v.version for v in versions] == [1]
    assert key.current_version == 1
    assert key.memory_id == winner.memory_id
    assert current == versions[0].value_json


@pytest.mark.postgres
def test_race__concurrent_approvals_replace_an_existing_version_exactly_once(
    pg_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    proposals = _proposals(pg_engine, tenant, make_proposal, same_time=False)
    [first] = decide_batch(proposals[:1], engine=pg_engine)
    pending = decide_batch(proposals[1:], engine=pg_engine)
    assert first.decision == "COMMIT"
    assert {r.decision.value for r in pending} == {"CONFIRM_REPLACE"}
    # Every approval was bound to version 1. Without the compare-and-set each would append
    # its own version 2 on top of version 1 and the projection would flip between them.
    reviewer = Principal("reviewer", tenant, frozenset({Scope.REVIEW}))
    results = _run_at_barrier(
        [
            partial(approve, reviewer, tenant, r.proposal_id, r.payload_hash, engine=pg_engine)
            for r in pending
        ]
    )
    committed = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, ReviewRefused)]
    assert len(committed) == 1
    assert len(refused) == len(pending) - 1
    assert {r.code for r in refused} == {"stale_expected_version"}
    with pg_engine.connect() as conn:
        chain = conn.execute(
            select(
                memory_versions.c.version, memory_versions.c.status, memory_versions.c.supersedes
            )
            .where(memory_versions.c.tenant_id == tenant)
            .order_by(memory_versions.c.version)
        ).all()
    assert [(c.version, c.status, c.supersedes) for c in chain] == [
        (1, "superseded", None),
        (2, "committed", 1),
    ]


def _curate_writer(engine: Engine, key: dict[str, str], message_id: str, value: str) -> str:
    """A curate write of a fact that curate believes is new: the fact-key lock through
    ``memory_state.lock_fact_keys``, then publish's rule (a fact that holds a version now
    moved since the snapshot: refuse), then the commit through ``curate_writes``."""
    memory_id = memory_id_for(key)
    with unit_of_work(engine) as uow:
        now = utcnow()
        row = memory_state.lock_fact_keys(uow.conn, {memory_id: key}, now)[memory_id]
        if row["current_version"]:
            return "refused"
        commit_new_versions(
            uow.conn,
            [
                CuratedVersion(
                    fact_row=row,
                    value=value,
                    evidence=[(message_id, 1)],
                    formation_id=sha256_hex(message_id + key["scope_key"]),
                    valid_from=now,
                    expires_at=None,
                    derived_from=[],
                )
            ],
            now,
        )
        uow.commit()
    return "committed"


@pytest.mark.postgres
@pytest.mark.parametrize("curate_writers", [1, 2])
def test_race__gate_and_curate_first_writers_of_a_new_fact_key_have_exactly_one_winner(
    pg_engine: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    curate_writers: int,
) -> None:
    # The losing interleaving without the shared create-then-lock: neither writer finds a
    # row for the new key, so there is nothing to lock; both compute version 1 of the same
    # memory and both write it (one fails on the compare-and-set or a unique index, or the
    # later commit wins silently). The gate (queue_lock in its pipelined batch) and curate
    # (lock_fact_keys) create the row with the same ON CONFLICT DO NOTHING: the second
    # creator waits for the first's transaction, then locks the row and sees its version 1.
    text = "I prefer vim."
    turn = Turn.model_validate(turn_dict(tenant, text, message_id="m0"))
    ingest_turns([turn], engine=pg_engine, extract=False)
    for round_no in range(4):  # a fresh fact key each round, so either side may lock first
        scope = {"kind": "workspace", "key": f"new-{round_no}"}
        proposal = make_proposal(
            tenant, "m0", text, normalized_key="preference.editor", value="vim", scope=scope
        )
        key = {
            "tenant_id": tenant,
            "subject_id": "u1",
            "scope_kind": scope["kind"],
            "scope_key": scope["key"],
            "kind": "preference",
            "normalized_key": "preference.editor",
            "claim_key": claim_key("vim", False),
        }

        def gate_job(p: dict[str, Any] = proposal) -> Any:
            return decide_batch([p], engine=pg_engine)[0]

        def curate_job(k: dict[str, str] = key) -> Any:
            return _curate_writer(pg_engine, k, "m0", "vim")

        jobs: list[Callable[[], Any]] = [gate_job, *[curate_job] * curate_writers]
        gate, *curate = _run_at_barrier(jobs)
        assert not [r for r in (gate, *curate) if isinstance(r, Exception)], (gate, curate)
        assert gate.decision in ("COMMIT", "NOOP")  # NOOP: curate's version 1, same value
        winners = [gate.decision == "COMMIT"] + [c == "committed" for c in curate]
        assert sum(winners) == 1, (gate, curate)
        memory_id = memory_id_for(key)
        with pg_engine.connect() as conn:
            versions = conn.execute(
                select(memory_versions.c.version).where(memory_versions.c.memory_id == memory_id)
            ).all()
            locked = conn.execute(select(fact_keys).where(fact_keys.c.memory_id == memory_id)).one()
        assert [v.version for v in versions] == [1]
        assert locked.current_version == 1
