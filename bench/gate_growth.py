"""Does the gate's per-proposal cost grow with history? (issue 14, item 4)

History is bulk-loaded in SQL (generate_series: messages, fact keys, versions, evidence,
projection, proposals, receipts, suppressions, consumed outbox rows) into the same tenant
the measured proposals go to, up to each size in turn; then fresh proposals are decided one per
transaction through the real code and timed. Flat means every read and write of the gate
stays an index lookup proportional to the proposal, not to the table.

    .venv/bin/python bench/gate_growth.py [--sizes 10000,100000,1000000] [--proposals 300]

The closing line gives the slope: microseconds per proposal per 10x history.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import Engine, text

from bench.common import percentile, scratch_database
from bench.gate_throughput import make_proposals
from memwarden_gate.io import decide_batch

TENANT = "bench-growth"

# One statement per table; :lo/:hi bound the history rows added. Each history memory is a
# committed preference of its own subject, with the message, proposal and receipt behind it.
HISTORY_SQL = [
    """INSERT INTO messages (tenant_id, message_id, revision, subject_id, session_id, role,
         source, author_id, text, text_sha256, created_at, utc_offset_minutes, received_at,
         status)
       SELECT :t, 'hm' || i, 1, 'h' || i, 's', 'user', 'user_message', 'h' || i,
         'My editor is Vim.', md5(i::text) || md5(i::text), now(), 0, now(), 'active'
       FROM generate_series(:lo, :hi - 1) AS i""",
    """INSERT INTO fact_keys (tenant_id, subject_id, scope_kind, scope_key, kind,
         normalized_key, claim_key, memory_id, current_version, updated_at)
       SELECT :t, 'h' || i, 'user', 'h' || i, 'preference', 'preference.editor', '',
         'mem_h' || i, 1, now()
       FROM generate_series(:lo, :hi - 1) AS i""",
    """INSERT INTO memory_versions (memory_id, version, tenant_id, subject_id, scope_kind,
         scope_key, kind, normalized_key, claim_key, value_json, status, proposal_id, auto,
         derived_from, valid_from, recorded_at)
       SELECT 'mem_h' || i, 1, :t, 'h' || i, 'user', 'h' || i, 'preference',
         'preference.editor', '', '"vim"', 'committed', md5(i::text) || md5(i::text), true,
         '[]', now(), now()
       FROM generate_series(:lo, :hi - 1) AS i""",
    """INSERT INTO memory_evidence (memory_id, version, tenant_id, message_id, revision)
       SELECT 'mem_h' || i, 1, :t, 'hm' || i, 1 FROM generate_series(:lo, :hi - 1) AS i""",
    """INSERT INTO current_memories (memory_id, version, tenant_id, subject_id, scope_kind,
         scope_key, kind, normalized_key, claim_key, value_json, updated_at)
       SELECT 'mem_h' || i, 1, :t, 'h' || i, 'user', 'h' || i, 'preference',
         'preference.editor', '', '"vim"', now()
       FROM generate_series(:lo, :hi - 1) AS i""",
    """INSERT INTO proposals (tenant_id, proposal_id, payload_hash, subject_id, scope_kind,
         scope_key, kind, normalized_key, stable_candidate_ordinal, message_id,
         message_revision, evidence_start, evidence_end, evidence_sha256, extractor_version,
         confidence, value_json, decision, reasons, state, memory_id, memory_version,
         expected_version, proposed_by, submitted_at, decided_at)
       SELECT :t, md5(i::text) || md5(i::text), md5(i::text) || md5(i::text), 'h' || i,
         'user', 'h' || i, 'preference', 'preference.editor', 0, 'hm' || i, 1, 0, 17,
         md5(i::text) || md5(i::text), 'rules-1', 0.9, '"vim"', 'COMMIT', '[]', 'committed',
         'mem_h' || i, 1, 0, 'extractor:rules-1', now(), now()
       FROM generate_series(:lo, :hi - 1) AS i""",
    """INSERT INTO receipts (tenant_id, proposal_id, body, created_at)
       SELECT :t, md5(i::text) || md5(i::text), '{"decision":"COMMIT"}', now()
       FROM generate_series(:lo, :hi - 1) AS i""",
    # a forget leaves a suppression: one for every tenth memory
    """INSERT INTO suppressions (tenant_id, subject_id, content_hash, created_at)
       SELECT :t, 'h' || i, md5(i::text) || md5(i::text), now()
       FROM generate_series(:lo, :hi - 1) AS i WHERE i % 10 = 0""",
    r"""INSERT INTO outbox (topic, event_key, tenant_id, payload, created_at, sent_at,
         consumed_at)
       SELECT 'memory.committed', 'mem_h' || i || '\:1', :t, '{}', now(), now(), now()
       FROM generate_series(:lo, :hi - 1) AS i""",
]


def load_history(engine: Engine, lo: int, hi: int) -> float:
    t0 = time.perf_counter()
    with engine.begin() as conn:
        for sql in HISTORY_SQL:
            conn.execute(text(sql), {"t": TENANT, "lo": lo, "hi": hi})
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE"))
    return time.perf_counter() - t0


def _counters(engine: Engine) -> tuple[int, int, dict[str, int]]:
    """Buffers touched and index scans in this database, and sequential scans per table.
    Closing the pool first makes every backend report its counts (they do so on exit)."""
    engine.dispose()
    with engine.connect() as conn:
        blocks = conn.execute(
            text(
                "SELECT blks_hit + blks_read FROM pg_stat_database"
                " WHERE datname = current_database()"
            )
        ).scalar_one()
        tables = conn.execute(
            text("SELECT relname, seq_scan, coalesce(idx_scan, 0) FROM pg_stat_user_tables")
        ).all()
    engine.dispose()
    return int(blocks), sum(r[2] for r in tables), {r[0]: int(r[1]) for r in tables}


def measure(engine: Engine, tag: str, n: int) -> tuple[list[float], float, float, list[str]]:
    """Seconds per proposal, one proposal per transaction (after a short warm-up); with
    buffers and index scans per proposal, and the tables scanned sequentially meanwhile.
    The buffer count does not depend on how loaded the machine is; the time does."""
    proposals = make_proposals(engine, tag, n + 20, tenant=TENANT)
    for p in proposals[:20]:
        decide_batch([p], engine=engine)
    blocks0, idx0, seq0 = _counters(engine)
    samples = []
    for p in proposals[20:]:
        t0 = time.perf_counter()
        decide_batch([p], engine=engine)
        samples.append(time.perf_counter() - t0)
    blocks1, idx1, seq1 = _counters(engine)
    scanned = sorted(t for t, c in seq1.items() if c > seq0.get(t, 0))
    return samples, (blocks1 - blocks0) / n, (idx1 - idx0) / n, scanned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--proposals", type=int, default=300)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        "history memories | load s | per proposal p50 µs | mean µs | p90 µs"
        " | buffers/proposal | index scans/proposal | tables seq-scanned"
    )
    points: list[tuple[float, float]] = []
    buffer_points: list[tuple[float, float]] = []
    with scratch_database() as engine:
        loaded = 0
        for size in sizes:
            took = load_history(engine, loaded, size)
            loaded = size
            seconds, blocks, scans, scanned = measure(engine, f"g{size}", args.proposals)
            samples = [s * 1e6 for s in seconds]
            p50 = percentile(samples, 50)
            points.append((math.log10(size), p50))
            buffer_points.append((math.log10(size), blocks))
            print(
                f"{size:16d} | {took:6.1f} | {p50:19.0f} | {statistics.fmean(samples):7.0f} |"
                f" {percentile(samples, 90):6.0f} | {blocks:16.1f} | {scans:20.1f} |"
                f" {', '.join(scanned) or 'none'}"
            )
    slope = _slope(points)
    print(
        f"slope: {slope:+.0f} µs per proposal per 10x history"
        f" ({100 * slope / points[0][1]:+.1f}% of the {sizes[0]:,}-memory cost per 10x);"
        f" buffers: {_slope(buffer_points):+.1f} per proposal per 10x"
    )


def _slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of p50 cost against log10(history)."""
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / den if den else 0.0


if __name__ == "__main__":
    main()
