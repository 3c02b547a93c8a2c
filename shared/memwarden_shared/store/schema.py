"""SQLAlchemy 2 tables. Every invariant is a named constraint that code matches by name.

History is append-only: proposals, receipts and memory versions are never updated except
their status columns; ``current_memories`` and ``vector_index`` are projections.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.types import TypeDecorator

from memwarden_shared.store.dialect import keeps_utc_offset

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
metadata = MetaData(naming_convention=NAMING)

# SQLite only autoincrements INTEGER PRIMARY KEY; Postgres gets a bigint identity.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class UtcDateTime(TypeDecorator[datetime]):
    """Timestamps are stored in UTC on every backend. SQLite keeps no offset, so an aware
    value with +08:00 would otherwise come back as the wrong instant."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: every timestamp must carry a UTC offset")
        utc = value.astimezone(UTC)
        return utc if keeps_utc_offset(dialect) else utc.replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


Ts = UtcDateTime()
Id = String(200)


def _id() -> Column[int]:
    return Column("id", BigId, primary_key=True, autoincrement=True)


messages = Table(
    "messages",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("message_id", Id, nullable=False),
    Column("revision", Integer, nullable=False, server_default=text("1")),
    Column("subject_id", Id, nullable=False),
    Column("session_id", Id, nullable=False),
    Column("role", String(20), nullable=False),
    Column("source", String(30), nullable=False),
    Column("author_id", Id, nullable=False),
    # Secrets are masked with "*" before storing (SPEC §5.6 v2); the hash is of that text.
    Column("text", Text, nullable=False),
    Column("text_sha256", String(64), nullable=False),
    # JSON [[kind, start, end], ...] of the masked secrets; never their text
    Column("masked_spans", Text),
    # a secret was detected that masking could not pin down: no proposal from it may pass
    Column("secret_unlocated", Boolean, nullable=False, server_default=text("false")),
    # forget erased the text (set to ''), keeping text_sha256
    Column("erased_at", Ts),
    Column("created_at", Ts, nullable=False),
    # the offset the turn was written in: relative dates resolve on the writer's calendar day
    Column("utc_offset_minutes", Integer, nullable=False, server_default=text("0")),
    Column("received_at", Ts, nullable=False),
    Column("status", String(20), nullable=False, server_default=text("'active'")),
    Column("status_changed_at", Ts),
    UniqueConstraint("tenant_id", "message_id", "revision", name="uq_messages_message_revision"),
    # Batches look messages up by a list of ids; PostgreSQL would otherwise walk the whole
    # tenant's range of the unique index and filter, which grows with history.
    Index("ix_messages_message_id", "message_id"),
    Index(None, "tenant_id", "subject_id"),
    # ingest reads a session's latest turn: a secret may be announced there and said here
    Index("ix_messages_session_latest", "tenant_id", "session_id", "created_at"),
)

tenant_policies = Table(
    "tenant_policies",
    metadata,
    Column("tenant_id", Id, primary_key=True),
    Column("profile", String(20), nullable=False),
    Column("updated_at", Ts, nullable=False),
)

# The columns that identify one fact (SPEC §7 "fact key"), in lock-row order.
FACT_KEY_COLUMNS = (
    "tenant_id",
    "subject_id",
    "scope_kind",
    "scope_key",
    "kind",
    "normalized_key",
    "claim_key",
)

fact_keys = Table(
    "fact_keys",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("scope_kind", String(20), nullable=False),
    Column("scope_key", Id, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("normalized_key", Id, nullable=False),
    # '' for single-valued keys; for multi-valued keys (free-text notes) a hash of the
    # normalised claim, so each distinct note is its own fact and a repeat is a NOOP
    Column("claim_key", String(32), nullable=False, server_default=text("''")),
    Column("memory_id", String(40), nullable=False),
    Column("current_version", Integer, nullable=False, server_default=text("0")),
    Column("updated_at", Ts, nullable=False),
    UniqueConstraint(
        "tenant_id",
        "subject_id",
        "scope_kind",
        "scope_key",
        "kind",
        "normalized_key",
        "claim_key",
        name="uq_fact_keys_fact_key",
    ),
    UniqueConstraint("memory_id"),
)

proposals = Table(
    "proposals",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("proposal_id", String(64), nullable=False),
    Column("payload_hash", String(64), nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("scope_kind", String(20), nullable=False),
    Column("scope_key", Id, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("normalized_key", Id, nullable=False),
    Column("stable_candidate_ordinal", Integer, nullable=False),
    Column("message_id", Id, nullable=False),
    Column("message_revision", Integer, nullable=False, server_default=text("1")),
    Column("evidence_start", Integer, nullable=False),
    Column("evidence_end", Integer, nullable=False),
    Column("evidence_sha256", String(64), nullable=False),
    Column("extractor_version", String(100), nullable=False),
    Column("confidence", Float, nullable=False),
    Column("expires_at", Ts),
    # NULL when the proposal carried a secret: the value is never copied out of the evidence store
    Column("value_json", Text),
    Column("decision", String(20), nullable=False),
    Column("reasons", Text, nullable=False),
    Column("state", String(20), nullable=False),
    Column("memory_id", String(40)),
    Column("memory_version", Integer),
    # the current version the gate saw; an approval executes only if it is still current
    Column("expected_version", Integer),
    # who proposed it: a principal id, or "extractor:<version>" for the built-in stage
    Column("proposed_by", Id),
    # the memory versions ("memory_id:version") an external extractor said this summary or
    # inference was derived from, resolved by the gate; copied onto the version it commits
    Column("derived_from", Text),
    Column("submitted_at", Ts, nullable=False),
    Column("decided_at", Ts, nullable=False),
    UniqueConstraint("tenant_id", "proposal_id"),
    Index("ix_proposals_proposal_id", "proposal_id"),  # batch lookups, as for messages
    Index(None, "tenant_id", "state"),
    Index(None, "tenant_id", "message_id"),
    Index(None, "tenant_id", "subject_id"),
)

receipts = Table(
    "receipts",
    metadata,
    Column("tenant_id", Id, nullable=False),
    Column("proposal_id", String(64), nullable=False),
    Column("body", Text, nullable=False),  # canonical JSON, returned byte for byte on replay
    Column("created_at", Ts, nullable=False),
    PrimaryKeyConstraint("tenant_id", "proposal_id"),
)

# Submissions refused before they could be keyed by a verified proposal_id (forged id,
# invalid schema) or that reused an id with another payload. Audit only; never holds values.
rejected_submissions = Table(
    "rejected_submissions",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("submission_hash", String(64), nullable=False),
    Column("claimed_proposal_id", String(64)),
    Column("payload_hash", String(64)),
    Column("body", Text, nullable=False),
    Column("created_at", Ts, nullable=False),
    UniqueConstraint("tenant_id", "submission_hash"),
)

memory_versions = Table(
    "memory_versions",
    metadata,
    _id(),
    Column("memory_id", String(40), nullable=False),
    Column("version", Integer, nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("scope_kind", String(20), nullable=False),
    Column("scope_key", Id, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("normalized_key", Id, nullable=False),
    Column("claim_key", String(32), nullable=False, server_default=text("''")),
    Column("value_json", Text, nullable=False),
    Column("status", String(30), nullable=False),
    Column("status_reason", String(60)),
    Column("proposal_id", String(64), nullable=False),
    Column("auto", Boolean, nullable=False),
    Column("supersedes", Integer),
    Column("derived_from", Text, nullable=False, server_default=text("'[]'")),
    Column("valid_from", Ts, nullable=False),
    Column("valid_to", Ts),
    Column("recorded_at", Ts, nullable=False),
    Column("expired_at", Ts),
    Column("expires_at", Ts),
    UniqueConstraint("memory_id", "version"),
    Index(None, "tenant_id", "subject_id"),
)

memory_evidence = Table(
    "memory_evidence",
    metadata,
    Column("memory_id", String(40), nullable=False),
    Column("version", Integer, nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("message_id", Id, nullable=False),
    Column("revision", Integer, nullable=False),
    PrimaryKeyConstraint("memory_id", "version", "message_id", "revision"),
    Index(None, "tenant_id", "message_id"),
)

current_memories = Table(
    "current_memories",
    metadata,
    Column("memory_id", String(40), ForeignKey("fact_keys.memory_id"), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("scope_kind", String(20), nullable=False),
    Column("scope_key", Id, nullable=False),
    Column("kind", String(20), nullable=False),
    Column("normalized_key", Id, nullable=False),
    Column("claim_key", String(32), nullable=False, server_default=text("''")),
    Column("value_json", Text, nullable=False),
    Column("expires_at", Ts),
    Column("updated_at", Ts, nullable=False),
    Index(None, "tenant_id", "subject_id"),
)

vector_index = Table(
    "vector_index",
    metadata,
    Column("memory_id", String(40), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("embedder", String(60), nullable=False),
    Column("embedding", LargeBinary, nullable=False),  # float32, L2-normalised
    Column("indexed_at", Ts, nullable=False),
    Index(None, "tenant_id", "subject_id"),
)

outbox = Table(
    "outbox",
    metadata,
    _id(),
    Column("topic", String(40), nullable=False),
    Column("event_key", String(300), nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("payload", Text, nullable=False),
    Column("created_at", Ts, nullable=False),
    # Lifecycle (SPEC §8.1): pending (sent_at NULL) -> published (sent_at set) -> consumed
    # (consumed_at set, in the consumer's own transaction). ``sent_at`` is the last publish.
    Column("sent_at", Ts),
    # a relay's lease: while it runs no other relay claims the row
    Column("claimed_until", Ts),
    Column("consumed_at", Ts),
    Column("publish_count", Integer, nullable=False, server_default=text("0")),
    # per-subject order ("tenant:subject") and position (the evidence message's row id):
    # the gate holds back a proposal while an older event of its subject is unconsumed
    Column("ordering_key", String(420)),
    Column("ordering_seq", BigInteger),
    # the relay only ever scans unsent rows; this partial index keeps that scan small
    Index(
        "ix_outbox_unsent",
        "id",
        postgresql_where=text("sent_at IS NULL"),
        sqlite_where=text("sent_at IS NULL"),
    ),
    # redelivery and health checks scan only rows not consumed yet
    Index(
        "ix_outbox_unconsumed",
        "sent_at",
        postgresql_where=text("consumed_at IS NULL"),
        sqlite_where=text("consumed_at IS NULL"),
    ),
    Index(
        "ix_outbox_unconsumed_order",
        "ordering_key",
        "ordering_seq",
        postgresql_where=text("consumed_at IS NULL"),
        sqlite_where=text("consumed_at IS NULL"),
    ),
)

# Events a consumer could not process for a permanent reason (SPEC §8.1). Never holds
# values or message text: keys, the error class and a redacted location only.
dead_letters = Table(
    "dead_letters",
    metadata,
    _id(),
    Column("stage", String(40), nullable=False),
    Column("outbox_id", BigInteger),  # NULL for a raw task argument that had no outbox row
    Column("event_key", String(300), nullable=False),
    Column("topic", String(40), nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("error_class", String(200), nullable=False),
    Column("error_message", String(500), nullable=False),
    Column("created_at", Ts, nullable=False),
    UniqueConstraint("stage", "event_key"),
)

# Extracted proposals waiting for the gate. The outbox carries only their key; the body
# (with the value) lives here, so a forget can erase it (erase_candidates_for_message).
proposal_candidates = Table(
    "proposal_candidates",
    metadata,
    Column("tenant_id", Id, nullable=False),
    Column("proposal_id", String(64), nullable=False),
    Column("message_id", Id, nullable=False),
    Column("body_json", Text, nullable=False),
    Column("submitted_at", Ts, nullable=False),
    PrimaryKeyConstraint("tenant_id", "proposal_id"),
    Index(None, "tenant_id", "message_id"),
)

processed_events = Table(
    "processed_events",
    metadata,
    Column("consumer", String(60), nullable=False),
    Column("event_key", String(300), nullable=False),
    Column("processed_at", Ts, nullable=False),
    PrimaryKeyConstraint("consumer", "event_key"),
)

suppressions = Table(
    "suppressions",
    metadata,
    Column("tenant_id", Id, nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("content_hash", String(64), nullable=False),  # normalised content hash; never text
    Column("created_at", Ts, nullable=False),
    PrimaryKeyConstraint("tenant_id", "subject_id", "content_hash"),
)

principals = Table(
    "principals",
    metadata,
    Column("principal_id", Id, nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("key_hash", String(64), nullable=False),  # sha256 of the API key; the key is shown once
    Column("scopes", Text, nullable=False),
    Column("created_at", Ts, nullable=False),
    Column("disabled_at", Ts),
    Column("key_rotated_at", Ts),
    # Names are unique per tenant: two tenants may each have an "owner".
    PrimaryKeyConstraint("tenant_id", "principal_id"),
    UniqueConstraint("key_hash"),
)

approvals = Table(
    "approvals",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("proposal_id", String(64), nullable=False),
    Column("payload_hash", String(64), nullable=False),
    Column("principal_id", Id, nullable=False),
    Column("verdict", String(20), nullable=False),
    Column("outcome", String(40), nullable=False),
    Column("created_at", Ts, nullable=False),
    # the review decision's own receipt (canonical JSON) and the sha256 of the pending
    # receipt it answers: the pending receipt is never rewritten (seed 001)
    Column("pending_fingerprint", String(64)),
    Column("receipt", Text),
    Index(None, "tenant_id", "proposal_id"),
)

# Batch reprocessing (``memwarden replay``): one row per run, and per run and input file the
# byte offset just past the last batch that was fully processed, so a rerun resumes there.
replay_runs = Table(
    "replay_runs",
    metadata,
    Column("run_id", String(100), primary_key=True),
    Column("extractor", String(40), nullable=False),
    Column("extractor_version", String(100), nullable=False),
    Column("shadow", Boolean, nullable=False),
    Column("started_at", Ts, nullable=False),
    Column("finished_at", Ts),
    Column("counters", Text, nullable=False, server_default=text("'{}'")),  # JSON tally
)

replay_checkpoints = Table(
    "replay_checkpoints",
    metadata,
    Column("run_id", String(100), nullable=False),
    Column("path", String(1000), nullable=False),
    Column("byte_offset", BigInteger, nullable=False),
    Column("updated_at", Ts, nullable=False),
    PrimaryKeyConstraint("run_id", "path"),
)

# Distributed replay (``memwarden replay --distributed``): the plan of a run, recorded once
# by the coordinator. ``files`` lists each input as [path, size, mtime_ns] so a worker can
# refuse a file that changed since; ``counters`` holds the planning pass's tally (bad lines).
replay_plans = Table(
    "replay_plans",
    metadata,
    Column("run_id", String(100), primary_key=True),
    Column("files", Text, nullable=False),  # JSON
    Column("default_tenant", Id),
    Column("chunks", Integer, nullable=False),
    Column("turns", BigInteger, nullable=False),
    Column("counters", Text, nullable=False),  # JSON tally of the planning pass
    Column("planned_at", Ts, nullable=False),
)

# One row per chunk: line references (no conversation text, so neither the store nor the
# broker holds a secret the input had), its place in its lane, its lease and its result.
# A lane's chunks run one after another (``seq``); lanes run concurrently.
replay_chunks = Table(
    "replay_chunks",
    metadata,
    Column("run_id", String(100), nullable=False),
    Column("chunk_no", Integer, nullable=False),
    Column("tenant_id", Id, nullable=False),  # the first tenant of the chunk (lanes mix few)
    Column("lane", Integer, nullable=False),
    Column("seq", Integer, nullable=False),
    Column("lines", Text, nullable=False),  # JSON [[file_no, byte_offset, length], ...]
    Column("turns", Integer, nullable=False),
    Column("published_at", Ts),
    Column("claimed_by", String(200)),
    Column("claim_token", String(32)),
    Column("claimed_until", Ts),
    Column("attempts", Integer, nullable=False, server_default=text("0")),
    Column("started_at", Ts),
    Column("done_at", Ts),
    Column("failed_at", Ts),
    Column("error", String(500)),  # error class and a redacted message, never line content
    Column("counters", Text),  # JSON tally of the chunk, set when done
    PrimaryKeyConstraint("run_id", "chunk_no"),
    UniqueConstraint("run_id", "lane", "seq"),
    Index(None, "run_id", "done_at"),
)


# What the gate would have decided in a shadow replay; the decisions themselves were rolled
# back. Never holds values: the same fields as a receipt, plus where the claim came from.
shadow_decisions = Table(
    "shadow_decisions",
    metadata,
    _id(),
    Column("run_id", String(100), nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("proposal_id", String(64), nullable=False),
    Column("payload_hash", String(64), nullable=False),
    Column("decision", String(20), nullable=False),
    Column("reasons", Text, nullable=False),
    Column("normalized_key", Id, nullable=False),
    Column("message_id", Id, nullable=False),
    Column("decided_at", Ts, nullable=False),
    UniqueConstraint("run_id", "tenant_id", "proposal_id"),
)


# The action gate (SPEC §14). One row per idempotency key and tenant: the first decision is
# the only one, a retry reads it back. ``state`` is the only column that changes, plus the
# approval and the outcome the caller reports.
actions = Table(
    "actions",
    metadata,
    _id(),
    Column("action_id", String(40), nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("requested_by", Id, nullable=False),
    Column("intent", String(100), nullable=False),
    Column("params_json", Text, nullable=False),
    Column("purpose", String(100)),
    Column("idempotency_key", Id, nullable=False),
    Column("key_hash", String(64), nullable=False),  # sha256(JCS({intent, params}))
    Column("request_hash", String(64), nullable=False),  # sha256(JCS({intent, params, uses}))
    Column("uses_json", Text, nullable=False),  # the exact "memory_id:version" list read
    Column("decision", String(20), nullable=False),
    Column("reasons", Text, nullable=False),
    Column("state", String(20), nullable=False),
    Column("approved_by", Id),
    Column("approved_at", Ts),
    Column("external_ref", String(500)),
    Column("outcome_at", Ts),
    Column("state_reason", String(60)),
    Column("decided_at", Ts, nullable=False),
    Column("updated_at", Ts, nullable=False),
    # repair that closes (seed 002): when it began, what cannot be undone, who closed it
    Column("needs_repair_at", Ts),
    Column("repair_note", Text),
    Column("repaired_by", Id),
    Column("repaired_at", Ts),
    UniqueConstraint("action_id"),
    UniqueConstraint("tenant_id", "idempotency_key"),
    Index(None, "tenant_id", "state"),
)

# Which memory versions each action read: the edges the repair cascade follows back.
action_uses = Table(
    "action_uses",
    metadata,
    Column("action_id", String(40), nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("memory_id", String(40), nullable=False),
    Column("version", Integer, nullable=False),
    PrimaryKeyConstraint("action_id", "memory_id", "version"),
    Index(None, "memory_id", "version"),
)
# Curate (SPEC §15): rewriting a memory base is a release. One row per run; the snapshot
# package is stored whole (canonical JSON, immutable once written) with its hash.
curate_runs = Table(
    "curate_runs",
    metadata,
    # Client-chosen, so unique per tenant only (issue 22): another tenant's id is no clash.
    Column("tenant_id", Id, primary_key=True),
    Column("run_id", String(100), primary_key=True),
    Column("subjects", Text, nullable=False),  # JSON list of subject ids, or ["*"]
    Column("stage", String(20), nullable=False),
    Column("planner", Id, nullable=False),  # the principal that took the snapshot and planned
    Column("rewriter", String(120)),  # e.g. "rules-1" or "llm-<model>-1"
    Column("snapshot_hash", String(64), nullable=False),
    Column("package", Text, nullable=False),  # JCS of {header, items}; never updated
    Column("source_count", Integer, nullable=False),
    Column("batch_size", Integer, nullable=False),
    Column("outcome", Text, nullable=False, server_default=text("'{}'")),  # JSON, last stage
    Column("created_at", Ts, nullable=False),
    Column("updated_at", Ts, nullable=False),
    Column("published_at", Ts),
    # Set when a forget erased items of the package: it no longer matches snapshot_hash,
    # and that is an erasure, not tampering (a rollback may still use what is left).
    Column("erased_at", Ts),
    Index(None, "tenant_id"),
)

# The append-only ledger: one row per finished rewriter batch, or per later edit of the
# plan. Never updated (but for a forget erasing its forgotten strings); the plan is the fold
# of these rows in ``seq`` order.
curate_ledger = Table(
    "curate_ledger",
    metadata,
    Column("tenant_id", Id, nullable=False),
    Column("run_id", String(100), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("entry", String(20), nullable=False),  # batch | edit
    Column("batch_no", Integer),
    Column("body", Text, nullable=False),  # JSON: dispositions, targets, disagreements
    Column("body_hash", String(64), nullable=False),
    Column("tokens", Integer, nullable=False, server_default=text("0")),
    Column("author", Id, nullable=False),
    Column("created_at", Ts, nullable=False),
    PrimaryKeyConstraint("tenant_id", "run_id", "seq"),
    # a batch is finished once: a resumed plan that races a crashed one loses here
    UniqueConstraint("tenant_id", "run_id", "batch_no", name="uq_curate_ledger_batch"),
)

# Reviews and attestations, each bound to the plan hash it saw.
curate_signoffs = Table(
    "curate_signoffs",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("run_id", String(100), nullable=False),
    Column("kind", String(20), nullable=False),  # review | attest
    Column("principal_id", Id, nullable=False),
    Column("plan_hash", String(64), nullable=False),
    Column("verdict", String(20), nullable=False),  # approved | changes_requested
    Column("model", String(120)),  # the reviewer model, when a model reviewed
    Column("statement", Text, nullable=False, server_default=text("'{}'")),
    Column("created_at", Ts, nullable=False),
    Index(None, "tenant_id", "run_id"),
)

# While a run publishes, recall for its subjects ("*" = the whole tenant) is protected
# empty with reason ``curate_publishing``. Read by recall, written by curate only.
curate_blocks = Table(
    "curate_blocks",
    metadata,
    Column("tenant_id", Id, nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("run_id", String(100), nullable=False),
    Column("reason", String(40), nullable=False),
    Column("created_at", Ts, nullable=False),
    PrimaryKeyConstraint("tenant_id", "subject_id"),
)

# What a publish or rollback wrote, so a rollback knows exactly what to restore.
curate_writes = Table(
    "curate_writes",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("run_id", String(100), nullable=False),
    Column("phase", String(20), nullable=False),  # publish | rollback
    Column("action", String(20), nullable=False),  # commit | retire
    Column("memory_id", String(40), nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", Ts, nullable=False),
    Index(None, "tenant_id", "run_id"),
)

# Evidence spans of versions curate wrote: gate versions find theirs in ``proposals``; a
# curated version has no proposal, so a later snapshot reads its sentences from here.
curate_spans = Table(
    "curate_spans",
    metadata,
    Column("memory_id", String(40), nullable=False),
    Column("tenant_id", Id, nullable=False),
    Column("version", Integer, nullable=False),
    Column("message_id", Id, nullable=False),
    Column("revision", Integer, nullable=False),
    Column("start", Integer, nullable=False),
    Column("end", Integer, nullable=False),
    PrimaryKeyConstraint("memory_id", "version", "message_id", "revision", "start"),
)

# Gate decisions counted per scope ("subject:<id>", "session:<id>", "producer:<version>"),
# one row per scope, time bucket and writer (a gate process): each process adds to rows of
# its own, so concurrent gate processes never wait on a shared counter row, and the rows a
# windowed sum reads are bounded by buckets x processes, not by traffic. The anomaly
# detector and the canary monitor sum them over a window (``shared.anomaly``).
write_counts = Table(
    "write_counts",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("scope", String(320), nullable=False),
    Column("counted_at", Ts, nullable=False),
    Column("proposals", Integer, nullable=False),
    Column("committed", Integer, nullable=False),
    Column("noop", Integer, nullable=False),
    Column("needs_confirmation", Integer, nullable=False),
    Column("confirm_replace", Integer, nullable=False),
    Column("quarantined", Integer, nullable=False),
    Column("conflicted", Integer, nullable=False),
    Column("rejected", Integer, nullable=False),
    Column("writer", String(64), nullable=False, server_default=text("''")),
    Index(None, "scope", "tenant_id", "counted_at", "writer", unique=True),
    Index(None, "counted_at"),  # pruning past the baseline
)

# Scopes whose new proposals go to review instead of auto-commit: a write-rate anomaly
# (tenant, "subject:…"/"session:…"/"producer:…") or a rolled-back canary extractor
# (tenant "*", "producer:<version>"). Active while ``cleared_at`` is NULL; an owner or
# reviewer clears it (``memwarden holds clear``, ``memwarden canary clear``).
review_holds = Table(
    "review_holds",
    metadata,
    Column("tenant_id", Id, nullable=False),
    Column("scope", String(320), nullable=False),
    Column("reason", String(40), nullable=False),
    Column("detail", Text, nullable=False, server_default=text("'{}'")),
    Column("created_at", Ts, nullable=False),
    Column("cleared_at", Ts),
    Column("cleared_by", Id),
    PrimaryKeyConstraint("tenant_id", "scope"),
)

# The commit switch (seed 000, hard rollback): one row per tenant, or "*" for every tenant.
# While ``state`` is closed the gate commits nothing: would-be commits are held in
# ``switch_quarantine`` and recall keeps serving what was committed before. Closed by an
# operator or automatically by a trigger (``reason``); opened only by memory:admin.
commit_switches = Table(
    "commit_switches",
    metadata,
    Column("tenant_id", Id, primary_key=True),
    Column("state", String(10), nullable=False),  # open | closed
    Column("reason", String(60), nullable=False),
    Column("detail", Text, nullable=False, server_default=text("'{}'")),
    Column("changed_by", Id, nullable=False),
    Column("changed_at", Ts, nullable=False),
)

# Proposals the gate decided while the commit switch was closed: the decision they would
# have had, so an operator can see what the switch held back and release or drop it.
switch_quarantine = Table(
    "switch_quarantine",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("proposal_id", String(64), nullable=False),
    Column("payload_hash", String(64), nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("would_be_decision", String(20), nullable=False),
    Column("would_be_reasons", Text, nullable=False),
    Column("switch_reason", String(60), nullable=False),
    Column("created_at", Ts, nullable=False),
    UniqueConstraint("tenant_id", "proposal_id", name="uq_switch_quarantine_proposal"),
)

# Who saw what (seed 002): one row per memory version a recall or an action read. Ids and
# versions only, never values; append-only, pruned past the retention window.
read_log = Table(
    "read_log",
    metadata,
    _id(),
    Column("tenant_id", Id, nullable=False),
    Column("read_id", String(32), nullable=False),  # one recall or action: its rows share it
    Column("surface", String(20), nullable=False),  # recall | action
    Column("principal_id", Id, nullable=False),
    Column("subject_id", Id, nullable=False),
    Column("memory_id", String(40), nullable=False),
    Column("version", Integer, nullable=False),
    Column("read_at", Ts, nullable=False),
    Index("ix_read_log_memory", "tenant_id", "memory_id", "read_at"),
    Index("ix_read_log_read_at", "read_at"),  # retention pruning
)
