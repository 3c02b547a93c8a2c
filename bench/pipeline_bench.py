"""The distributed pipeline on PostgreSQL + Redis, one worker process per stage.

1. the broker's own rate for no-op Celery tasks (same Redis, same settings);
2. end-to-end turn -> recallable latency under a steady 50 turns/s (recallable = indexed:
   ``vector_index.indexed_at - messages.received_at``, both written by the database clock);
3. sustained throughput: turns ingested in batches of 500 as fast as the pipeline drains;
4. peak memory (VmHWM) of every process.

    .venv/bin/python bench/pipeline_bench.py [--rate 50] [--seconds 20] [--turns 20000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis
from sqlalchemy import Engine, func, select, text

from bench.common import percentile, scratch_database
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Role, Source, Turn
from memwarden_shared.store.schema import vector_index

# another Redis database with MEMWARDEN_BENCH_BROKER_URL (it is flushed): a shared machine
BROKER = os.environ.get("MEMWARDEN_BENCH_BROKER_URL", "redis://127.0.0.1:6379/14")
os.environ["MEMWARDEN_BROKER_URL"] = BROKER  # bench.noop_app reads it at import
STAGES = ["extractor", "gate", "revalidation", "vector_sink"]
TEXTS = [
    "I prefer pnpm for all my projects.",
    "我更喜欢深色主题。",
    "Remember that I review pull requests only in the afternoon.",
    "My colleague lives in Beijing.",
    "Use npm this time.",
    "我写代码一直用 Vim。",
]
COMMITTABLE = {0, 1, 2, 5}


def noop_rate(n: int) -> float:
    r = redis.Redis.from_url(BROKER)
    r.flushdb()
    env = {**os.environ, "MEMWARDEN_BROKER_URL": BROKER}
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "bench.noop_app",
            "worker",
            "--pool",
            "solo",
            "--loglevel",
            "WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        env=env,
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        from bench.noop_app import app

        app.send_task("bench.noop", args=[[]])
        deadline = time.time() + 60
        while int(r.get("bench:noop:done") or 0) < 1 and time.time() < deadline:
            time.sleep(0.05)
        r.set("bench:noop:done", 0)
        t0 = time.perf_counter()
        for _ in range(n):
            app.send_task("bench.noop", args=[[{"k": "v"}]])
        while int(r.get("bench:noop:done") or 0) < n:
            time.sleep(0.01)
        return n / (time.perf_counter() - t0)
    finally:
        worker.terminate()
        worker.wait(20)


def start_pipeline(url: str, log_dir: Path) -> list[subprocess.Popen[bytes]]:
    redis.Redis.from_url(BROKER).flushdb()
    env = {
        **os.environ,
        "MEMWARDEN_DATABASE_URL": url,
        "MEMWARDEN_BROKER_URL": BROKER,
        "MEMWARDEN_LOG_LEVEL": os.environ.get("MEMWARDEN_BENCH_LOG_LEVEL", "WARNING"),
        "MEMWARDEN_MAX_BATCH": "500",
    }
    procs = []
    for args in [["worker", s] for s in STAGES] + [["relay"]]:
        log = (log_dir / f"{'-'.join(args)}.log").open("w")
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "memwarden.cli", *args],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    time.sleep(4)  # workers connect to the broker
    return procs


def turns(tag: str, start: int, n: int) -> list[Turn]:
    return [
        Turn(
            tenant_id="bench",
            subject_id=f"{tag}-{i}",
            session_id="s",
            message_id=f"{tag}-{i}",
            role=Role.USER,
            source=Source.USER_MESSAGE,
            text=TEXTS[i % len(TEXTS)],
            created_at=datetime(2026, 5, 1, 9, tzinfo=UTC),
        )
        for i in range(start, start + n)
    ]


def indexed(engine: Engine, prefix: str) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                select(func.count())
                .select_from(vector_index)
                .where(vector_index.c.subject_id.like(f"{prefix}-%"))
            ).scalar_one()
        )


def expected(n: int) -> int:
    return sum(1 for i in range(n) if i % len(TEXTS) in COMMITTABLE)


def latency(engine: Engine, rate: int, seconds: int) -> list[float]:
    total = rate * seconds
    t0 = time.perf_counter()
    for i in range(total):
        ingest_turns(turns("lat", i, 1), engine=engine)
        delay = t0 + (i + 1) / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    wait_for(lambda: indexed(engine, "lat") >= expected(total))
    with engine.connect() as conn:
        rows = (
            conn.execute(
                text(
                    "SELECT EXTRACT(EPOCH FROM (v.indexed_at - m.received_at)) FROM vector_index v "
                    "JOIN memory_evidence e ON e.memory_id = v.memory_id AND e.version = v.version "
                    "JOIN messages m ON m.tenant_id = e.tenant_id AND m.message_id = e.message_id "
                    "WHERE v.subject_id LIKE 'lat-%'"
                )
            )
            .scalars()
            .all()
        )
    return [float(r) for r in rows]


def throughput(engine: Engine, n: int) -> float:
    t0 = time.perf_counter()
    for i in range(0, n, 500):
        ingest_turns(turns("tp", i, min(500, n - i)), engine=engine)
    wait_for(lambda: indexed(engine, "tp") >= expected(n), seconds=900)
    return n / (time.perf_counter() - t0)


def wait_for(condition, seconds: float = 300) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("pipeline did not drain in time")
        time.sleep(0.2)


def peak_memory_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rate", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--turns", type=int, default=20000)
    parser.add_argument("--noop", type=int, default=3000)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; PostgreSQL and Redis on loopback")
    noop = noop_rate(args.noop)
    print(f"broker baseline: {noop:.0f} no-op Celery tasks/s ({args.noop} tasks, one solo worker)")
    log_dir = Path("/tmp/memwarden-bench-logs")
    log_dir.mkdir(exist_ok=True)
    with scratch_database() as engine:
        procs = start_pipeline(engine.url.render_as_string(hide_password=False), log_dir)
        try:
            samples = latency(engine, args.rate, args.seconds)
            ms = [s * 1000 for s in samples]
            print(
                f"turn -> recallable at {args.rate} turns/s for {args.seconds} s: "
                f"n={len(ms)} p50={percentile(ms, 50):.0f} ms p90={percentile(ms, 90):.0f} ms "
                f"p99={percentile(ms, 99):.0f} ms"
            )
            rate = throughput(engine, args.turns)
            print(
                f"sustained: {args.turns} turns ({expected(args.turns)} committable) at "
                f"{rate:.0f} turns/s = {rate / noop:.2f}x the no-op task rate"
            )
            for proc, name in zip(procs, [*STAGES, "relay"], strict=True):
                print(f"peak memory {name}: {peak_memory_mb(proc.pid):.0f} MB")
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(20)


if __name__ == "__main__":
    main()
