"""Replay historical sessions (SPEC §1.4): stream JSONL turns through ingest, the chosen
extractor and the real gate, batch by batch, resumable from a checkpoint in the store.

Each batch is extracted in-process first, outside any transaction (an LLM extractor may
take seconds a turn and must not hold the store's write lock meanwhile). Then one
transaction stores its turns (evidence only, no ``turn.received``), keeps the proposals
whose message is stored and active with the very text they were extracted from, decides
them and advances the run's checkpoint and tally, so a batch is applied whole or not at
all and a rerun of the same run id continues after the last committed batch. Everything in
it is idempotent anyway (ingest by message id, the gate by proposal id), so a rerun under
another run id writes nothing but its own run rows.

Shadow mode runs the very same transaction against the real current state and rolls it
back: no turn is stored, nothing is committed, recall does not change. The receipts it
produced are then written to ``shadow_decisions`` with the checkpoint, in a second
transaction. Each batch is decided against the store as it is, not as earlier shadow
batches would have left it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, select, update

from memwarden_extractor.debounce import ExtractTurn, extract_debounced
from memwarden_extractor.io import select_extractor, with_id
from memwarden_extractor.rules import EXTRACTOR_VERSION
from memwarden_extractor.rules import extract as rules_extract
from memwarden_gate.io import GateContext, decide_many
from memwarden_ingest.io import IngestRefused, IngestResult, ingest_many
from memwarden_replay.source import Batch, first_bad_line, read_batches
from memwarden_replay.tally import BatchFacts, Tally, report
from memwarden_shared.contract.canonical import sha256_hex
from memwarden_shared.contract.models import MessageStatus, ProposalBody, Receipt, Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.detect.secret_mask import HISTORY_TURNS, mask_secrets
from memwarden_shared.store.db import dumps, unit_of_work, utcnow
from memwarden_shared.store.dialect import in_list, insert_ignore, lock_rows
from memwarden_shared.store.schema import (
    messages,
    replay_checkpoints,
    replay_plans,
    replay_runs,
    shadow_decisions,
)

IN_CHUNK = 500  # ids per IN (…) list: well under SQLite's bound-parameter limit


class ReplayRefused(ValueError):
    """The run cannot start or continue as asked; nothing was changed."""


@dataclass(frozen=True)
class ReplayOptions:
    run_id: str
    extractor: str = "rules"
    extractor_version: str | None = None  # rules only; None = the extractor's own
    shadow: bool = False
    batch_size: int = 500
    default_tenant: str | None = None
    max_text_chars: int = 20_000
    skip_bad: bool = False  # False: a bad line refuses the run before anything is stored


@dataclass(frozen=True)
class BatchDone:
    """Progress after a committed batch (for a progress bar)."""

    path: str
    bytes: int
    turns: int
    proposals: int


@dataclass
class ReplayPlan:
    options: ReplayOptions
    extractor_version: str  # as recorded on the run ("" when the extractor names its own)
    files: list[tuple[Path, int]]  # each input file and the byte offset to resume from
    tally: Tally
    extract_turn: ExtractTurn

    @property
    def remaining_bytes(self) -> int:
        return sum(max(path.stat().st_size - start, 0) for path, start in self.files)


def extractor_for(name: str, version: str | None) -> ExtractTurn:
    """``turn -> proposals`` for the extractor called ``name``.

    The rules extractor takes ``version`` (part of every proposal id, so a new version
    proposes anew). Others come from :func:`select_extractor` and name their own version
    (the LLM extractor: model and prompt version).
    """
    registry = default_registry()
    if name == "rules":
        rules_version = version or EXTRACTOR_VERSION
        return lambda turn: rules_extract(turn, registry, extractor_version=rules_version)
    if version:
        raise ReplayRefused(f"--extractor-version applies to the rules extractor, not {name!r}")
    try:
        chosen = select_extractor(name)
    except ValueError as exc:
        raise ReplayRefused(str(exc)) from None
    return lambda turn: chosen(turn, registry)


def plan_replay(paths: list[Path], options: ReplayOptions, *, engine: Engine) -> ReplayPlan:
    """Open the run (or reopen it to resume) and find where each file continues."""
    extract_turn = extractor_for(options.extractor, options.extractor_version)
    version = options.extractor_version or (
        EXTRACTOR_VERSION if options.extractor == "rules" else ""
    )
    with unit_of_work(engine) as uow:
        tally = open_run(uow.conn, options, version)
        if uow.conn.execute(
            select(replay_plans.c.run_id).where(replay_plans.c.run_id == options.run_id)
        ).first():
            raise ReplayRefused(
                f"run {options.run_id} is a distributed run: resume it with --distributed"
            )
        done = dict(
            uow.conn.execute(
                select(replay_checkpoints.c.path, replay_checkpoints.c.byte_offset).where(
                    replay_checkpoints.c.run_id == options.run_id
                )
            ).all()
        )
        uow.commit()
    files = []
    for path in (p.resolve() for p in paths):
        start = int(done.get(str(path), 0))
        if start > path.stat().st_size:
            raise ReplayRefused(
                f"{path} is shorter than run {options.run_id}'s checkpoint ({start} bytes): "
                "it changed since the run started; start a new run"
            )
        files.append((path, start))
    if not options.skip_bad:
        # A streaming pre-pass (one line in memory at a time): batches commit as they go, so
        # a bad line found later could only refuse a file half stored.
        for path, start in files:
            bad = first_bad_line(path, start=start, default_tenant=options.default_tenant)
            if bad:
                raise ReplayRefused(
                    f"{bad}; nothing was replayed (fix the line, or pass --skip-bad to skip "
                    "bad lines)"
                )
    return ReplayPlan(options, version, files, tally, extract_turn)


def run_replay(
    plan: ReplayPlan,
    *,
    engine: Engine,
    on_batch: Callable[[BatchDone], None] | None = None,
    drain: Callable[[], object] | None = None,
) -> dict[str, Any]:
    """Process every remaining batch of the plan; returns the report of the whole run.

    ``drain`` (embedded mode, the caller's in-process pipeline) runs the events each batch
    committed before the next batch, and the ones an interrupted run left undelivered."""
    opts = plan.options
    if drain:
        drain()  # events an interrupted run committed but never delivered
    mark = time.perf_counter()
    for path, start in plan.files:
        for batch in read_batches(
            path, start=start, size=opts.batch_size, default_tenant=opts.default_tenant
        ):
            extracted = extract_batch(batch, plan.extract_turn)
            ctx = GateContext(watch_rates=False)  # history, not live traffic (gate/rates.py)
            with unit_of_work(engine) as uow:
                applied = apply_batch(
                    uow.conn,
                    batch,
                    extracted,
                    ctx,
                    run_id=opts.run_id,
                    shadow=opts.shadow,
                    max_text_chars=opts.max_text_chars,
                )
                now = time.perf_counter()
                plan.tally.add(applied.facts(batch, ctx, now - mark))
                _advance(uow.conn, opts.run_id, batch, plan.tally)
                uow.commit()
            mark = now
            if drain:
                drain()  # embedded: index what this batch committed before going on
            if on_batch:
                on_batch(BatchDone(batch.path, batch.size, len(batch.turns), len(applied.raws)))
    with unit_of_work(engine) as uow:
        uow.conn.execute(
            update(replay_runs)
            .where(replay_runs.c.run_id == opts.run_id)
            .values(finished_at=utcnow())
        )
        uow.commit()
    return replay_report(plan, engine=engine)


def replay_report(plan: ReplayPlan, *, engine: Engine) -> dict[str, Any]:
    with engine.connect() as conn:
        row = conn.execute(
            select(replay_runs).where(replay_runs.c.run_id == plan.options.run_id)
        ).one()
    run = {
        "run_id": row.run_id,
        "extractor": row.extractor,
        "extractor_version": row.extractor_version,
        "shadow": row.shadow,
        "started_at": row.started_at.isoformat(),
        "finished_at": row.finished_at.isoformat() if row.finished_at else None,
    }
    return report(plan.tally, run)


# --------------------------------------------------------------------------- one batch


@dataclass
class _Applied:
    ingest: IngestResult
    refused: list[dict[str, Any]]
    raws: list[dict[str, Any]]
    receipts: list[Receipt]

    def facts(self, batch: Batch, ctx: GateContext, seconds: float) -> BatchFacts:
        return BatchFacts(
            turns=len(batch.turns),
            bad_lines=batch.bad_lines,
            stored=self.ingest.stored,
            duplicates=self.ingest.duplicates,
            refused=self.refused,
            raws=self.raws,
            receipts=self.receipts,
            decided_at=ctx.now,
            seconds=seconds,
        )


@dataclass(frozen=True)
class _Extracted:
    bodies: list[ProposalBody]
    texts: dict[tuple[str, str], str]  # (tenant, message id) -> sha256 of the text extracted


def extract_batch(batch: Batch, extract_turn: ExtractTurn) -> _Extracted:
    """Extract from the turns as ingest will store them: secrets masked. Only the batch is
    the context for a secret announced one turn earlier; where the store knew an earlier
    turn, the stored hash differs and the message proposes nothing (fail closed)."""
    turns: dict[tuple[str, str], Turn] = {}
    history: dict[tuple[str, str], list[str]] = {}
    for turn in batch.turns:
        key = (turn.tenant_id, turn.message_id)
        if key in turns:
            continue  # a repeated line: once
        context = history.setdefault((turn.tenant_id, turn.session_id), [])
        masked = mask_secrets(turn.text, history=context[-HISTORY_TURNS:])
        context.append(turn.text)
        turns[key] = turn.model_copy(update={"text": masked.text})
    bodies = extract_debounced(list(turns.values()), extract_turn)
    return _Extracted(bodies, {key: sha256_hex(turn.text) for key, turn in turns.items()})


def apply_batch(
    conn: Connection,
    batch: Batch,
    extracted: _Extracted,
    ctx: GateContext,
    *,
    run_id: str,
    shadow: bool,
    max_text_chars: int,
) -> _Applied:
    """Store and decide one extracted batch on ``conn``, in its open transaction; the caller
    records its progress in the same transaction and commits. The in-process replay and the
    distributed replay's chunks both go through here, so they decide alike.

    Shadow: the store must not change, so the batch is undone and only the receipts it
    produced are recorded, in a new transaction on ``conn`` (the caller's progress joins it).
    """
    applied = _apply(conn, batch, extracted, ctx, max_text_chars)
    if shadow:
        conn.rollback()
        conn.begin()
        _record_shadow(conn, run_id, applied)
    return applied


def _apply(
    conn: Connection,
    batch: Batch,
    extracted: _Extracted,
    ctx: GateContext,
    max_text_chars: int,
) -> _Applied:
    """Store and decide one batch on ``conn``; the caller commits or rolls back."""
    result, refused = _store(conn, batch.turns, max_text_chars)
    active = _active_texts(conn, list(extracted.texts))
    # a turn refused at ingest, or a message revoked or edited since, proposes nothing
    raws = [
        with_id(body)
        for body in extracted.bodies
        if (key := (body.tenant_id, body.evidence.message_id)) in extracted.texts
        and active.get(key) == extracted.texts[key]
    ]
    return _Applied(result, refused, raws, decide_many(conn, raws, ctx))


def _store(
    conn: Connection, turns: list[Turn], max_text_chars: int
) -> tuple[IngestResult, list[dict[str, Any]]]:
    try:
        return ingest_many(conn, turns, extract=False, max_text_chars=max_text_chars), []
    except IngestRefused:
        pass  # ingest refuses a batch whole (and writes nothing): find the turns at fault
    stored = duplicates = 0
    refused = []
    for turn in turns:
        try:
            one = ingest_many(conn, [turn], extract=False, max_text_chars=max_text_chars)
        except IngestRefused as exc:
            refused.append(
                {"tenant_id": turn.tenant_id, "message_id": turn.message_id, "error": str(exc)}
            )
            continue
        stored += one.stored
        duplicates += one.duplicates
    return IngestResult(stored=stored, duplicates=duplicates), refused


def _active_texts(conn: Connection, keys: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """The text sha256 of each message's active revision, as stored now."""
    wanted: dict[str, list[str]] = {}
    for tenant_id, message_id in keys:
        wanted.setdefault(tenant_id, []).append(message_id)
    found: dict[tuple[str, str], str] = {}
    for tenant_id, ids in wanted.items():
        for i in range(0, len(ids), IN_CHUNK):
            rows = conn.execute(
                select(messages.c.message_id, messages.c.text_sha256).where(
                    messages.c.tenant_id == tenant_id,
                    in_list(conn, messages.c.message_id, ids[i : i + IN_CHUNK]),
                    messages.c.status == MessageStatus.ACTIVE.value,
                )
            )
            found.update({(tenant_id, r.message_id): r.text_sha256 for r in rows})
    return found


# --------------------------------------------------------------------------- run rows


def open_run(conn: Connection, opts: ReplayOptions, version: str) -> Tally:
    row = conn.execute(select(replay_runs).where(replay_runs.c.run_id == opts.run_id)).first()
    if row is None:
        conn.execute(
            replay_runs.insert().values(
                run_id=opts.run_id,
                extractor=opts.extractor,
                extractor_version=version,
                shadow=opts.shadow,
                started_at=utcnow(),
                counters=dumps(Tally().to_json()),
            )
        )
        return Tally()
    if (row.extractor, row.extractor_version, bool(row.shadow)) != (
        opts.extractor,
        version,
        opts.shadow,
    ):
        raise ReplayRefused(
            f"run {opts.run_id} was started with extractor {row.extractor} "
            f"{row.extractor_version or '(own version)'}{' in shadow mode' if row.shadow else ''}; "
            "resume it with the same options or choose another run id"
        )
    return Tally.from_json(json.loads(row.counters))


def _advance(conn: Connection, run_id: str, batch: Batch, tally: Tally) -> None:
    """Move the file's checkpoint past ``batch`` and store the tally, in the batch's
    transaction. The checkpoint must still be where this batch started: otherwise another
    process is replaying the same run, and this one stops rather than count twice."""
    where = (replay_checkpoints.c.run_id == run_id, replay_checkpoints.c.path == batch.path)
    stmt = select(replay_checkpoints.c.byte_offset).where(*where)
    at = conn.execute(lock_rows(conn, stmt)).scalar()
    if (at or 0) != batch.start:
        raise ReplayRefused(f"run {run_id} moved on elsewhere ({batch.path} at byte {at})")
    now = utcnow()
    if at is None:
        conn.execute(
            replay_checkpoints.insert().values(
                run_id=run_id, path=batch.path, byte_offset=batch.end, updated_at=now
            )
        )
    else:
        conn.execute(
            update(replay_checkpoints).where(*where).values(byte_offset=batch.end, updated_at=now)
        )
    conn.execute(
        update(replay_runs)
        .where(replay_runs.c.run_id == run_id)
        .values(counters=dumps(tally.to_json()), finished_at=None)
    )


def _record_shadow(conn: Connection, run_id: str, applied: _Applied) -> None:
    rows = [
        {
            "run_id": run_id,
            "tenant_id": receipt.tenant_id,
            "proposal_id": receipt.proposal_id,
            "payload_hash": receipt.payload_hash,
            "decision": receipt.decision.value,
            "reasons": dumps(receipt.reasons),
            "normalized_key": str(raw.get("normalized_key")),
            "message_id": str(raw["evidence"]["message_id"]),
            "decided_at": receipt.decided_at,
        }
        for raw, receipt in zip(applied.raws, applied.receipts, strict=True)
    ]
    for i in range(0, len(rows), 200):
        # a batch redone after a crash finds its rows already there
        insert_ignore(
            conn, shadow_decisions, rows[i : i + 200], ["run_id", "tenant_id", "proposal_id"]
        )
