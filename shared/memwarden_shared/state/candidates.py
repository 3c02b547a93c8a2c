"""Extracted proposals waiting for the gate (issue 10: outbox payloads carry keys only).

The extractor stores each proposal body here in the transaction that emits its
``proposal.submitted`` event; the event names only ``(tenant, proposal_id)`` and the gate
reads the body by that key. A forget erases the bodies of a message's candidates, so no
value outlives the forget in a queue or an outbox row.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, delete, exists, func, select

from memwarden_shared.store.db import Batch, dumps, utcnow
from memwarden_shared.store.dialect import insert_ignore_stmt, pairs_in
from memwarden_shared.store.schema import proposal_candidates, proposals


def queue_candidates(batch: Batch, bodies: list[dict[str, Any]]) -> None:
    """Store proposal bodies (each with ``proposal_id``), queued on the caller's batch: one
    executemany, compiled once. A body stored before stays (the id covers its identity; a
    re-extraction of the same candidate is the same row)."""
    now = utcnow()
    batch.add(
        "candidates.store",
        lambda conn: insert_ignore_stmt(conn, proposal_candidates, ["tenant_id", "proposal_id"]),
        [
            {
                "tenant_id": b["tenant_id"],
                "proposal_id": b["proposal_id"],
                "message_id": b["evidence"]["message_id"],
                "body_json": dumps(b),
                "submitted_at": now,
            }
            for b in bodies
        ],
    )


def take_candidates(
    conn: Connection, keys: list[tuple[str, str]]
) -> dict[tuple[str, str], dict[str, Any]]:
    """Remove and return the stored bodies of ``(tenant, proposal_id)`` keys (an erased one
    is absent): the gate takes what it decides in one statement, in its own transaction, so
    a rollback puts them back. The key lists match a superset in theory; proposal ids hash
    their tenant, so exact in practice."""
    if not keys:
        return {}
    wanted = set(keys)
    c = proposal_candidates.c
    rows = conn.execute(
        delete(proposal_candidates)
        .where(pairs_in(conn, c.tenant_id, c.proposal_id, wanted))
        .returning(c.tenant_id, c.proposal_id, c.body_json)
    )
    return {
        (r.tenant_id, r.proposal_id): json.loads(r.body_json)
        for r in rows
        if (r.tenant_id, r.proposal_id) in wanted
    }


def candidate_values(conn: Connection, tenant_id: str, message_id: str) -> list[Any]:
    """The values of a message's stored candidates (a forget hashes them for suppression)."""
    rows = conn.execute(
        select(proposal_candidates.c.body_json).where(
            proposal_candidates.c.tenant_id == tenant_id,
            proposal_candidates.c.message_id == message_id,
        )
    )
    return [json.loads(r.body_json).get("value") for r in rows]


def erase_candidates_for_message(conn: Connection, tenant_id: str, message_id: str) -> int:
    """Delete every stored candidate citing the message; returns how many. A pending
    ``proposal.submitted`` event for one of them then finds nothing to decide."""
    return (
        conn.execute(
            delete(proposal_candidates).where(
                proposal_candidates.c.tenant_id == tenant_id,
                proposal_candidates.c.message_id == message_id,
            )
        ).rowcount
        or 0
    )


def undecided_count(conn: Connection, tenant_id: str | None = None) -> int:
    """Stored candidates the gate has not decided (no proposal row)."""
    decided = exists().where(
        proposals.c.tenant_id == proposal_candidates.c.tenant_id,
        proposals.c.proposal_id == proposal_candidates.c.proposal_id,
    )
    stmt = select(func.count()).select_from(proposal_candidates).where(~decided)
    if tenant_id is not None:
        stmt = stmt.where(proposal_candidates.c.tenant_id == tenant_id)
    return int(conn.execute(stmt).scalar_one())
