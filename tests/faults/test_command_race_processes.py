"""A forget or revoke racing its own message's undecided proposal, with the stages as processes
(issue 22 item 5). ``test_command_race.py`` plays the stages in process, one after the other;
here the gate is a worker process caught *inside* its transaction: it has taken the message's
candidate from the store and read the message as active, and waits on the proposal's fact
key (the test holds it, as a slow first writer of the same fact would). The command is
issued then, and the fact key let go. Whichever commits first, nothing from the message may
be committed once both are done and the pipeline has settled: a forget leaves its memories
forgotten with their values erased, a revoke leaves none committed.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, insert, select

from memwarden_ingest.io import ingest_turns
from memwarden_revalidation.commands import forget_message, revoke_message
from memwarden_shared.contract.models import MemoryStatus, Turn
from memwarden_shared.store.db import engine_for, migrate
from memwarden_shared.store.schema import fact_keys, memory_evidence, memory_versions
from memwarden_usecases.audit import audit
from memwarden_usecases.pipeline import drain
from tests.conftest import in_this_context, turn_dict
from tests.faults import oracle
from tests.faults.harness import (
    Fleet,
    RedisServer,
    lock_waiters,
    wait_progressing,
    with_application_name,
)

pytestmark = [pytest.mark.faults, pytest.mark.spans_tenants, pytest.mark.slow, pytest.mark.postgres]

TEXT = "Remember that my favourite test runner is pytest."
GATE = "gate-1"
COMMAND = "owner-command"  # the application_name of the command's connections
STAGES = {
    "relay-1": ["relay"],
    "extractor-1": ["worker", "extractor"],
    GATE: ["worker", "gate"],
    "revalidation-1": ["worker", "revalidation"],
    "vector_sink-1": ["worker", "vector_sink"],
}


@dataclass
class Stages:
    fleet: Fleet
    engine: Engine  # the test's, as the application role
    command_engine: Engine  # the owner's command, named so its lock waits can be seen
    observer: Engine  # the database owner: sees every role's waits in pg_stat_activity
    scratch: Path


@pytest.fixture
def stages(fresh_pg_url: str, fresh_pg_owner_url: str, tmp_path: Path) -> Iterator[Stages]:
    redis_server = RedisServer(tmp_path / "redis")
    redis_server.start()
    logs = tmp_path / "logs"
    logs.mkdir()
    fleet = Fleet(fresh_pg_url, redis_server.url, logs)
    engine = engine_for(fresh_pg_url)
    command_engine = engine_for(with_application_name(fresh_pg_url, COMMAND))
    observer = create_engine(fresh_pg_owner_url)
    try:
        for name, args in STAGES.items():
            fleet.start(name, *args)
        fleet.wait_ready(list(STAGES))
        yield Stages(fleet, engine, command_engine, observer, tmp_path)
    finally:
        fleet.stop_all()
        redis_server.stop()
        print(fleet.log_tail(1200))
        observer.dispose()


def fact_key_row(scratch: Path, turn: dict[str, Any]) -> dict[str, Any]:
    """The fact-key row the gate will create for ``turn``: the same turn run embedded on a
    scratch SQLite store (the extractor and the key registry are deterministic)."""
    engine = engine_for(f"sqlite:///{scratch / ('key-' + uuid.uuid4().hex[:6] + '.db')}")
    migrate(engine)
    ingest_turns([Turn.model_validate(turn)], engine=engine)
    drain(engine)
    with engine.connect() as conn:
        [row] = conn.execute(select(fact_keys)).mappings().all()
    engine.dispose()
    return {**{k: v for k, v in row.items() if k != "id"}, "current_version": 0}


def committed_from(engine: Engine, tenant: str, message_id: str) -> list[tuple[str, str]]:
    """(status, value_json) of every memory version citing ``message_id``."""
    with engine.connect() as conn:
        return [
            (r.status, r.value_json)
            for r in conn.execute(
                select(memory_versions.c.status, memory_versions.c.value_json)
                .join(
                    memory_evidence,
                    (memory_evidence.c.memory_id == memory_versions.c.memory_id)
                    & (memory_evidence.c.version == memory_versions.c.version),
                )
                .where(
                    memory_versions.c.tenant_id == tenant,
                    memory_evidence.c.message_id == message_id,
                )
            )
        ]


def settle(s: Stages, tenant: str) -> None:
    stable = {"n": 0}

    def settled() -> bool:
        stable["n"] = stable["n"] + 1 if oracle.snapshot(s.engine, tenant).settled() else 0
        return stable["n"] >= 3  # still settled a moment later: not a gap between batches

    wait_progressing(
        settled, lambda: oracle.snapshot(s.engine, tenant).progress(), "pipeline settled"
    )


def race(s: Stages, command: str) -> tuple[str, list[tuple[str, str]]]:
    """One message through the fleet with ``command`` landing while the gate holds its
    candidate; returns the tenant and what the message left in memory_versions."""
    tenant = f"race-{command}-{uuid.uuid4().hex[:8]}"
    turn = turn_dict(tenant, TEXT, message_id="m1")
    key = fact_key_row(s.scratch, turn)
    errors: list[BaseException] = []
    with s.engine.connect() as holder:
        # a first writer of the same fact, not yet committed: the gate's insert of the key
        # waits on it, after the gate took the candidate and read the message
        holder.execute(insert(fact_keys).values(**key))
        ingest_turns([Turn.model_validate(turn)], engine=s.engine)
        wait_progressing(
            lambda: lock_waiters(s.observer, GATE) >= 1,
            lambda: oracle.snapshot(s.engine, tenant).progress(),
            "the gate waits on the fact key, its candidate taken",
        )
        # in this test's row-level security scope (a new thread starts with none)
        worker = threading.Thread(target=in_this_context(_issue), args=(s, command, tenant, errors))
        worker.start()
        wait_progressing(
            lambda: not worker.is_alive() or lock_waiters(s.observer, COMMAND) >= 1,
            lambda: lock_waiters(s.observer, COMMAND),
            "the command finished or waits behind the gate",
        )
        holder.rollback()
    worker.join()
    assert not errors, errors
    settle(s, tenant)
    return tenant, committed_from(s.engine, tenant, "m1")


def _issue(s: Stages, command: str, tenant: str, errors: list[BaseException]) -> None:
    try:
        if command == "forget":
            forget_message(tenant, "m1", engine=s.command_engine)
        else:
            revoke_message(tenant, "m1", engine=s.command_engine)
    except BaseException as exc:  # asserted by the test
        errors.append(exc)


def test_forget_racing_the_gate_in_its_transaction__nothing_of_the_message_stays(
    stages: Stages,
) -> None:
    tenant, left = race(stages, "forget")
    # Losing interleaving: forget read the message's dependents (none yet), then waited on
    # the candidate the gate had taken; the gate committed, and forget finished on its stale
    # list, leaving the new memory committed with its value (later revoked by the cascade,
    # never forgotten: the value stays in history).
    # The gate held the candidate, so it decided first (a commit) and forget, serialised
    # behind it, forgot that memory: there is one, and it is forgotten.
    assert left, "the gate committed nothing: the race was not staged"
    assert all(status == MemoryStatus.FORGOTTEN for status, _ in left), left
    assert all(value in (None, "", "null") for _, value in left), left
    assert audit(tenant, engine=stages.engine).clean


def test_revoke_racing_the_gate_in_its_transaction__nothing_of_the_message_stays(
    stages: Stages,
) -> None:
    _, left = race(stages, "revoke")
    # Losing interleaving: the gate read the message as active; revoke committed and its
    # cascade ran (no dependent yet); the gate then committed a memory on revoked evidence
    # that no cascade will ever see.
    # The gate decided first (a commit); revoke, serialised behind it, cascaded over it.
    assert left, "the gate committed nothing: the race was not staged"
    assert all(status != MemoryStatus.COMMITTED for status, _ in left), left
