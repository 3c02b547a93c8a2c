"""The physical limit here: raw PostgreSQL doing only the writes a turn needs.

Issue 23: the honest measure of the pipeline is a ratio to what the database itself can do
on this machine, in the same run. This writes, set-based (``INSERT ... SELECT FROM
unnest(arrays)``, one statement per table), pipelined (one round trip per transaction),
500 turns per transaction, one client, on the real schema, the nine rows one committable
turn needs:

    messages, proposals, receipts, fact_keys, memory_versions, memory_evidence,
    current_memories, outbox (memory.committed), vector_index

and, separately, the seven of them the gate writes (no message, no vector index row).
No reads, no checks, no decisions: nothing the real code could skip.

    .venv/bin/python bench/limit.py [--turns 20000] [--batch 500]
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg
from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from bench.common import scratch_database
from bench.load import watch_load

EMBEDDING = bytes(4 * 256)  # the size of one real embedding row (256 float32)

# Each statement takes one array per column; every row of a batch is one array element.
MESSAGES = """
INSERT INTO messages (tenant_id, message_id, revision, subject_id, session_id, role, source,
  author_id, text, text_sha256, created_at, received_at, status)
SELECT 'limit', m, 1, s, 'c', 'user', 'user_message', s, 'I prefer vim for editing.',
  md5(m) || md5(s), now(), now(), 'active'
FROM unnest(%(m)s::text[], %(s)s::text[]) AS t(m, s)
"""
PROPOSALS = """
INSERT INTO proposals (tenant_id, proposal_id, payload_hash, subject_id, scope_kind, scope_key,
  kind, normalized_key, stable_candidate_ordinal, message_id, message_revision, evidence_start,
  evidence_end, evidence_sha256, extractor_version, confidence, value_json, decision, reasons,
  state, memory_id, memory_version, expected_version, proposed_by, submitted_at, decided_at)
SELECT 'limit', p, p, s, 'user', s, 'preference', 'preference.editor', 0, m, 1, 0, 24,
  p, 'rules-1', 0.9, '"vim"', 'COMMIT', '[]', 'committed', k, 1, 0, 'extractor:rules-1',
  now(), now()
FROM unnest(%(p)s::text[], %(s)s::text[], %(m)s::text[], %(k)s::text[]) AS t(p, s, m, k)
"""
RECEIPTS = """
INSERT INTO receipts (tenant_id, proposal_id, body, created_at)
SELECT 'limit', p, '{"decision":"COMMIT","memory_id":"' || k || '","reasons":[]}', now()
FROM unnest(%(p)s::text[], %(k)s::text[]) AS t(p, k)
"""
FACT_KEYS = """
INSERT INTO fact_keys (tenant_id, subject_id, scope_kind, scope_key, kind, normalized_key,
  claim_key, memory_id, current_version, updated_at)
SELECT 'limit', s, 'user', s, 'preference', 'preference.editor', '', k, 1, now()
FROM unnest(%(s)s::text[], %(k)s::text[]) AS t(s, k)
ON CONFLICT ON CONSTRAINT uq_fact_keys_fact_key DO UPDATE SET current_version = 1
"""
VERSIONS = """
INSERT INTO memory_versions (memory_id, version, tenant_id, subject_id, scope_kind, scope_key,
  kind, normalized_key, claim_key, value_json, status, proposal_id, auto, derived_from,
  valid_from, recorded_at)
SELECT k, 1, 'limit', s, 'user', s, 'preference', 'preference.editor', '', '"vim"',
  'committed', p, true, '[]', now(), now()
FROM unnest(%(k)s::text[], %(s)s::text[], %(p)s::text[]) AS t(k, s, p)
"""
EVIDENCE = """
INSERT INTO memory_evidence (memory_id, version, tenant_id, message_id, revision)
SELECT k, 1, 'limit', m, 1 FROM unnest(%(k)s::text[], %(m)s::text[]) AS t(k, m)
"""
CURRENT = """
INSERT INTO current_memories (memory_id, version, tenant_id, subject_id, scope_kind, scope_key,
  kind, normalized_key, claim_key, value_json, updated_at)
SELECT k, 1, 'limit', s, 'user', s, 'preference', 'preference.editor', '', '"vim"', now()
FROM unnest(%(k)s::text[], %(s)s::text[]) AS t(k, s)
"""
OUTBOX = """
INSERT INTO outbox (topic, event_key, tenant_id, payload, created_at, ordering_key)
SELECT 'memory.committed', k || ':1', 'limit', '{"memory_id":"' || k || '","version":1}',
  now(), 'limit:' || s
FROM unnest(%(k)s::text[], %(s)s::text[]) AS t(k, s)
"""
VECTORS = """
INSERT INTO vector_index (memory_id, version, tenant_id, subject_id, embedder, embedding,
  indexed_at)
SELECT k, 1, 'limit', s, 'hash-256', %(e)s, now() FROM unnest(%(k)s::text[], %(s)s::text[])
  AS t(k, s)
"""
GATE = [PROPOSALS, RECEIPTS, FACT_KEYS, VERSIONS, EVIDENCE, CURRENT, OUTBOX]
TURN = [MESSAGES, *GATE, VECTORS]


@dataclass(frozen=True)
class Limit:
    """Raw minimal-writes rates, per second, on this machine now."""

    turns_per_s: float  # all nine rows of a committable turn
    gate_per_s: float  # the gate's seven rows of a committable proposal
    rows_per_turn: int = len(TURN)


def conninfo(engine: Engine) -> str:
    url = make_url(engine.url)
    return psycopg.conninfo.make_conninfo(
        host=url.host or "127.0.0.1",
        port=url.port or 5432,
        user=url.username or "postgres",
        password=url.password or "",
        dbname=url.database or "",
    )


def _arrays(tag: str, start: int, n: int) -> dict[str, Any]:
    ids = range(start, start + n)
    return {
        "m": [f"{tag}-m{i}" for i in ids],
        "s": [f"{tag}-s{i}" for i in ids],
        "p": [uuid.uuid5(uuid.NAMESPACE_OID, f"{tag}{i}").hex * 2 for i in ids],
        "k": [f"mem_{tag}_{i}" for i in ids],
        "e": EMBEDDING,
    }


def rate(conn: psycopg.Connection[Any], statements: list[str], turns: int, batch: int) -> float:
    """Turns per second writing ``statements`` for ``turns`` turns, ``batch`` per transaction."""
    tag = uuid.uuid4().hex[:8]
    t0 = time.perf_counter()
    for start in range(0, turns, batch):
        params = _arrays(tag, start, min(batch, turns - start))
        with conn.transaction(), conn.pipeline():
            for sql in statements:
                # each statement names only the arrays it reads
                conn.execute(sql, {k: v for k, v in params.items() if f"%({k})s" in sql})
    return turns / (time.perf_counter() - t0)


def measure(engine: Engine, turns: int = 20000, batch: int = 500) -> Limit:
    """Both limits on ``engine``'s (scratch) database, after a warm-up batch of each."""
    with psycopg.connect(conninfo(engine), prepare_threshold=0) as conn:
        rate(conn, TURN, batch, batch)
        rate(conn, GATE, batch, batch)
        return Limit(
            turns_per_s=rate(conn, TURN, turns, batch), gate_per_s=rate(conn, GATE, turns, batch)
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    with scratch_database() as engine, watch_load() as load:
        limit = measure(engine, args.turns, args.batch)
    print(
        f"raw minimal writes, set-based, pipelined, {args.batch} per transaction, one client: "
        f"{limit.turns_per_s:.0f} turns/s ({limit.rows_per_turn} rows each), "
        f"gate writes alone {limit.gate_per_s:.0f} proposals/s; {load.text()}"
    )
    print(f"limit turns_per_s={limit.turns_per_s:.0f} gate_per_s={limit.gate_per_s:.0f}")


if __name__ == "__main__":
    main()
