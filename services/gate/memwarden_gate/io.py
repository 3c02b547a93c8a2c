"""The gate's unit of work: verify, decide under the fact-key lock, record, commit (SPEC §5, §7).

Entry points only; the set-based decision of a batch lives in ``batch.py``, the records it
writes in ``records.py``.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, Engine

from memwarden_gate.batch import decide_wave, waves
from memwarden_gate.checks import recompute_proposal_id
from memwarden_gate.rates import record_batch, screen_batch
from memwarden_gate.records import GateContext, Verified, refuse, stored_receipt, verified
from memwarden_shared.contract.canonical import payload_hash
from memwarden_shared.contract.models import MemoryProposal, Receipt, safe_error_fields
from memwarden_shared.delivery.consume import ConsumeResult, consume
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.state.candidates import take_candidates
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

log = logging.getLogger("memwarden.gate")


def decide_batch(
    raw_proposals: list[Any], *, engine: Engine | None = None, ctx: GateContext | None = None
) -> list[Receipt]:
    """Decide proposals in one transaction; returns receipts in input order."""
    ctx = ctx or GateContext()
    with unit_of_work(engine or get_engine()) as uow:
        out = decide_many(uow.conn, raw_proposals, ctx)
        uow.commit()
    return out


def is_event(envelope: Any) -> bool:
    """An outbox envelope (keyed, from the relay) rather than a raw proposal sent with
    ``send_task``."""
    return (
        isinstance(envelope, dict)
        and "topic" in envelope
        and isinstance(envelope.get("payload"), dict)  # anything else is judged as a raw body
    )


def decide_events(conn: Connection, envelopes: list[Any], ctx: GateContext | None = None) -> int:
    """Decide fresh gate events inside the caller's transaction (the consumer runner owns
    it); returns how many proposals were decided.

    A ``proposal.submitted`` event names a stored candidate; its body is read here, and
    removed once decided. A candidate erased by a forget has nothing left to decide. Raw
    proposals (``send_task``) are decided as they are. Proposals go to the gate in their
    subject's order (the event's ``order``), so a batch decides older statements first.
    """
    ctx = ctx or GateContext()
    events = sorted((e for e in envelopes if is_event(e)), key=_seq)
    keys = [(e["tenant_id"], e["payload"].get("proposal_id", "")) for e in events]
    bodies = take_candidates(conn, keys)  # decided now, or back on a rollback
    raws: list[Any] = []
    for event, key in zip(events, keys, strict=True):
        if "evidence" in event["payload"]:  # an event written before candidates existed
            raws.append(event["payload"])
        elif key in bodies:
            raws.append(bodies[key])
    raws.extend(e for e in envelopes if not is_event(e))
    receipts = decide_many(conn, raws, ctx) if raws else []
    return len(receipts)


def _seq(envelope: dict[str, Any]) -> int:
    order = envelope.get("order")
    return int(order[1]) if order and order[1] is not None else 0


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


def decide_many(conn: Connection, raw_proposals: list[Any], ctx: GateContext) -> list[Receipt]:
    """:func:`decide_batch` inside the caller's transaction (replay commits it with its
    checkpoint, or rolls it back in shadow mode). Same order, same receipts."""
    with batch_scope():  # each span classified, each message scanned, once per batch
        return _decide_many(conn, raw_proposals, ctx)


def _decide_many(conn: Connection, raw_proposals: list[Any], ctx: GateContext) -> list[Receipt]:
    out: dict[int, Receipt] = {}
    ready: list[Verified] = []
    for index, raw in enumerate(raw_proposals):
        item = _verify(conn, index, raw, ctx, out)
        if item is not None:
            ready.append(item)
    ready.sort(key=lambda v: v.memory_id)  # one lock order for every batch
    guard = screen_batch(conn, ready, ctx)  # review holds: write-rate anomaly, canary rollback
    for wave in waves(ready):
        receipts, conflicts = decide_wave(conn, wave, ctx)
        out.update(receipts)
        for v in conflicts:
            out[v.index] = refuse(
                conn,
                raw_proposals[v.index],
                ["payload_conflict"],
                ctx,
                v.p.proposal_id,
                v.payload_hash,
            )
    record_batch(conn, guard, out, ctx)
    return [out[i] for i in range(len(raw_proposals))]


def _verify(
    conn: Connection, index: int, raw: Any, ctx: GateContext, out: dict[int, Receipt]
) -> Verified | None:
    try:
        p = MemoryProposal.model_validate(raw)
    except ValidationError as exc:
        # Only field locations are kept: pydantic's messages would echo the input, secrets too.
        # A secret in an id, scope key or extractor version is refused as one, unstored.
        errors = exc.errors(include_input=False)
        reasons = ["secret"] if any(e["type"] == "secret" for e in errors) else []
        log.info("proposal refused: schema_invalid fields=%s", safe_error_fields(exc))
        out[index] = refuse(conn, raw, [*reasons, "schema_invalid"], ctx, None, None)
        return None
    if recompute_proposal_id(p) != p.proposal_id:
        out[index] = refuse(conn, raw, ["proposal_id_mismatch"], ctx, p.proposal_id, None)
        return None
    ph = payload_hash(
        value=p.value,
        confidence=p.confidence,
        expires_at=p.expires_at,
        evidence_hash=p.evidence.sha256,
    )
    return verified(index, p, ph, ctx.registry_for(p.tenant_id))
