"""Ingest: store turns immutably with their text sha256 and an outbox ``turn.received`` row,
in one transaction per batch. Secrets are masked before anything is stored (SPEC §5.6 v2):
the stored text, its sha256 and every later copy hold ``*`` where a secret was."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine, select, text

from memwarden_shared.contract.canonical import sha256_hex
from memwarden_shared.contract.models import Topic, Turn
from memwarden_shared.delivery.outbox import (
    Event,
    emit_many,
    in_flight_heads,
    order_seq,
    resequence,
)
from memwarden_shared.detect.secret_mask import HISTORY_TURNS, Masked, mask_secrets
from memwarden_shared.store.db import as_utc, get_engine, offset_minutes, unit_of_work, utcnow
from memwarden_shared.store.dialect import binds_arrays, insert_ignore_stmt, pairs_in
from memwarden_shared.store.schema import messages


class IngestRefused(ValueError):
    """A batch was refused whole; nothing was stored."""


@dataclass(frozen=True)
class IngestResult:
    stored: int
    duplicates: int


def _fingerprint(
    tenant: str,
    subject: str,
    session: str,
    role: str,
    source: str,
    author: str,
    text_sha: str,
    created_at: object,
) -> tuple[object, ...]:
    return (tenant, subject, session, role, source, author, text_sha, created_at)


def ingest_turns(
    turns: list[Turn],
    *,
    engine: Engine | None = None,
    extract: bool = True,
    max_text_chars: int = 20_000,
) -> IngestResult:
    """Store a batch of turns. A message id seen before with identical content is a no-op;
    with different content the whole batch is refused and nothing changes.

    ``extract=False`` stores turns as evidence only (an external extractor will propose).
    """
    with unit_of_work(engine or get_engine()) as uow:
        result = ingest_many(uow.conn, turns, extract=extract, max_text_chars=max_text_chars)
        uow.commit()
    return result


def ingest_many(
    conn: Connection, turns: list[Turn], *, extract: bool = True, max_text_chars: int = 20_000
) -> IngestResult:
    """:func:`ingest_turns` inside the caller's transaction (replay stores a batch and decides
    its proposals in one). Raises :class:`IngestRefused` before writing anything."""
    for turn in turns:
        if len(turn.text) > max_text_chars:
            raise IngestRefused(
                f"message {turn.message_id}: text has {len(turn.text)} characters, "
                f"limit {max_text_chars}"
            )
    now = utcnow()
    stored = duplicates = 0
    rows, events = [], []
    mine: set[tuple[str, str]] = set()  # the messages this call inserts unless a racer did
    batch_seen = _existing_fingerprints(conn, {(t.tenant_id, t.message_id) for t in turns})
    history = _session_histories(conn, turns)
    for turn in turns:
        session = (turn.tenant_id, turn.session_id)
        context = history.setdefault(session, [])
        masked = mask_secrets(turn.text, history=context[-HISTORY_TURNS:])
        context.append(turn.text)
        text_sha = sha256_hex(masked.text)
        fp = _fingerprint(
            turn.tenant_id,
            turn.subject_id,
            turn.session_id,
            turn.role.value,
            turn.source.value,
            turn.author,
            text_sha,
            as_utc(turn.created_at),
        )
        ident = (turn.tenant_id, turn.message_id)
        existing = batch_seen.get(ident)
        if existing is not None:
            if existing != fp:
                raise IngestRefused(
                    f"message {turn.message_id} already exists in tenant {turn.tenant_id} "
                    "with different content; send a new revision to change it"
                )
            duplicates += 1
            continue
        batch_seen[ident] = fp
        mine.add(ident)
        rows.append(
            {
                "tenant_id": turn.tenant_id,
                "message_id": turn.message_id,
                "revision": 1,
                "subject_id": turn.subject_id,
                "session_id": turn.session_id,
                "role": turn.role.value,
                "source": turn.source.value,
                "author_id": turn.author,
                **_masked_columns(masked),
                "text_sha256": text_sha,
                "created_at": turn.created_at,
                "utc_offset_minutes": offset_minutes(turn.created_at),
                "received_at": now,
                "status": "active",
            }
        )
    if rows:
        # ON CONFLICT DO NOTHING, then a re-read: an identical ingest running at the same
        # moment may store the same messages first; theirs stand and ours are duplicates.
        inserted = _insert_new(conn, rows)
        theirs = _existing_fingerprints(conn, mine - set(inserted))
        for turn in turns:
            ident = (turn.tenant_id, turn.message_id)
            if ident not in mine:
                continue
            mine.discard(ident)
            if ident not in inserted:  # stored by the concurrent ingest
                if theirs.get(ident) != batch_seen.get(ident):
                    raise IngestRefused(
                        f"message {turn.message_id} already exists in tenant {turn.tenant_id} "
                        "with different content; send a new revision to change it"
                    )
                duplicates += 1
                continue
            stored += 1
            if extract:
                events.append(
                    (
                        Topic.TURN_RECEIVED,
                        f"{turn.tenant_id}:{turn.message_id}:1",
                        turn.tenant_id,
                        {
                            "message_id": turn.message_id,
                            "revision": 1,
                            "subject_id": turn.subject_id,
                        },
                        f"{turn.tenant_id}:{turn.subject_id}",
                        order_seq(turn.created_at),
                    )
                )
        emit_many(conn, _resequenced(conn, events))
    return IngestResult(stored=stored, duplicates=duplicates)


def _resequenced(conn: Connection, events: list[Event]) -> list[Event]:
    """``events`` with each late turn placed after its subject's proposals waiting at the
    gate (``outbox.resequence``; docs/architecture.md, "Ordering per subject")."""
    heads = in_flight_heads(conn, {e[4] for e in events}, {str(Topic.PROPOSAL_SUBMITTED)})
    seqs = resequence([(e[4], e[5]) for e in events], heads)
    return [(*e[:5], seq) for e, seq in zip(events, seqs, strict=True)]


def _insert_new(conn: Connection, rows: list[dict[str, object]]) -> dict[tuple[str, str], int]:
    """Insert the rows not stored yet; returns the row id of each row this call inserted.

    ON CONFLICT DO NOTHING: an identical ingest running at the same moment may store the
    same messages first; theirs stand and ours are duplicates."""
    # executemany with RETURNING: compiled once and cached (SQLAlchemy sends the rows as
    # multi-row pages), where a .values(rows) statement is compiled anew for every batch
    stmt = insert_ignore_stmt(conn, messages, ["tenant_id", "message_id", "revision"]).returning(
        messages.c.tenant_id, messages.c.message_id, messages.c.id
    )
    return {(r.tenant_id, r.message_id): int(r.id) for r in conn.execute(stmt, rows)}


def _masked_columns(masked: Masked) -> dict[str, object]:
    """The ``messages`` columns that carry a masked text: the caller adds its sha256."""
    return {
        "text": masked.text,
        "masked_spans": masked.spans_json(),
        "secret_unlocated": masked.unlocated,
    }


def _session_histories(conn: Connection, turns: list[Turn]) -> dict[tuple[str, str], list[str]]:
    """The latest stored turns of each session in the batch, oldest first, as stored (masked):
    a turn ending "my PIN is", or a cue followed by fragments, makes what comes next a
    secret (:data:`HISTORY_TURNS` turns cover the longest session window)."""
    if binds_arrays(conn):
        return _session_histories_pg(conn, turns)
    out: dict[tuple[str, str], list[str]] = {}
    for tenant_id, session_id in {(t.tenant_id, t.session_id) for t in turns}:
        # a re-sent turn is not its own context: a duplicate must mask the same way again
        ids = [
            t.message_id for t in turns if (t.tenant_id, t.session_id) == (tenant_id, session_id)
        ]
        latest = conn.execute(
            select(messages.c.text)
            .where(
                messages.c.tenant_id == tenant_id,
                messages.c.session_id == session_id,
                messages.c.message_id.not_in(ids),
            )
            .order_by(messages.c.created_at.desc(), messages.c.id.desc())
            .limit(HISTORY_TURNS)
        ).scalars()
        texts = [t for t in latest if t]
        if texts:
            out[(tenant_id, session_id)] = texts[::-1]
    return out


# Each session's latest stored turns by its (tenant, session, created_at) index, one query
# for the whole batch however many sessions it holds. A message of the batch is excluded
# in every session of its tenant: a message belongs to one session (one that claims
# another is refused as different content).
_SESSION_HISTORIES_PG = """
SELECT s.tenant_id, s.session_id, m.text
FROM unnest(CAST(:tenants AS text[]), CAST(:sessions AS text[])) AS s(tenant_id, session_id)
CROSS JOIN LATERAL (
    SELECT text, created_at, id FROM messages
    WHERE messages.tenant_id = s.tenant_id AND messages.session_id = s.session_id
      AND NOT EXISTS (
          SELECT 1 FROM unnest(CAST(:batch_tenants AS text[]), CAST(:batch_ids AS text[]))
              AS b(tenant_id, message_id)
          WHERE b.tenant_id = messages.tenant_id AND b.message_id = messages.message_id)
    ORDER BY messages.created_at DESC, messages.id DESC
    LIMIT :depth
) AS m
ORDER BY s.tenant_id, s.session_id, m.created_at, m.id
"""


def _session_histories_pg(conn: Connection, turns: list[Turn]) -> dict[tuple[str, str], list[str]]:
    sessions = sorted({(t.tenant_id, t.session_id) for t in turns})
    rows = conn.execute(
        text(_SESSION_HISTORIES_PG),
        {
            "tenants": [t for t, _ in sessions],
            "sessions": [s for _, s in sessions],
            "batch_tenants": [t.tenant_id for t in turns],
            "batch_ids": [t.message_id for t in turns],
            "depth": HISTORY_TURNS,
        },
    )
    out: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        if r.text:
            out.setdefault((r.tenant_id, r.session_id), []).append(r.text)
    return out


def _existing_fingerprints(
    conn: Connection, idents: set[tuple[str, str]]
) -> dict[tuple[str, str], tuple[object, ...]]:
    """Fingerprints of the messages already stored, one query for the whole batch."""
    if not idents:
        return {}
    rows = conn.execute(
        select(messages).where(
            pairs_in(conn, messages.c.tenant_id, messages.c.message_id, idents),
            messages.c.revision == 1,
        )
    )
    return {
        (r.tenant_id, r.message_id): _fingerprint(
            r.tenant_id,
            r.subject_id,
            r.session_id,
            r.role,
            r.source,
            r.author_id,
            r.text_sha256,
            as_utc(r.created_at),
        )
        for r in rows
    }
