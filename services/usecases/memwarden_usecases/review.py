"""Review (SPEC §10): an owner's pending confirmations, approvals bound to the payload hash,
rejections, and the tenant's policy profile."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Engine, and_, select

from memwarden_gate.review import ReviewOutcome, ReviewRefused
from memwarden_gate.review import approve as _approve
from memwarden_gate.review import pending as _pending
from memwarden_gate.review import reject as _reject
from memwarden_shared.state.auth import Principal
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.dialect import insert_ignore
from memwarden_shared.store.schema import messages, proposals, tenant_policies

__all__ = [
    "Decided",
    "ReviewOutcome",
    "ReviewRefused",
    "approve",
    "decide_each",
    "pending",
    "pending_with_evidence",
    "reject",
    "set_policy",
]


def pending(
    engine: Engine, principal: Principal, tenant_id: str, *, limit: int = 100
) -> list[dict[str, Any]]:
    """Candidates awaiting confirmation, most confident first (``memory:review``)."""
    return _pending(principal, tenant_id, engine=engine, limit=limit)


def pending_with_evidence(
    engine: Engine, principal: Principal, tenant_id: str, *, limit: int = 100
) -> list[dict[str, Any]]:
    """:func:`pending`, each with its ``evidence``: the stored message revision and the
    code-point offsets of the sentence, so a reviewer sees the claim in its context."""
    items = pending(engine, principal, tenant_id, limit=limit)
    evidence = _evidence_for(engine, tenant_id, [i["proposal_id"] for i in items])
    return [{**i, "evidence": evidence[i["proposal_id"]]} for i in items]


def approve(
    engine: Engine, principal: Principal, tenant_id: str, proposal_id: str, payload_hash: str
) -> ReviewOutcome:
    """Commit exactly the frozen candidate if its payload hash is still ``payload_hash``;
    :class:`ReviewRefused` (with a ``code``) otherwise."""
    return _approve(principal, tenant_id, proposal_id, payload_hash, engine=engine)


def reject(engine: Engine, principal: Principal, tenant_id: str, proposal_id: str) -> ReviewOutcome:
    """Withdraw a pending candidate; :class:`ReviewRefused` when it is not pending."""
    return _reject(principal, tenant_id, proposal_id, engine=engine)


Verdict = Literal["approve", "reject"]


@dataclass(frozen=True)
class Decided:
    """One item of :func:`decide_each`: its outcome, or the code that refused it."""

    proposal_id: str
    verdict: Verdict
    outcome: ReviewOutcome | None = None
    refused: str | None = None


def decide_each(
    engine: Engine,
    principal: Principal,
    tenant_id: str,
    decisions: Iterable[tuple[str, Verdict, str | None]],
) -> list[Decided]:
    """``(proposal_id, verdict, payload_hash)`` decided one by one, in order, each exactly as
    :func:`approve` or :func:`reject` alone would (its own transaction, an approval bound to
    its own payload hash): a refusal is that item's result and the rest are still decided."""
    results = []
    for proposal_id, verdict, payload_hash in decisions:
        try:
            if verdict == "approve":
                # no hash matches "": an approval without one is refused, never unbound
                outcome = approve(engine, principal, tenant_id, proposal_id, payload_hash or "")
            else:
                outcome = reject(engine, principal, tenant_id, proposal_id)
        except ReviewRefused as exc:
            results.append(Decided(proposal_id, verdict, refused=exc.code))
        else:
            results.append(Decided(proposal_id, verdict, outcome=outcome))
    return results


def set_policy(engine: Engine, tenant_id: str, profile: str) -> None:
    """The tenant's policy profile: ``auto`` (the gate commits), ``review_all``, ``staged``
    or ``local`` (``memwarden_gate.profiles``). Setting it starts a staged review period."""
    with engine.begin() as conn:
        conn.execute(tenant_policies.delete().where(tenant_policies.c.tenant_id == tenant_id))
        insert_ignore(
            conn,
            tenant_policies,
            {"tenant_id": tenant_id, "profile": profile, "updated_at": utcnow()},
            ["tenant_id"],
        )


def _evidence_for(
    engine: Engine, tenant_id: str, proposal_ids: list[str]
) -> dict[str, dict[str, Any]]:
    """Evidence of pending proposals: offsets and the message revision they point into."""
    if not proposal_ids:
        return {}
    stmt = (
        select(
            proposals.c.proposal_id,
            proposals.c.message_id,
            proposals.c.message_revision,
            proposals.c.evidence_start,
            proposals.c.evidence_end,
            proposals.c.evidence_sha256,
            messages.c.text,
            messages.c.status,
        )
        .select_from(proposals)
        .outerjoin(
            messages,
            and_(
                messages.c.tenant_id == proposals.c.tenant_id,
                messages.c.message_id == proposals.c.message_id,
                messages.c.revision == proposals.c.message_revision,
            ),
        )
        .where(proposals.c.tenant_id == tenant_id, proposals.c.proposal_id.in_(proposal_ids))
    )
    with unit_of_work(engine) as uow:
        rows = uow.conn.execute(stmt).all()
    return {
        r.proposal_id: {
            "message_id": r.message_id,
            "revision": r.message_revision,
            "start": r.evidence_start,
            "end": r.evidence_end,
            "sha256": r.evidence_sha256,
            "message_text": r.text,
            "message_status": r.status,
        }
        for r in rows
    }
