"""Recall latency on PostgreSQL: 100,000 committed memories across 1,000 subjects.

Memories are bulk-loaded straight into the tables recall reads (messages, memory versions,
evidence, projection, vector index with real embeddings), because this measures the read
path, not the gate. Then one subject's top 10 is recalled, with and without a query, beside
the floor: one ``SELECT 1`` round trip on an open autocommit connection, the least a recall
could cost. Each figure is printed with the load average while it was measured; the run ends
with ``recall_ms p99=`` (top 10 with a query, first call per subject in the process),
``recall_ms_again p99=`` (the same calls repeated: stored vectors cached) and
``limit_ratio recall=`` (floor p99 over recall p99).

    .venv/bin/python bench/recall_latency.py [--subjects 1000] [--per-subject 100] [--calls 2000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg

from bench import limit
from bench.common import percentile, scratch_database, summary_ms
from bench.load import watch_load
from memwarden_recall.query import recall
from memwarden_shared.contract.canonical import sha256_hex
from memwarden_shared.store.db import dumps
from memwarden_shared.store.schema import (
    current_memories,
    fact_keys,
    memory_evidence,
    memory_versions,
    messages,
    vector_index,
)
from memwarden_shared.text.embedding import default_embedder, memory_text, to_bytes

WORDS = [
    "pnpm",
    "yarn",
    "vim",
    "emacs",
    "dark",
    "light",
    "deploy",
    "tuesday",
    "afternoon",
    "review",
    "python",
    "rust",
    "postgres",
    "redis",
    "kafka",
    "terraform",
    "berlin",
    "tokyo",
    "concise",
    "detailed",
    "markdown",
    "tests",
    "ci",
    "日志",
    "部署",
    "周二",
    "下午",
    "简洁",
    "深色",
    "编辑器",
    "结论",
    "值班",
    "支付",
]
KEYS = ["preference.note", "decision.note", "preference.communication_style"]


def load(engine, subjects: int, per_subject: int, rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    embedder = default_embedder()
    now = datetime.now(UTC)
    batch: dict[str, list[dict[str, Any]]] = {"m": [], "f": [], "v": [], "e": [], "c": [], "x": []}

    def flush() -> None:
        with engine.begin() as conn:
            for table, key in (
                (messages, "m"),
                (fact_keys, "f"),
                (memory_versions, "v"),
                (memory_evidence, "e"),
                (current_memories, "c"),
                (vector_index, "x"),
            ):
                if batch[key]:
                    conn.execute(table.insert(), batch[key])
                    batch[key].clear()

    for s in range(subjects):
        subject = f"subject-{s:04d}"
        for i in range(per_subject):
            memory_id = f"mem_{s:04d}_{i:04d}"
            key = KEYS[i % len(KEYS)]
            value = " ".join(rng.sample(WORDS, 5))
            text = f"Remember that {value}."
            message_id = f"m-{s}-{i}"
            batch["m"].append(
                {
                    "tenant_id": "bench",
                    "message_id": message_id,
                    "revision": 1,
                    "subject_id": subject,
                    "session_id": "s",
                    "role": "user",
                    "source": "user_message",
                    "author_id": subject,
                    "text": text,
                    "text_sha256": sha256_hex(text),
                    "created_at": now,
                    "received_at": now,
                    "status": "active",
                }
            )
            common = {
                "memory_id": memory_id,
                "version": 1,
                "tenant_id": "bench",
                "subject_id": subject,
                "scope_kind": "user",
                "scope_key": subject,
                "kind": key.split(".")[0],
                "normalized_key": key,
                "claim_key": memory_id,
                "value_json": dumps(value),
            }
            batch["f"].append(
                {
                    k: common[k]
                    for k in (
                        "tenant_id",
                        "subject_id",
                        "scope_kind",
                        "scope_key",
                        "kind",
                        "normalized_key",
                        "claim_key",
                        "memory_id",
                    )
                }
                | {"current_version": 1, "updated_at": now}
            )
            batch["v"].append(
                {
                    **common,
                    "status": "committed",
                    "proposal_id": "0" * 64,
                    "auto": True,
                    "derived_from": "[]",
                    "valid_from": now,
                    "recorded_at": now,
                }
            )
            batch["e"].append(
                {
                    "memory_id": memory_id,
                    "version": 1,
                    "tenant_id": "bench",
                    "message_id": message_id,
                    "revision": 1,
                }
            )
            c = {k: v for k, v in common.items() if k != "claim_key"}
            batch["c"].append({**c, "claim_key": memory_id, "updated_at": now})
            batch["x"].append(
                {
                    "memory_id": memory_id,
                    "version": 1,
                    "tenant_id": "bench",
                    "subject_id": subject,
                    "embedder": embedder.name,
                    "embedding": to_bytes(embedder.embed_one(memory_text(key, dumps(value)))),
                    "indexed_at": now,
                }
            )
        if len(batch["m"]) >= 5000:
            flush()
    flush()
    with engine.begin() as conn:
        conn.exec_driver_sql("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--subjects", type=int, default=1000)
    parser.add_argument("--per-subject", type=int, default=100)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(42)
    with scratch_database() as engine:
        started = time.perf_counter()
        load(engine, args.subjects, args.per_subject, rng)
        total = args.subjects * args.per_subject
        print(
            f"loaded {total} committed memories for {args.subjects} subjects "
            f"in {time.perf_counter() - started:.1f} s"
        )
        p99: dict[str, float] = {}
        calls = [
            (f"subject-{rng.randrange(args.subjects):04d}", " ".join(rng.sample(WORDS, 2)))
            for _ in range(args.calls)
        ]
        # "first" meets each subject's memories for the first time in this process (a cold
        # vector cache for most calls); "again" repeats the same calls, as a long-running
        # API process does; "no query" needs no vectors
        for label, with_query in (
            ("top 10 with a query, first", True),
            ("top 10 with a query, again", True),
            ("top 10, no query", False),
        ):
            samples = []
            with watch_load() as machine:
                for subject, words in calls:
                    query = words if with_query else None
                    t0 = time.perf_counter()
                    found = recall("bench", subject, query, k=10, engine=engine)
                    samples.append(time.perf_counter() - t0)
                    assert len(found) == 10
            p99[label] = percentile(samples, 99) * 1000
            print(f"recall {label}: {summary_ms(samples)}; {machine.text()}")
        floor = round_trip_p99_ms(engine, args.calls)
        print(f"floor: one SELECT 1 round trip, p99 {floor:.2f} ms")
    print(f"recall_ms p99={p99['top 10 with a query, first']:.1f}")
    print(f"recall_ms_again p99={p99['top 10 with a query, again']:.1f}")
    print(f"limit_ratio recall={floor / p99['top 10 with a query, first']:.2f}")


def round_trip_p99_ms(engine, calls: int) -> float:  # type: ignore[no-untyped-def]
    with psycopg.connect(limit.conninfo(engine), autocommit=True) as conn:
        samples = []
        for _ in range(calls):
            t0 = time.perf_counter()
            conn.execute("SELECT 1").fetchone()
            samples.append(time.perf_counter() - t0)
    return percentile(samples, 99) * 1000


if __name__ == "__main__":
    main()
