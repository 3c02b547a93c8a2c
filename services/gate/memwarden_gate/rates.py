"""The gate's hooks into write-rate watching (``shared.anomaly``): a fixed number of
statements per batch, before and after its decisions, never per proposal."""

from __future__ import annotations

from sqlalchemy import Connection

from memwarden_gate.records import GateContext, Verified
from memwarden_shared.config import get_settings
from memwarden_shared.contract.models import Receipt
from memwarden_shared.observe.anomaly import Guard, Proposed, Thresholds, is_paused, record, screen


def screen_batch(conn: Connection, ready: list[Verified], ctx: GateContext) -> Guard | None:
    """Before deciding: read the holds and rates of the batch's scopes and put the review
    reasons of held proposals on ``ctx``; None when the context does not watch rates."""
    ctx.held = {}
    if not ctx.watch_rates or is_paused() or not ready:
        return None
    proposed = [
        Proposed(
            v.p.tenant_id,
            v.p.subject_id,
            v.p.evidence.message_id,
            v.p.extractor_version,
            v.p.proposal_id,
        )
        for v in ready
    ]
    guard, writes = screen(conn, proposed, ctx.now, Thresholds.from_settings(get_settings()))
    guard.writes = {v.index: w for v, w in zip(ready, writes, strict=True)}
    for index, w in guard.writes.items():
        reasons = guard.reasons(w)
        if reasons:
            ctx.held[index] = reasons
    return guard


def record_batch(
    conn: Connection, guard: Guard | None, out: dict[int, Receipt], ctx: GateContext
) -> None:
    """After deciding: count the batch's fresh decisions (a replayed receipt was counted when
    it was made) and place the holds they trip."""
    if guard is None:
        return
    decided = [
        (w, out[i].decision)
        for i, w in guard.writes.items()
        if i in out and out[i].decided_at == ctx.now
    ]
    record(conn, guard, decided, ctx.now)
