"""The gate's commit path on PostgreSQL, measured against the database's own limit.

1. Per-proposal transactions through the real code (`decide_batch([p])`) at 1, 4 and 16
   concurrent clients, side by side with pgbench running the raw SQL of the same commit
   transaction against the same schema at the same concurrency.
2. The batched path replay uses: many proposals per transaction, divided by the raw rate of
   the gate's own writes on the same database (``bench/limit.py``, set-based, pipelined,
   the same batch size, one client).

Each figure is printed with the load average while it was measured; the run ends with
``limit_ratio gate_batched=`` and ``limit_ratio gate_single_c1=``.

    .venv/bin/python bench/gate_throughput.py [--proposals 4000] [--batch 500]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from bench import limit
from bench.common import scratch_database
from bench.load import watch_load
from memwarden_extractor.io import with_id
from memwarden_extractor.rules import extract
from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Role, Source, Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.store.db import engine_for

SENTENCES = [
    "I prefer pnpm for all my projects.",
    "我更喜欢深色主题。",
    "My editor is Vim.",
    "Remember that I review pull requests only in the afternoon.",
    "请记住，我每周二上午十点开周会。",
    "Always reply to me in English.",
]
RAW_COMMIT_SQL = Path(__file__).with_name("gate_commit.sql")


def make_proposals(
    engine: Engine, tag: str, n: int, tenant: str | None = None
) -> list[dict[str, Any]]:
    """n committable proposals, each for its own subject and session (no fact-key
    contention, and no scope that the write-rate watch would hold: a held scope sends its
    proposals to review, and the benchmark would time that path instead of commits)."""
    registry = default_registry()
    turns = [
        Turn(
            tenant_id=tenant or f"bench-{tag}",
            subject_id=f"{tag}-s{i}" if tenant else f"s{i}",
            session_id=f"{tag}-c{i}",
            message_id=f"{tag}-m{i}" if tenant else f"m{i}",
            role=Role.USER,
            source=Source.USER_MESSAGE,
            text=SENTENCES[i % len(SENTENCES)],
            created_at=datetime(2026, 5, 1, 9, tzinfo=UTC),
        )
        for i in range(n)
    ]
    for i in range(0, n, 1000):
        ingest_turns(turns[i : i + 1000], engine=engine, extract=False)
    return [with_id(body) for turn in turns for body in extract(turn, registry)][:n]


def _client(url: str, share: list[dict[str, Any]]) -> None:
    engine = engine_for(url)
    engine.dispose(close=False)  # the parent's pooled connections are not ours after fork
    for p in share:
        decide_batch([p], engine=engine)
    engine.dispose()


def per_proposal(engine: Engine, proposals: list[dict[str, Any]], clients: int) -> float:
    """``clients`` separate processes (like pgbench's clients, and unlike threads, not
    sharing one interpreter lock), each deciding its share one proposal per transaction."""
    url = engine.url.render_as_string(hide_password=False)
    shares = [proposals[i::clients] for i in range(clients)]
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_client, args=(url, share)) for share in shares]
    t0 = time.perf_counter()
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            raise SystemExit(f"a client process failed ({proc.exitcode})")
    return len(proposals) / (time.perf_counter() - t0)


def batched(engine: Engine, proposals: list[dict[str, Any]], batch: int) -> float:
    t0 = time.perf_counter()
    for i in range(0, len(proposals), batch):
        decide_batch(proposals[i : i + batch], engine=engine)
    return len(proposals) / (time.perf_counter() - t0)


def pgbench(engine: Engine, clients: int, seconds: int) -> float:
    url = make_url(engine.url)
    env = {**os.environ, "PGPASSWORD": url.password or ""}
    done = subprocess.run(
        [
            "pgbench",
            "-n",
            "-h",
            url.host or "127.0.0.1",
            "-p",
            str(url.port or 5432),
            "-U",
            url.username or "postgres",
            "-c",
            str(clients),
            "-j",
            str(min(clients, 2)),
            "-T",
            str(seconds),
            "-f",
            str(RAW_COMMIT_SQL),
            "-D",
            f"seed={clients}",
            url.database or "",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    match = re.search(r"tps = ([\d.]+)", done.stdout)
    assert match, done.stdout + done.stderr
    return float(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--proposals", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--clients", default="1,4,16", help="comma-separated client counts")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; PostgreSQL on loopback; each row is measured")
    ratios: dict[int, float] = {}
    with scratch_database() as engine:
        print("clients | gate (real code) proposals/s | pgbench raw commit tx/s | ratio | load")
        for clients in (int(c) for c in args.clients.split(",")):
            proposals = make_proposals(engine, f"c{clients}", args.proposals)
            with watch_load() as load:
                gate = per_proposal(engine, proposals, clients)
                raw = pgbench(engine, clients, args.seconds)
            ratios[clients] = gate / raw
            print(f"{clients:7d} | {gate:28.0f} | {raw:23.0f} | {gate / raw:5.2f} | {load.text()}")
        proposals = make_proposals(engine, "batched", args.proposals * 2)
        with watch_load() as load:
            rate = batched(engine, proposals, args.batch)
            raw_gate = limit.measure(engine, args.proposals * 2, args.batch).gate_per_s
        print(
            f"batched gate path, {args.batch} proposals per transaction: {rate:.0f} proposals/s; "
            f"raw gate writes {raw_gate:.0f}/s; ratio {rate / raw_gate:.2f}; {load.text()}"
        )
    print(f"limit_ratio gate_batched={rate / raw_gate:.2f}")
    if 1 in ratios:
        print(f"limit_ratio gate_single_c1={ratios[1]:.2f}")


if __name__ == "__main__":
    main()
