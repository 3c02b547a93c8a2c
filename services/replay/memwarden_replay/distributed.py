"""Distributed replay (SPEC §1.4 at fleet scale), the coordinator's side (the worker's is
``chunk_worker.py``): the coordinator records a run's chunks in the store and hands them to
``replay`` workers; every chunk goes through the same extraction and
the same gate transaction as an in-process batch (:func:`extract_batch`, :func:`apply_batch`).

The store is the source of truth, as for the outbox (SPEC §8.1):

- *plan*: ``replay_plans`` + ``replay_chunks``, recorded once in one transaction; a
  coordinator restarted with the same run id finds them and only follows the run.
- *dispatch*: a lane's next chunk is published when the chunk before it is done, by the
  worker that finished it (at once) or by a coordinator's sweep (a chunk published longer
  than ``MEMWARDEN_REDELIVER_SECONDS`` ago, with no live lease, is published again).
- *claim*: a worker leases the chunk (``claimed_until``, renewed while it works); a
  duplicate message for a leased or done chunk is dropped.
- *done*: the chunk's turns, decisions, tally and ``done_at`` commit in ONE transaction, so a
  worker killed mid-chunk leaves nothing of it, and its redelivery is the only cost. Ingest
  (by message id) and the gate (by proposal id) are idempotent anyway.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, func, select, update
from sqlalchemy.orm import aliased

from memwarden_extractor.rules import EXTRACTOR_VERSION
from memwarden_replay.chunks import BadInputLine, ChunkPlan, InputFile, plan_chunks
from memwarden_replay.io import ReplayOptions, ReplayRefused, extractor_for, open_run
from memwarden_replay.tally import PROBLEMS_KEPT, Tally, report
from memwarden_shared.config import get_settings
from memwarden_shared.store.db import dumps, unit_of_work, utcnow
from memwarden_shared.store.dialect import hold_rows, lock_rows
from memwarden_shared.store.schema import (
    replay_checkpoints,
    replay_chunks,
    replay_plans,
    replay_runs,
)

log = logging.getLogger("memwarden.replay")
INSERT_ROWS = 1000  # chunk rows per executemany

Publish = Callable[[str, int], None]  # (run id, chunk number) -> a message on the replay queue


# --------------------------------------------------------------------------- coordinator


def open_distributed(
    paths: list[Path], options: ReplayOptions, *, engine: Engine, chunk_turns: int, lanes: int
) -> dict[str, Any]:
    """Open (or reopen) the run and record its plan once. Returns the plan row as JSON.

    Refuses, changing nothing, when the run was started in-process or with other options,
    when an input file changed since the plan, or (without ``skip_bad``) on a bad line.
    """
    extractor_for(options.extractor, options.extractor_version)  # refuse a bad choice first
    version = options.extractor_version or (
        EXTRACTOR_VERSION if options.extractor == "rules" else ""
    )
    files = [InputFile.of(path.resolve()) for path in paths]
    with unit_of_work(engine) as uow:
        open_run(uow.conn, options, version)
        if uow.conn.execute(
            select(replay_checkpoints.c.run_id).where(replay_checkpoints.c.run_id == options.run_id)
        ).first():
            raise ReplayRefused(
                f"run {options.run_id} was started without --distributed: resume it so"
            )
        plan = plan_row(uow.conn, options.run_id)
        if plan is not None:
            recorded = [InputFile(*f) for f in json.loads(plan.files)]
            if recorded != files:
                raise ReplayRefused(
                    f"the input of run {options.run_id} changed since it was planned "
                    "(other files, or a file was modified); start a new run"
                )
            # a resumed run tries its failed chunks again
            uow.conn.execute(
                update(replay_chunks)
                .where(
                    replay_chunks.c.run_id == options.run_id, replay_chunks.c.failed_at.isnot(None)
                )
                .values(failed_at=None, attempts=0, error=None)
            )
        uow.commit()
    if plan is not None:
        return _plan_json(plan)
    try:
        planned = plan_chunks(
            [Path(f.path) for f in files],
            chunk_turns=chunk_turns,
            lanes_per_tenant=lanes,
            default_tenant=options.default_tenant,
            skip_bad=options.skip_bad,
            problems_kept=PROBLEMS_KEPT,
        )
    except BadInputLine as exc:
        raise ReplayRefused(
            f"{exc}; nothing was replayed (fix the line, or pass --skip-bad to skip bad lines)"
        ) from None
    if [InputFile.of(Path(f.path)) for f in files] != files:
        raise ReplayRefused("an input file changed while it was being planned; run again")
    return _record_plan(engine, options, planned)


def _record_plan(engine: Engine, options: ReplayOptions, planned: ChunkPlan) -> dict[str, Any]:
    tally = Tally(bad_lines=planned.bad_lines, problems=planned.problems)
    with unit_of_work(engine) as uow:
        conn = uow.conn
        # two coordinators started at once: one records the plan, the other finds it
        hold_rows(conn, select(replay_runs.c.run_id).where(replay_runs.c.run_id == options.run_id))
        existing = plan_row(conn, options.run_id)
        if existing is not None:
            return _plan_json(existing)
        conn.execute(
            replay_plans.insert().values(
                run_id=options.run_id,
                files=dumps([f.to_json() for f in planned.files]),
                default_tenant=options.default_tenant,
                chunks=len(planned.chunks),
                turns=planned.turns,
                counters=dumps(tally.to_json()),
                planned_at=utcnow(),
            )
        )
        rows = [
            {
                "run_id": options.run_id,
                "chunk_no": no,
                "tenant_id": chunk.tenant_id,
                "lane": chunk.lane,
                "seq": chunk.seq,
                "lines": json.dumps(chunk.lines, separators=(",", ":")),
                "turns": len(chunk.lines),
            }
            for no, chunk in enumerate(planned.chunks)
        ]
        for i in range(0, len(rows), INSERT_ROWS):
            conn.execute(replay_chunks.insert(), rows[i : i + INSERT_ROWS])
        row = plan_row(conn, options.run_id)
        uow.commit()
    assert row is not None
    return _plan_json(row)


def plan_row(conn: Connection, run_id: str) -> Any:
    return conn.execute(select(replay_plans).where(replay_plans.c.run_id == run_id)).first()


def _plan_json(row: Any) -> dict[str, Any]:
    return {"chunks": row.chunks, "turns": row.turns, "files": len(json.loads(row.files))}


def dispatch(
    engine: Engine, run_id: str, publish: Publish, *, queue_busy: Callable[[], bool] | None = None
) -> int:
    """Publish every chunk that may run now and is not in a worker's hands: the first
    unfinished chunk of each lane, never published or published longer than the redelivery
    deadline ago, with no live lease and not failed. Returns how many were published.

    ``queue_busy`` (is the replay queue non-empty?) holds back chunks that were published but
    never claimed: while the queue has messages, theirs is most likely still waiting there,
    and republishing every deadline would only grow the queue. A chunk whose claim lapsed
    (its worker died or gave up) is republished at once either way."""
    settings = get_settings()
    now = utcnow()
    overdue = now - timedelta(seconds=settings.redeliver_seconds)
    c = replay_chunks
    earlier = aliased(replay_chunks)
    unfinished_before = (
        select(earlier.c.seq)
        .where(
            earlier.c.run_id == c.c.run_id,
            earlier.c.lane == c.c.lane,
            earlier.c.seq < c.c.seq,
            earlier.c.done_at.is_(None),
        )
        .exists()
    )
    stmt = (
        select(c.c.chunk_no)
        .where(
            c.c.run_id == run_id,
            c.c.done_at.is_(None),
            c.c.failed_at.is_(None),
            ~unfinished_before,
            (c.c.claimed_until.is_(None)) | (c.c.claimed_until < now),
            (c.c.published_at.is_(None)) | (c.c.published_at < overdue),
        )
        .order_by(c.c.chunk_no)
    )
    if queue_busy is not None and queue_busy():
        stmt = stmt.where(c.c.published_at.is_(None) | c.c.claimed_until.isnot(None))
    with unit_of_work(engine) as uow:
        # a worker finishing the chunk holds its row: skip it rather than wait
        stmt = lock_rows(uow.conn, stmt, of=c, skip_locked=True)
        due = list(uow.conn.execute(stmt).scalars())
        if due:
            uow.conn.execute(
                update(c)
                .where(c.c.run_id == run_id, c.c.chunk_no.in_(due))
                .values(published_at=now)
            )
        uow.commit()
    for chunk_no in due:  # after the commit: a lost publish is redelivered by a later sweep
        publish(run_id, chunk_no)
    return len(due)


@dataclass(frozen=True)
class Progress:
    chunks: int
    done: int
    failed: int
    turns: int
    turns_done: int
    blocked: int = 0  # unfinished chunks at or behind a failed chunk of their lane

    @property
    def finished(self) -> bool:
        return self.done == self.chunks

    @property
    def settled(self) -> bool:
        """Nothing more can happen without a resume: every chunk done or stopped by a failure."""
        return self.done + self.blocked == self.chunks


def progress(engine: Engine, run_id: str) -> Progress:
    """The run's progress as the store has it (a restarted coordinator sees the same)."""
    c = replay_chunks.c
    with engine.connect() as conn:
        row = conn.execute(
            select(
                func.count(),
                func.count(c.done_at),
                func.count(c.failed_at),
                func.coalesce(func.sum(c.turns), 0),
                func.coalesce(func.sum(c.turns).filter(c.done_at.isnot(None)), 0),
            ).where(c.run_id == run_id)
        ).one()
        blocked = 0
        if row[2]:
            failed = aliased(replay_chunks)
            blocked = conn.execute(
                select(func.count()).where(
                    c.run_id == run_id,
                    c.done_at.is_(None),
                    select(failed.c.seq)
                    .where(
                        failed.c.run_id == c.run_id,
                        failed.c.lane == c.lane,
                        failed.c.failed_at.isnot(None),
                        failed.c.seq <= c.seq,
                    )
                    .exists(),
                )
            ).scalar_one()
    chunks, done, failed_count, turns, turns_done = (int(v) for v in row)
    return Progress(chunks, done, failed_count, turns, turns_done, blocked=int(blocked))


def failures(engine: Engine, run_id: str) -> list[dict[str, Any]]:
    c = replay_chunks.c
    with engine.connect() as conn:
        rows = conn.execute(
            select(c.chunk_no, c.attempts, c.error)
            .where(c.run_id == run_id, c.failed_at.isnot(None))
            .order_by(c.chunk_no)
        ).all()
    return [{"chunk": r.chunk_no, "attempts": r.attempts, "error": r.error} for r in rows]


def finish(engine: Engine, run_id: str) -> dict[str, Any]:
    """The report of the run: the planning tally plus every done chunk's, in chunk order.
    Marks the run finished when every chunk is done."""
    c = replay_chunks.c
    with unit_of_work(engine) as uow:
        conn = uow.conn
        plan = plan_row(conn, run_id)
        tally = Tally.from_json(json.loads(plan.counters))
        rows = conn.execute(
            select(c.counters, c.started_at, c.done_at)
            .where(c.run_id == run_id, c.done_at.isnot(None))
            .order_by(c.chunk_no)
        ).all()
        for r in rows:
            tally.merge(Tally.from_json(json.loads(r.counters)))
        if rows:  # wall time of the fleet, not the sum of the chunks' times
            first = min(r.started_at for r in rows)
            tally.seconds = (max(r.done_at for r in rows) - first).total_seconds()
        all_done = len(rows) == plan.chunks
        conn.execute(
            update(replay_runs)
            .where(replay_runs.c.run_id == run_id)
            .values(counters=dumps(tally.to_json()), finished_at=utcnow() if all_done else None)
        )
        run = conn.execute(select(replay_runs).where(replay_runs.c.run_id == run_id)).one()
        uow.commit()
    return report(
        tally,
        {
            "run_id": run.run_id,
            "extractor": run.extractor,
            "extractor_version": run.extractor_version,
            "shadow": run.shadow,
            "started_at": run.started_at.isoformat(),
            "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        },
    )
