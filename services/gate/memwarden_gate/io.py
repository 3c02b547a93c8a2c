"""The gate's unit of work: verify, decide under the fact-key lock, record, commit (SPEC §5, §7).

Entry points only. What arrives is made one shape in ``inputs.py``, the set-based decision
of a batch lives in ``batch.py``, the records it writes in ``records.py``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Engine

from memwarden_gate.batch import decide_wave, waves
from memwarden_gate.inputs import admit, bodies_of
from memwarden_gate.rates import record_batch, screen_batch
from memwarden_gate.records import GateContext, Refusal, Verified, refusal, refuse, stored_receipt
from memwarden_shared.contract.models import Receipt
from memwarden_shared.delivery.consume import ConsumeResult, consume
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.state import commit_switch
from memwarden_shared.state.auth import sealed_single_owner
from memwarden_shared.store.db import get_engine, unit_of_work
from memwarden_shared.text.batch_memo import batch_scope

__all__ = [
    "GateContext",
    "decide_batch",
    "decide_events",
    "decide_many",
    "run_gate_stage",
    "stored_receipt",
]


def decide_batch(
    bodies: list[Any], *, engine: Engine | None = None, ctx: GateContext | None = None
) -> list[Receipt]:
    """Decide proposal bodies (JSON, as submitted) in one transaction; returns receipts in
    input order."""
    ctx = ctx or GateContext()
    with unit_of_work(engine or get_engine()) as uow:
        out = decide_many(uow.conn, bodies, ctx)
        uow.commit()
    return out


def decide_events(conn: Connection, envelopes: list[Any], ctx: GateContext | None = None) -> int:
    """Decide fresh gate events inside the caller's transaction (the consumer runner owns
    it); returns how many proposals were decided. Whatever carried them, they reach
    :func:`decide_many` as bodies (:func:`memwarden_gate.inputs.bodies_of`)."""
    bodies = bodies_of(conn, envelopes)
    return len(decide_many(conn, bodies, ctx or GateContext())) if bodies else 0


def run_gate_stage(envelopes: list[Any], *, engine: Engine | None = None) -> ConsumeResult:
    """The gate worker's batch: inbox, decisions and consumed marks in one transaction,
    held back while an older event of the subject is unconsumed."""
    return consume(
        Stage.GATE,
        envelopes,
        lambda conn, fresh: decide_events(conn, fresh),
        engine=engine,
        ordered=True,
    )


def decide_many(conn: Connection, bodies: list[Any], ctx: GateContext) -> list[Receipt]:
    """:func:`decide_batch` inside the caller's transaction (replay commits it with its
    checkpoint, or rolls it back in shadow mode). Same order, same receipts."""
    with batch_scope():  # each span classified, each message scanned, once per batch
        return _decide_many(conn, bodies, ctx)


def _decide_many(conn: Connection, bodies: list[Any], ctx: GateContext) -> list[Receipt]:
    out: dict[int, Receipt] = {}
    ready: list[Verified] = []
    for index, body in enumerate(bodies):
        admitted = admit(index, body, ctx.registry_for)
        if isinstance(admitted, Refusal):
            out[index] = refuse(conn, admitted, ctx)
        else:
            ready.append(admitted)
    ready.sort(key=lambda v: v.memory_id)  # one lock order for every batch
    # one read for the batch: tenants whose commit switch is closed (hard rollback)
    tenants = {v.p.tenant_id for v in ready}
    ctx.closed = commit_switch.closed_for(conn, tenants) if ready else {}
    ctx.sealed = sealed_single_owner(conn, tenants)
    guard = screen_batch(conn, ready, ctx)  # review holds: write-rate anomaly, canary rollback
    for wave in waves(ready):
        receipts, conflicts = decide_wave(conn, wave, ctx)
        out.update(receipts)
        for v in conflicts:
            conflict = refusal(
                v.index, bodies[v.index], ["payload_conflict"], v.p.proposal_id, v.payload_hash
            )
            out[v.index] = refuse(conn, conflict, ctx)
    record_batch(conn, guard, out, ctx)
    return [out[i] for i in range(len(bodies))]
