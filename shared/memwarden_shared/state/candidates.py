"""Extracted proposals waiting for the gate (issue 10: outbox payloads carry keys only).

The extractor stores each proposal body here in the transaction that emits its
``proposal.submitted`` event; the event names only ``(tenant, proposal_id)`` and the gate
reads the body by that key. A forget erases the bodies of a message's candidates, so no
value outlives the forget in a queue or an outbox row.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, delete, exists, func, select, text

from memwarden_shared.store.db import Batch, dumps, utcnow
from memwarden_shared.store.dialect import binds_arrays, insert_ignore_stmt, lock_rows, pairs_in
from memwarden_shared.store.schema import proposal_candidates, proposals

# One set-based statement of fixed text whatever the number of bodies (PostgreSQL), instead
# of an execution per row. ON CONFLICT DO NOTHING: a body stored before stays.
_STORE_SQL = """
INSERT INTO proposal_candidates (tenant_id, proposal_id, message_id, body_json, submitted_at)
SELECT t.tenant_id, t.proposal_id, t.message_id, t.body_json, :now
FROM unnest(CAST(:tenants AS text[]), CAST(:ids AS text[]), CAST(:messages AS text[]),
    CAST(:bodies AS text[])) AS t(tenant_id, proposal_id, message_id, body_json)
ON CONFLICT (tenant_id, proposal_id) DO NOTHING
"""


def queue_candidates(batch: Batch, bodies: list[dict[str, Any]]) -> None:
    """Store proposal bodies (each with ``proposal_id``), queued on the caller's batch: one
    statement, compiled once. A body stored before stays (the id covers its identity; a
    re-extraction of the same candidate is the same row)."""
    now = utcnow()
    rows = [
        {
            "tenant_id": b["tenant_id"],
            "proposal_id": b["proposal_id"],
            "message_id": b["evidence"]["message_id"],
            "body_json": dumps(b),
            "submitted_at": now,
        }
        for b in bodies
    ]
    if not rows:
        return
    if binds_arrays(batch.conn):
        columns = {"tenants": "tenant_id", "ids": "proposal_id", "messages": "message_id"}
        arrays = {param: [r[c] for r in rows] for param, c in columns.items()}
        params = {"now": now, **arrays, "bodies": [r["body_json"] for r in rows]}
        batch.add("candidates.store_set", lambda _conn: text(_STORE_SQL), params)
        return
    batch.add(
        "candidates.store",
        lambda conn: insert_ignore_stmt(conn, proposal_candidates, ["tenant_id", "proposal_id"]),
        rows,
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


def wait_out_the_gate(conn: Connection, tenant_id: str, message_id: str) -> None:
    """Lock the message's stored candidates, in the caller's transaction: the point where a
    revoke or a forget serialises with the gate (SPEC §9).

    The gate takes a candidate (``take_candidates``) at the start of the transaction that
    decides it, so this waits for a gate holding one of the message's candidates to commit;
    the caller's later statements then see what it committed (the dependents to revoke or
    forget). A gate that comes later waits here for the caller's commit and then reads the
    message as the caller left it. Without this, the gate read the message as active, the
    command committed and its cascade found nothing, and the gate then committed a memory on
    revoked evidence that no cascade would ever see."""
    conn.execute(
        lock_rows(
            conn,
            select(proposal_candidates.c.proposal_id)
            .where(
                proposal_candidates.c.tenant_id == tenant_id,
                proposal_candidates.c.message_id == message_id,
            )
            .order_by(proposal_candidates.c.proposal_id),
        )
    ).all()


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
