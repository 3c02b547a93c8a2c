"""Recall during a curate publish (SPEC §15.6) on PostgreSQL: a reader hammering recall
never sees a mix of old and new versions; every read is all-old, all-new or protected
empty with reason ``curate_publishing``."""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import Engine

from memwarden_curate.publish import publish, rollback
from memwarden_recall.query import ProtectedEmpty, recall
from tests.conftest import in_this_context
from tests.curate_helpers import people, say_all, to_attested

WORDS = ["apple", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "iris", "juniper"]


def seed(engine: Engine, tenant: str) -> None:
    lines = []
    for n, word in enumerate(WORDS):
        said = f"Remember that the {word} service deploys only on"
        lines.append((f"a{n}", "u1", f"{said} Tuesdays."))
        lines.append((f"b{n}", "u1", f"{said} the Tuesdays."))
    lines.append(("p", "u1", "I prefer pnpm for all my JavaScript projects."))
    lines.append(("d", "u1", "We decided to use PostgreSQL for the billing service."))
    say_all(engine, tenant, lines)


def state(engine: Engine, tenant: str) -> Any:
    found = recall(tenant, "u1", engine=engine, k=1000)
    if isinstance(found, ProtectedEmpty):
        return found.reason
    return frozenset((m.memory_id, m.version) for m in found)


class Reader(threading.Thread):
    """Reads recall in a loop; a test hook waits until it has seen the block."""

    def __init__(self, engine: Engine, tenant: str) -> None:
        super().__init__(daemon=True)
        self.engine, self.tenant = engine, tenant
        self.read_state = in_this_context(state)  # the test's row-level security scope
        self.reads: list[Any] = []
        self.stop = threading.Event()
        self.saw_block = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                seen = self.read_state(self.engine, self.tenant)
                self.reads.append(seen)
                if seen == "curate_publishing":
                    self.saw_block.set()
        except BaseException as exc:  # surfaced by the test, not lost in the thread
            self.error = exc

    def wait_for(self, wanted: Any) -> None:
        """Until the reader has read ``wanted`` after this call."""
        mark = len(self.reads)
        for _ in range(3000):
            if wanted in self.reads[mark:] or not self.is_alive():
                return
            self.stop.wait(0.01)

    def wait_for_block(self) -> None:
        # the switch waits for the reader to hit the block, so the test does not depend on
        # scheduling luck to read inside the window
        self.saw_block.clear()
        assert self.saw_block.wait(30), "recall was never blocked during the switch"


def test_recall_during_publish_and_rollback__is_all_old_all_new_or_protected_empty(
    pg_engine: Engine, tenant: str
) -> None:
    seed(pg_engine, tenant)
    old = state(pg_engine, tenant)
    attested = to_attested(pg_engine, tenant, ["u1"])
    assert attested["counts"]["duplicate"] == len(WORDS)
    reader = Reader(pg_engine, tenant)
    reader.start()
    try:
        publish(
            people(tenant)["planner"],
            attested["run_id"],
            engine=pg_engine,
            after_block=reader.wait_for_block,
            after_apply=reader.wait_for_block,
        )
        new = state(pg_engine, tenant)
        reader.wait_for(new)
        rollback(people(tenant)["planner"], attested["run_id"], engine=pg_engine)
        restored = state(pg_engine, tenant)
        reader.wait_for(restored)
    finally:
        reader.stop.set()
        reader.join(30)
    assert reader.error is None, reader.error
    assert new != old and len(new) == len(old) - len(WORDS)
    assert len(restored) == len(old)  # the snapshot's values, as new versions
    allowed = {old, new, restored, "curate_publishing"}
    mixed = [r for r in reader.reads if r not in allowed]
    assert mixed == [], f"{len(mixed)} reads mixed old and new versions"
    assert "curate_publishing" in reader.reads
    assert new in reader.reads and restored in reader.reads


def test_plan__two_planners_racing_on_one_run_record_each_batch_once(
    pg_engine: Engine, tenant: str
) -> None:
    from memwarden_curate.stages import RulesRewriter, make_plan, take_snapshot
    from memwarden_shared.contract.registry import default_registry

    lines = [(f"c{n}", f"s{n}", "I prefer pnpm for all my JavaScript projects.") for n in range(6)]
    say_all(pg_engine, tenant, lines)
    planner = people(tenant)["planner"]
    run = take_snapshot(planner, tenant, None, batch_size=1, engine=pg_engine)["run_id"]
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    class Gated(RulesRewriter):
        def rewrite(self, items: list[dict[str, Any]], batch_no: int) -> tuple[dict[str, Any], int]:
            if batch_no == 0:
                barrier.wait(10)  # both planners hold batch 0 before either appends it
            return super().rewrite(items, batch_no)

    def plan() -> None:
        try:
            make_plan(planner, run, Gated(default_registry()), engine=pg_engine)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=in_this_context(plan)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    from memwarden_usecases.curate import run_status

    # the loser of a batch skips it; whatever both skipped, one resume finishes
    out = run_status(pg_engine, planner, run)
    if out["stage"] == "planning":
        out = make_plan(planner, run, RulesRewriter(default_registry()), engine=pg_engine)
    assert out["stage"] == "planned"
    assert sorted(e["batch_no"] for e in out["ledger"]) == list(range(6))
