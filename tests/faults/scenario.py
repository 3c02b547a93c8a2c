"""One chaos run: the workload through a distributed fleet while faults are injected, then
quiescence with no operator action, then the differential comparison with the embedded run.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine, select
from sqlalchemy.exc import OperationalError

from memwarden_ingest.io import ingest_turns
from memwarden_revalidation.commands import forget_message, revoke_message
from memwarden_shared.contract.models import Turn
from memwarden_shared.store.db import engine_for, migrate
from memwarden_shared.store.schema import proposals
from memwarden_shared.store.tenant_scope import tenant_scope
from memwarden_usecases.pipeline import drain
from tests.faults import oracle
from tests.faults.harness import Fleet, cpu_ticks, memwarden_command, wait_progressing
from tests.faults.workload import TENANT, Workload


@dataclass
class Outcome:
    name: str
    turns: int
    faults: Counter[str] = field(default_factory=Counter)
    settle_seconds: float | None = None
    diff: oracle.Difference | None = None
    dead_letters: int = 0
    ingest_exit_codes: list[int] = field(default_factory=list)
    commands_not_applied: list[str] = field(default_factory=list)
    audit_exit: int | None = None
    audit_output: str = ""
    problems: list[str] = field(default_factory=list)

    def table_line(self) -> str:
        d = (
            self.diff.summary()
            if self.diff
            else {"lost": "?", "duplicated": "?", "mismatched": "?"}
        )
        settle = f"{self.settle_seconds:.1f}s" if self.settle_seconds is not None else "did not"
        faults = ", ".join(f"{k} x{v}" for k, v in sorted(self.faults.items())) or "none"
        return (
            f"| {self.name} | {self.turns} | {sum(self.faults.values())} ({faults}) | {settle} "
            f"| {d['lost']} | {d['duplicated']} | {d['mismatched']} | {self.dead_letters} |"
        )


def embedded_oracle(workload: Workload, directory: Path) -> oracle.Snapshot:
    """The in-order run: the same turns on SQLite, drained in process, then the commands."""
    engine = engine_for(f"sqlite:///{directory / 'oracle.db'}")
    migrate(engine)
    try:
        ingest_turns([Turn.model_validate(t) for t in workload.turns], engine=engine)
        drain(engine)
        for message_id in workload.revoke:
            revoke_message(TENANT, message_id, engine=engine)
        for message_id in workload.forget:
            forget_message(TENANT, message_id, engine=engine)
        drain(engine)
        return oracle.snapshot(engine, TENANT)
    finally:
        engine.dispose()


def ingest_twice(
    fleet: Fleet, path: Path, log_dir: Path, tag: str
) -> list[subprocess.Popen[bytes]]:
    """Two ``memwarden ingest`` processes on the same file at the same moment."""
    procs = []
    for n in (1, 2):
        with (log_dir / f"ingest-{tag}-{n}.log").open("w") as log:
            procs.append(
                subprocess.Popen(
                    [*memwarden_command(), "ingest", str(path)],
                    env=fleet.env(f"ingest-{tag}-{n}"),
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )
    return procs


class CommandIssuer(threading.Thread):
    """Revokes and forgets each target message once its proposals were decided, while the
    rest of the workload is still in flight (the in-order meaning: the command follows the
    turn it undoes). Transient database errors are retried: the owner would retry too.

    No deadline of its own: it runs until every command is issued or ``stop`` is set (the
    settle phase sets it when the pipeline made no progress for a while)."""

    def __init__(self, engine: Engine, workload: Workload) -> None:
        super().__init__(daemon=True)
        self.engine = engine
        self.todo: dict[str, Callable[..., object]] = {
            **{m: revoke_message for m in workload.revoke},
            **{m: forget_message for m in workload.forget},
        }
        self.stop = threading.Event()
        self.issued = 0

    def run(self) -> None:
        # a new thread starts with no scope; the issuer plays the owner's tools over TENANT
        with tenant_scope(TENANT):
            self._issue()

    def _issue(self) -> None:
        while self.todo and not self.stop.is_set():
            try:
                with self.engine.connect() as conn:
                    decided = set(
                        conn.execute(
                            select(proposals.c.message_id).where(
                                proposals.c.tenant_id == TENANT,
                                proposals.c.message_id.in_(list(self.todo)),
                            )
                        ).scalars()
                    )
                for message_id in sorted(decided):
                    self.todo[message_id](TENANT, message_id, engine=self.engine)
                    del self.todo[message_id]
                    self.issued += 1
            except OperationalError:
                pass  # the database is restarting; try again
            self.stop.wait(0.3)


def wait_exit(proc: subprocess.Popen[bytes], what: str) -> int:
    """The process's exit code, waiting as long as it keeps using CPU."""
    wait_progressing(lambda: proc.poll() is not None, lambda: cpu_ticks(proc.pid), what)
    return int(proc.returncode)


def settle_and_compare(
    outcome: Outcome,
    run_engine: Engine,
    workload: Workload,
    workdir: Path,
    fleet: Fleet,
    commands: CommandIssuer,
) -> None:
    """Wait for quiescence (no operator action), then fill in the comparison.

    Settled means: nothing unconsumed, nothing undecided, the index equal to the projection
    and every command issued, still so a second later. The wait fails only when neither the
    store nor the command issuer moved for ``PROGRESS_IDLE_SECONDS``."""
    t0 = time.monotonic()
    stable = {"n": 0}

    def settled() -> bool:
        try:
            done = oracle.snapshot(run_engine, TENANT).settled() and not commands.todo
        except OperationalError:
            done = False
        stable["n"] = stable["n"] + 1 if done else 0
        return stable["n"] >= 3  # still settled a second later: not a gap between batches

    def progress() -> Hashable:
        try:
            return (oracle.snapshot(run_engine, TENANT).progress(), commands.issued)
        except OperationalError:
            return None  # the database is down: no progress to see

    try:
        wait_progressing(settled, progress, "quiescence")
        outcome.settle_seconds = time.monotonic() - t0
    except AssertionError as exc:
        outcome.problems.append(str(exc))
    commands.stop.set()
    commands.join(30)
    outcome.commands_not_applied = sorted(commands.todo)
    run = oracle.snapshot(run_engine, TENANT)
    expected = embedded_oracle(workload, workdir)
    outcome.diff = oracle.compare(run, expected)
    outcome.dead_letters = run.dead_letters
    if not run.settled():
        outcome.problems.append(
            f"not settled: {run.unconsumed} outbox rows unconsumed, {len(run.undecided)} "
            f"proposals undecided, index {len(run.indexed)} rows vs {len(run.current)} current"
        )
    if outcome.diff.lost or outcome.diff.mismatched or outcome.diff.duplicated:
        outcome.problems.append(oracle.explain(run, expected, outcome.diff))
    audit = subprocess.run(
        [*memwarden_command(), "audit", "--tenant", TENANT],
        env=fleet.env("audit"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    outcome.audit_exit = audit.returncode
    outcome.audit_output = audit.stdout[-2000:] + audit.stderr[-1000:]


def assert_clean(outcome: Outcome) -> None:
    print(
        "\n| scenario | turns | faults injected | time to settle | lost | duplicated "
        "| mismatched | dead-lettered |"
    )
    print(outcome.table_line(), flush=True)
    assert outcome.ingest_exit_codes and all(c == 0 for c in outcome.ingest_exit_codes), (
        f"concurrent identical ingests must both succeed: exit codes {outcome.ingest_exit_codes}"
    )
    assert not outcome.commands_not_applied, (
        f"{len(outcome.commands_not_applied)} commands never applied: their turns were never "
        f"decided, e.g. {outcome.commands_not_applied[:5]}"
    )
    assert outcome.settle_seconds is not None, "\n".join(outcome.problems)
    assert outcome.diff is not None
    assert outcome.diff.summary() == {"lost": 0, "duplicated": 0, "mismatched": 0}, "\n".join(
        outcome.problems
    )
    assert outcome.dead_letters == 0
    assert outcome.audit_exit == 0, f"memwarden audit not clean:\n{outcome.audit_output}"


def pg_engine_for(url: str) -> Engine:
    # the production engine: its begin hook carries the row-level security scope
    return engine_for(url)
