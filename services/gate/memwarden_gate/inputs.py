"""What the gate reads, whatever carried it: one shape, made at the boundary (issue 20).

Proposals reach the gate three ways: a ``proposal.submitted`` outbox event naming a candidate
the extractor stored; the same event with the body inline (written before candidates
existed); and a body sent as it is (the API, the CLI, the client, eval, replay, or Celery
``send_task``). :func:`bodies_of` turns a consumer batch into bodies, in the order the gate
decides them, and :func:`admit` turns each body into one typed record: a
:class:`~memwarden_gate.records.Verified` proposal, the only shape the decision code reads, or
a :class:`Refusal`, which is audited and never stored as a proposal.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection

from memwarden_gate.checks import recompute_proposal_id
from memwarden_gate.records import Refusal, Verified, refusal, verified
from memwarden_shared.contract.canonical import payload_hash
from memwarden_shared.contract.models import MemoryProposal, safe_error_fields
from memwarden_shared.contract.registry import Registry
from memwarden_shared.state.candidates import take_candidates

log = logging.getLogger("memwarden.gate")


def admit(index: int, body: Any, registry_for: Callable[[str], Registry]) -> Verified | Refusal:
    """The proposal in ``body`` when it parses and its id recomputes, else why not."""
    try:
        p = MemoryProposal.model_validate(body)
    except ValidationError as exc:
        # Only field locations are kept: pydantic's messages would echo the input, secrets too.
        # A secret in an id, scope key or extractor version is refused as one, unstored.
        errors = exc.errors(include_input=False)
        reasons = ["secret"] if any(e["type"] == "secret" for e in errors) else []
        log.info("proposal refused: schema_invalid fields=%s", safe_error_fields(exc))
        return refusal(index, body, [*reasons, "schema_invalid"])
    if recompute_proposal_id(p) != p.proposal_id:
        return refusal(index, body, ["proposal_id_mismatch"], p.proposal_id)
    ph = payload_hash(
        value=p.value,
        confidence=p.confidence,
        expires_at=p.expires_at,
        evidence_hash=p.evidence.sha256,
    )
    return verified(index, p, ph, registry_for(p.tenant_id))


def _is_event(envelope: Any) -> bool:
    """An outbox envelope (keyed, from the relay) rather than a body sent with ``send_task``."""
    return (
        isinstance(envelope, dict)
        and "topic" in envelope
        and isinstance(envelope.get("payload"), dict)  # anything else is judged as a raw body
    )


def bodies_of(conn: Connection, envelopes: list[Any]) -> list[Any]:
    """The proposal bodies a consumer batch carries, events first in their subject's order
    (the event's ``order``, so a batch decides older statements first), then bodies sent as
    they are.

    An event naming a stored candidate takes its body out of the candidates table, in the
    caller's transaction (decided now, or back on a rollback); a candidate erased by a forget
    has nothing left to decide and yields no body.
    """
    events = sorted((e for e in envelopes if _is_event(e)), key=_seq)
    keys = [(e["tenant_id"], e["payload"].get("proposal_id", "")) for e in events]
    stored = take_candidates(conn, keys)
    bodies: list[Any] = []
    for event, key in zip(events, keys, strict=True):
        if "evidence" in event["payload"]:  # an event written before candidates existed
            bodies.append(event["payload"])
        elif key in stored:
            bodies.append(stored[key])
    bodies.extend(e for e in envelopes if not _is_event(e))
    return bodies


def _seq(envelope: dict[str, Any]) -> int:
    order = envelope.get("order")
    return int(order[1]) if order and order[1] is not None else 0
