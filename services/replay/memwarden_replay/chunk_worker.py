"""The replay worker's side of a distributed replay: claim a chunk under a lease, read its
lines by reference, extract, then store, decide and mark it done in one transaction
(:func:`apply_batch`, the in-process replay's own). See ``distributed.py`` for the protocol.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, func, select, update

from memwarden_extractor.debounce import ExtractTurn
from memwarden_gate.io import GateContext
from memwarden_replay.chunks import InputFile
from memwarden_replay.distributed import Publish, plan_row
from memwarden_replay.io import apply_batch, extract_batch, extractor_for
from memwarden_replay.source import Batch
from memwarden_replay.tally import Tally
from memwarden_shared.config import get_settings
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.turn_lines import BOM, parse_line
from memwarden_shared.store.db import dumps, unit_of_work, utcnow
from memwarden_shared.store.dialect import lock_rows
from memwarden_shared.store.schema import replay_chunks, replay_runs

log = logging.getLogger("memwarden.replay")
MAX_ATTEMPTS = 3  # a chunk failing this often stops its lane until the run is resumed


class ChunkInputChanged(Exception):
    """A chunk's input file is not what the plan read: a permanent failure of the chunk."""


@dataclass(frozen=True)
class Claim:
    run_id: str
    chunk_no: int
    lane: int
    seq: int
    token: str
    lines: list[list[int]]
    files: list[InputFile]
    default_tenant: str | None
    extractor: str
    extractor_version: str
    shadow: bool


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def run_chunk(engine: Engine, run_id: str, chunk_no: int, publish: Publish) -> str:
    """Process one chunk if it is this worker's to process. Returns what happened:
    ``done``, ``skipped`` (done, failed, leased elsewhere, or its lane is not there yet),
    ``lost`` (the lease ran out and another worker took it), ``retry`` or ``failed``."""
    claim = _claim(engine, run_id, chunk_no)
    if claim is None:
        return "skipped"
    try:
        with _heartbeat(engine, claim):
            outcome, following = _process(engine, claim)
    except ChunkInputChanged as exc:
        _give_up(engine, claim, f"ChunkInputChanged: {exc}", permanent=True)
        return "failed"
    except Exception as exc:  # isolated to this chunk: recorded, redelivered, never a loop
        log.exception("replay chunk %s of %s failed", chunk_no, run_id)
        return _give_up(engine, claim, type(exc).__name__, permanent=False)
    if following is not None:
        publish(run_id, following)
    return outcome


def _claim(engine: Engine, run_id: str, chunk_no: int) -> Claim | None:
    c = replay_chunks.c
    now = utcnow()
    with unit_of_work(engine) as uow:
        conn = uow.conn
        stmt = select(replay_chunks).where(c.run_id == run_id, c.chunk_no == chunk_no)
        # skip locked: a worker finishing the chunk holds its row
        row = conn.execute(lock_rows(conn, stmt, skip_locked=True)).first()
        if row is None or row.done_at or row.failed_at:
            return None
        if row.claimed_until and row.claimed_until > now:
            return None  # a live worker has it; a duplicate message is dropped here
        if (
            row.seq > 0
            and conn.execute(
                select(c.chunk_no).where(
                    c.run_id == run_id,
                    c.lane == row.lane,
                    c.seq == row.seq - 1,
                    c.done_at.is_(None),
                )
            ).first()
        ):
            return None  # its lane is not there yet: the chunk before publishes it when done
        token = uuid.uuid4().hex
        conn.execute(
            update(replay_chunks)
            .where(c.run_id == run_id, c.chunk_no == chunk_no)
            .values(
                claimed_by=worker_name()[:200],
                claim_token=token,
                claimed_until=now + timedelta(seconds=get_settings().replay_lease_seconds),
                attempts=c.attempts + 1,
                started_at=func.coalesce(c.started_at, now),
            )
        )
        run = conn.execute(select(replay_runs).where(replay_runs.c.run_id == run_id)).one()
        plan = plan_row(conn, run_id)
        uow.commit()
    return Claim(
        run_id,
        chunk_no,
        row.lane,
        row.seq,
        token,
        json.loads(row.lines),
        [InputFile(*f) for f in json.loads(plan.files)],
        plan.default_tenant,
        run.extractor,
        run.extractor_version,
        bool(run.shadow),
    )


@contextmanager
def _heartbeat(engine: Engine, claim: Claim) -> Iterator[None]:
    """Renew the lease while the chunk is worked on (an LLM extractor may take minutes), so
    only a dead worker's lease runs out."""
    lease = get_settings().replay_lease_seconds
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(lease / 3):
            try:
                with unit_of_work(engine) as uow:
                    uow.conn.execute(
                        _ours(claim).values(claimed_until=utcnow() + timedelta(seconds=lease))
                    )
                    uow.commit()
            except Exception:  # a missed renewal only shortens the lease
                log.warning("replay chunk %s: lease renewal failed", claim.chunk_no)

    thread = threading.Thread(target=renew, name="replay-lease", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _ours(claim: Claim) -> Any:
    c = replay_chunks.c
    return update(replay_chunks).where(
        c.run_id == claim.run_id,
        c.chunk_no == claim.chunk_no,
        c.claim_token == claim.token,
        c.done_at.is_(None),
    )


_EXTRACTORS: dict[tuple[str, str], ExtractTurn] = {}


def _extract_turn(claim: Claim) -> ExtractTurn:
    """One extractor per process and version (the registry and patterns load once)."""
    key = (claim.extractor, claim.extractor_version)
    if key not in _EXTRACTORS:
        version = claim.extractor_version if claim.extractor == "rules" else None
        _EXTRACTORS[key] = extractor_for(claim.extractor, version)
    return _EXTRACTORS[key]


def read_chunk(claim: Claim) -> list[Turn]:
    """The chunk's turns, read from the input files by reference. A file whose size or
    modification time differs from the plan's, or a reference that is not a turn, raises
    :class:`ChunkInputChanged` (never replay other bytes than the plan saw)."""
    turns: list[Turn] = []
    handles: dict[int, Any] = {}
    try:
        for file_no, offset, length in claim.lines:
            handle = handles.get(file_no)
            if handle is None:
                planned = claim.files[file_no]
                try:
                    now = InputFile.of(Path(planned.path))
                except OSError as exc:
                    raise ChunkInputChanged(
                        f"input file {file_no} unreadable ({exc.strerror})"
                    ) from None
                if now != planned:
                    raise ChunkInputChanged(f"input file {file_no} changed since the plan")
                handle = handles[file_no] = open(planned.path, "rb")  # noqa: SIM115
            handle.seek(offset)
            line = handle.read(length)
            if offset == 0:
                line = line.removeprefix(BOM)
            parsed = parse_line(line, claim.default_tenant)
            if not isinstance(parsed, Turn):
                raise ChunkInputChanged(f"input file {file_no} byte {offset} is not a turn")
            turns.append(parsed)
    finally:
        for handle in handles.values():
            handle.close()
    return turns


def _process(engine: Engine, claim: Claim) -> tuple[str, int | None]:
    """Extract outside any transaction, then store, decide and mark done in one."""
    started = time.perf_counter()
    batch = Batch(f"chunk {claim.chunk_no}", 0, 0, read_chunk(claim))
    extracted = extract_batch(batch, _extract_turn(claim))
    ctx = GateContext(watch_rates=False)  # history, not live traffic (gate/rates.py)
    c = replay_chunks.c
    with unit_of_work(engine) as uow:
        conn = uow.conn
        if not _still_ours(conn, claim):
            return "lost", None
        applied = apply_batch(
            conn,
            batch,
            extracted,
            ctx,
            run_id=claim.run_id,
            shadow=claim.shadow,
            max_text_chars=get_settings().max_text_chars,
        )
        if claim.shadow and not _still_ours(conn, claim):  # the rollback released the row
            return "lost", None
        tally = Tally()
        tally.add(applied.facts(batch, ctx, time.perf_counter() - started))
        now = utcnow()
        conn.execute(
            _ours(claim).values(
                done_at=now, counters=dumps(tally.to_json()), claimed_until=None, error=None
            )
        )
        following = conn.execute(
            update(replay_chunks)
            .where(
                c.run_id == claim.run_id,
                c.lane == claim.lane,
                c.seq == claim.seq + 1,
                c.done_at.is_(None),
            )
            .values(published_at=now)
            .returning(c.chunk_no)
        ).scalar()
        uow.commit()
    return "done", following


def _still_ours(conn: Connection, claim: Claim) -> bool:
    """Lock the chunk row for the rest of the transaction and check the lease is ours."""
    c = replay_chunks.c
    stmt = select(c.claim_token, c.done_at).where(
        c.run_id == claim.run_id, c.chunk_no == claim.chunk_no
    )
    row = conn.execute(lock_rows(conn, stmt)).one()
    return row.claim_token == claim.token and row.done_at is None


def _give_up(engine: Engine, claim: Claim, error: str, *, permanent: bool) -> str:
    """Record the failure (class and a redacted message only). The lease ends now, so a
    coordinator's sweep redelivers the chunk after the deadline, until MAX_ATTEMPTS."""
    c = replay_chunks.c
    with unit_of_work(engine) as uow:
        row = uow.conn.execute(
            select(c.attempts).where(c.run_id == claim.run_id, c.chunk_no == claim.chunk_no)
        ).one()
        failed = permanent or row.attempts >= MAX_ATTEMPTS
        uow.conn.execute(
            _ours(claim).values(
                # a lapsed lease (not None): the sweep republishes it even while the queue is busy
                claimed_until=utcnow(),
                error=error[:500],
                failed_at=utcnow() if failed else None,
            )
        )
        uow.commit()
    log.warning(
        "replay chunk %s of %s %s: %s",
        claim.chunk_no,
        claim.run_id,
        "failed" if failed else "will be redelivered",
        error,
    )
    return "failed" if failed else "retry"
