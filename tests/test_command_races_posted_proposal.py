"""A revoke or forget racing the gate's decision on a *posted* proposal body (no candidate row
to meet on) wins, on PostgreSQL (issue 22 item 5, SPEC §9).

The interleaving that lost before the message lock: the gate reads the message (active), the
forget runs whole and commits (finding nothing derived to erase), then the gate commits a
memory on forgotten evidence that nothing would ever take back. A third connection holds the
fact key the gate needs next, so the gate is parked between its read and its commit while
the command runs; the test waits on ``pg_locks``, not on the clock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Engine, select, text

from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_revalidation.commands import forget_message, revoke_message
from memwarden_shared.contract.canonical import claim_key, memory_id_for
from memwarden_shared.contract.models import MemoryStatus, Turn
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.dialect import FACT_LOCK_CLASS, MESSAGE_LOCK_CLASS, lock_names
from memwarden_shared.store.schema import current_memories, memory_versions
from memwarden_usecases.pipeline import drain
from tests.conftest import in_this_context, turn_dict, user_fact_key

pytestmark = pytest.mark.postgres

TEXT = "I use pnpm for every project."
PATIENCE_S = 120.0  # how long a step may make no progress before the test gives up

_WAITERS_SQL = text(
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
    "AND classid = :cls AND database = (SELECT oid FROM pg_database "
    "WHERE datname = current_database())"
)


def _waiting_on(engine: Engine, lock_class: int) -> int:
    with engine.connect() as conn:
        return int(conn.execute(_WAITERS_SQL, {"cls": lock_class}).scalar_one())


def _until(done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while not done():
        assert time.monotonic() < deadline, f"not reached: {what}"
        time.sleep(0.02)


def _start(job: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(job())
        except Exception as exc:  # asserted on by the caller
            out.append(exc)

    thread = threading.Thread(target=in_this_context(run))
    thread.start()
    return thread, out


def _race(engine: Engine, tenant: str, proposal: dict[str, Any], command: str) -> Any:
    """Park the gate on its fact key after it read the message, run ``command`` on that
    message, release the gate; returns the gate's receipt."""
    key = user_fact_key(tenant, "preference.package_manager", claim_key("pnpm", False))
    with unit_of_work(engine) as blocker:
        lock_names(blocker.conn, [memory_id_for(key)], FACT_LOCK_CLASS)
        gate, gate_out = _start(lambda: decide_batch([proposal], engine=engine)[0])
        _until(lambda: _waiting_on(engine, FACT_LOCK_CLASS) > 0, "the gate waits on its fact key")
        run = forget_message if command == "forget" else revoke_message
        owner, owner_out = _start(lambda: run(tenant, "m0", engine=engine))
        # the command either finishes (no lock to meet) or waits for the gate's commit
        _until(
            lambda: bool(owner_out) or _waiting_on(engine, MESSAGE_LOCK_CLASS) > 0,
            "the command finished or waits for the gate",
        )
        blocker.commit()
    for thread in (gate, owner):
        thread.join(PATIENCE_S)
        assert not thread.is_alive()
    assert not isinstance(owner_out[0], Exception), owner_out
    assert not isinstance(gate_out[0], Exception), gate_out
    drain(engine)  # the revocation cascade, for a revoke
    return gate_out[0]


def _recallable(engine: Engine, tenant: str) -> list[Any]:
    with engine.connect() as conn:
        return list(
            conn.execute(
                select(current_memories.c.memory_id).where(current_memories.c.tenant_id == tenant)
            )
        )


@pytest.mark.parametrize("command", ["forget", "revoke"])
def test_a_command_racing_the_gate_on_a_posted_body_wins(
    pg_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]], command: str
) -> None:
    turn = Turn.model_validate(turn_dict(tenant, TEXT, message_id="m0"))
    ingest_turns([turn], engine=pg_engine, extract=False)
    proposal = make_proposal(tenant, "m0", TEXT, sentence="I use pnpm for every project.")

    receipt = _race(pg_engine, tenant, proposal, command)

    # the gate read the message before the command, so it committed; the command then
    # found that commit and took it back
    assert receipt.decision == "COMMIT", receipt
    assert _recallable(pg_engine, tenant) == []
    if command == "forget":
        with pg_engine.connect() as conn:
            versions = conn.execute(
                select(memory_versions.c.status, memory_versions.c.value_json).where(
                    memory_versions.c.tenant_id == tenant
                )
            ).all()
        # forgotten, not merely revoked by the cascade: the version keeps its place, no value
        assert [tuple(v) for v in versions] == [(MemoryStatus.FORGOTTEN, "null")]


def test_the_race_commits_when_no_command_comes(
    pg_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    """The control: the same proposal through the gate alone is committed and recallable,
    so an empty recall above is the command's doing."""
    turn = Turn.model_validate(turn_dict(tenant, TEXT, message_id="m0"))
    ingest_turns([turn], engine=pg_engine, extract=False)
    proposal = make_proposal(tenant, "m0", TEXT)
    assert decide_batch([proposal], engine=pg_engine)[0].decision == "COMMIT"
    assert len(_recallable(pg_engine, tenant)) == 1
