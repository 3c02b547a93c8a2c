"""Extractor stage I/O: read stored turns, run the rules extractor, emit proposals to the gate."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sqlalchemy import Connection, Engine, Row, select

from memwarden_extractor.canary import routed
from memwarden_extractor.debounce import extract_debounced
from memwarden_extractor.llm import extract as llm_extract
from memwarden_extractor.llm import extractor_from_settings
from memwarden_extractor.llm_client import LlmClient
from memwarden_extractor.rules import EXTRACTOR_VERSION, extract
from memwarden_shared.config import get_settings
from memwarden_shared.contract.canonical import proposal_id, proposal_identity
from memwarden_shared.contract.models import MessageStatus, ProposalBody, Topic, Turn
from memwarden_shared.contract.registry import Registry, default_registry
from memwarden_shared.delivery.consume import consume
from memwarden_shared.delivery.outbox import order_seq, queue_events
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.state.candidates import queue_candidates
from memwarden_shared.state.forgotten import forgotten_topics
from memwarden_shared.store.db import Batch, get_engine, in_offset, unit_of_work, utcnow
from memwarden_shared.store.dialect import pairs_in
from memwarden_shared.store.schema import messages

CONSUMER = Stage.EXTRACTOR.value
ProposalEvent = tuple[Topic, str, str, dict[str, Any], str, int]
Extractor = Callable[[Turn, Registry], list[ProposalBody]]


def select_extractor(name: str = "rules") -> Extractor:
    """The extractor called ``name`` (``MEMWARDEN_EXTRACTOR``): ``rules`` or ``llm``."""
    if name == "rules":
        return extract
    if name == "llm":
        return extractor_from_settings(get_settings())
    raise ValueError(f"unknown extractor {name!r}; expected 'rules' or 'llm'")


def with_id(body: ProposalBody) -> dict[str, Any]:
    """The proposal as sent to the gate: the body plus its recomputable id."""
    data = body.model_dump(mode="json")
    data["proposal_id"] = proposal_id(
        proposal_identity(
            tenant_id=body.tenant_id,
            subject_id=body.subject_id,
            scope=data["scope"],
            kind=data["kind"],
            normalized_key=body.normalized_key,
            message_id=body.evidence.message_id,
            start=body.evidence.start,
            end=body.evidence.end,
            stable_candidate_ordinal=body.stable_candidate_ordinal,
            extractor_version=body.extractor_version,
        )
    )
    return data


_extractor_version: ContextVar[str | None] = ContextVar("memwarden_extractor_version", default=None)


@contextmanager
def extractor_version_scope(version: str | None) -> Iterator[None]:
    """Run the rules extractor under ``version`` in this context (eval compares versions; the
    version is part of every proposal id, so each version proposes anew)."""
    token = _extractor_version.set(version)
    try:
        yield
    finally:
        _extractor_version.reset(token)


def turn_of(row: Row[Any]) -> Turn:
    """A stored message as the extractor sees it, its time in the offset it was written in."""
    return Turn(
        tenant_id=row.tenant_id,
        subject_id=row.subject_id,
        session_id=row.session_id,
        message_id=row.message_id,
        role=row.role,
        source=row.source,
        text=row.text,
        created_at=in_offset(row.created_at, row.utc_offset_minutes),
        author_id=row.author_id,
    )


def _stage_extractor(
    conn: Connection, registry: Registry, turns: Sequence[Turn] = ()
) -> Callable[[Turn], list[ProposalBody]]:
    """The extractor this stage runs: ``MEMWARDEN_EXTRACTOR``, or the rules extractor under
    the version an eval comparison set; with a canary, its share of sessions goes to the
    canary version (``services.extractor.canary``). The LLM extractor is told what each
    subject of ``turns`` asked to forget (keys and hashes, read once for the batch)."""
    settings = get_settings()
    version = _extractor_version.get()
    if version is not None:  # an eval comparison runs one version, never a canary
        return lambda turn: extract(turn, registry, extractor_version=version)
    if settings.extractor == "rules":
        stable: Callable[[Turn], list[ProposalBody]] = lambda turn: extract(  # noqa: E731
            turn, registry, extractor_version=EXTRACTOR_VERSION
        )
    elif settings.extractor == "llm":
        topics = forgotten_topics(conn, {(t.tenant_id, t.subject_id) for t in turns})
        client = LlmClient.from_settings(settings)
        stable = lambda turn: llm_extract(  # noqa: E731
            turn, registry, client=client, forgotten=topics.get((turn.tenant_id, turn.subject_id))
        )
    else:
        chosen = select_extractor(settings.extractor)
        stable = lambda turn: chosen(turn, registry)  # noqa: E731
    if not settings.extractor_canary:
        return stable
    return routed(conn, settings, registry, stable, utcnow())


def _emit_proposals(
    conn: Connection,
    rows: list[Row[Any]],
    registry: Registry,
    seqs: dict[tuple[str, str], int] | None = None,
) -> int:
    """Extract, store each proposal body as a candidate and emit the events that name them:
    keys only, never values (the gate reads the body by key). The candidates and the events
    are written in one round trip; returns how many events."""
    bodies, events = _proposal_events(conn, rows, registry, seqs or {})
    batch = Batch(conn)
    queue_candidates(batch, bodies)
    queue_events(batch, events)
    batch.send()
    return len(events)


def _proposal_events(
    conn: Connection, rows: list[Row[Any]], registry: Registry, seqs: dict[tuple[str, str], int]
) -> tuple[list[dict[str, Any]], list[ProposalEvent]]:
    """The proposal bodies extracted from ``rows`` (each with its id), and their events."""
    # revoked before extraction: nothing may be proposed from it
    turns = [turn_of(row) for row in rows if row.status == MessageStatus.ACTIVE]
    # a subject's order: the turn event's place (ingest re-sequences late turns), else
    # when the message a proposal cites was said
    seq = {(r.tenant_id, r.message_id): order_seq(r.created_at) for r in rows} | seqs
    bodies: list[dict[str, Any]] = []
    events: list[ProposalEvent] = []
    for body in extract_debounced(turns, _stage_extractor(conn, registry, turns)):
        proposal = with_id(body)
        bodies.append(proposal)
        events.append(
            (
                Topic.PROPOSAL_SUBMITTED,
                f"{body.tenant_id}:{proposal['proposal_id']}",
                body.tenant_id,
                {"proposal_id": proposal["proposal_id"], "message_id": body.evidence.message_id},
                f"{body.tenant_id}:{body.subject_id}",
                seq.get((body.tenant_id, body.evidence.message_id), 0),
            )
        )
    return bodies, events


def _messages(conn: Connection, keys: list[tuple[str, str, int]]) -> list[Row[Any]]:
    """The named message revisions, one query for the whole batch."""
    if not keys:
        return []
    wanted = set(keys)
    rows = conn.execute(
        select(messages).where(
            pairs_in(
                conn, messages.c.tenant_id, messages.c.message_id, {(t, m) for t, m, _ in keys}
            )
        )
    )
    return [r for r in rows if (r.tenant_id, r.message_id, r.revision) in wanted]


def extract_events(conn: Connection, envelopes: list[dict[str, Any]]) -> int:
    """Extract the turns of fresh ``turn.received`` envelopes inside the caller's
    transaction (the consumer runner owns it, with the inbox); returns how many proposals
    were sent to the gate."""
    rows = _messages(
        conn,
        [(e["tenant_id"], e["payload"]["message_id"], e["payload"]["revision"]) for e in envelopes],
    )
    seqs = {
        (e["tenant_id"], e["payload"]["message_id"]): int(e["order"][1])
        for e in envelopes
        if e.get("order") and e["order"][1] is not None
    }
    # one run per conversation, in the order it was said (services.extractor.debounce)
    return _emit_proposals(conn, rows, default_registry(), seqs)


def extract_batch(envelopes: list[dict[str, Any]], *, engine: Engine | None = None) -> int:
    """Run the extractor stage on a batch as its worker does (inbox, effects and consumed
    marks in one transaction); returns how many proposals were sent."""
    result = consume(Stage.EXTRACTOR, envelopes, extract_events, engine=engine)
    return sum(result.results)


def reextract_messages(
    tenant_id: str, message_ids: list[str], *, engine: Engine | None = None
) -> int:
    """Run extraction again on stored messages, bypassing the inbox (re-extraction after a
    forget, or a new extractor version). The gate sees the same proposal ids again, so
    unchanged candidates replay their stored receipts and write nothing."""
    registry = default_registry()
    with unit_of_work(engine or get_engine()) as uow:
        rows = uow.conn.execute(
            select(messages).where(
                messages.c.tenant_id == tenant_id, messages.c.message_id.in_(message_ids)
            )
        ).all()
        sent = _emit_proposals(uow.conn, list(rows), registry)
        uow.commit()
    return sent
