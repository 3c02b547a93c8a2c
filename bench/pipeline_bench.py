"""The distributed pipeline on PostgreSQL + Redis, one worker process per stage.

1. the broker's own rate for no-op Celery tasks (same Redis, same settings);
2. the raw minimal-writes rate on the same database (``bench/limit.py``), the limit the
   sustained figure is divided by;
3. end-to-end turn -> recallable latency under a steady 50 turns/s (recallable = indexed:
   ``vector_index.indexed_at - messages.received_at``, both written by the database clock),
   after a warm-up of one turn per sentence whose first turn is printed as the cold start;
4. sustained throughput: turns ingested in batches of 500 as fast as the pipeline drains,
   with the rows written and transactions run per turn (``bench/pgstats.py``);
5. peak memory (VmHWM) of every process.

Each figure is printed with the load average while it was measured, and the run ends with
machine-readable lines: ``limit_ratio pipeline=``, ``latency_ms p50= p99=``,
``rows_per_turn=``.

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

from bench import limit, pgstats
from bench.common import percentile, scratch_database
from bench.load import watch_load
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
    return list(latencies(engine, "lat").values())


def latencies(engine: Engine, prefix: str) -> dict[str, float]:
    """Seconds from received to indexed, by subject, of the turns tagged ``prefix``."""
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT v.subject_id, EXTRACT(EPOCH FROM (v.indexed_at - m.received_at)) "
                "FROM vector_index v "
                "JOIN memory_evidence e ON e.memory_id = v.memory_id AND e.version = v.version "
                "JOIN messages m ON m.tenant_id = e.tenant_id AND m.message_id = e.message_id "
                "WHERE v.subject_id LIKE :prefix"
            ),
            {"prefix": f"{prefix}-%"},
        ).all()
    return {r[0]: float(r[1]) for r in rows}


def warm_up(engine: Engine) -> float:
    """Each sentence once, one turn per ingest, waited for: the latency clock starts with
    every worker past its first task (a process's first task loads what it loads lazily).
    Returns the first turn's latency, the cold start, in seconds."""
    for i in range(len(TEXTS)):
        ingest_turns(turns("warm", i, 1), engine=engine)
        wait_for(lambda i=i: indexed(engine, "warm") >= expected(i + 1))
    return latencies(engine, "warm")["warm-0"]


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
    with watch_load() as load:
        noop = noop_rate(args.noop)
    print(
        f"broker baseline: {noop:.0f} no-op Celery tasks/s ({args.noop} tasks, one solo "
        f"worker); {load.text()}"
    )
    log_dir = Path("/tmp/memwarden-bench-logs")
    log_dir.mkdir(exist_ok=True)
    # The limit writes its rows in a scratch database of its own: its outbox rows are unsent
    # `memory.committed` events and its vector rows carry a fixed embedder name, so in the
    # pipeline's database the relay and the vector sink would work through them (tens of
    # thousands of re-embeddings) during the latency phase and measure that instead.
    with scratch_database() as limit_engine, watch_load() as load:
        raw = limit.measure(limit_engine, args.turns)
    print(
        f"limit: raw minimal writes {raw.turns_per_s:.0f} turns/s "
        f"({raw.rows_per_turn} rows each); {load.text()}"
    )
    with scratch_database() as engine:
        procs = start_pipeline(engine.url.render_as_string(hide_password=False), log_dir)
        try:
            with watch_load() as load:
                cold = warm_up(engine)
            print(
                f"first turn after the workers started (cold): {cold * 1000:.0f} ms; {load.text()}"
            )
            with watch_load() as load:
                before = pgstats.read(engine, settle_s=0)
                samples = latency(engine, args.rate, args.seconds)
                single = pgstats.read(engine).minus(before)
            ms = [s * 1000 for s in samples]
            p50, p99 = percentile(ms, 50), percentile(ms, 99)
            print(
                f"turn -> recallable at {args.rate} turns/s for {args.seconds} s: "
                f"n={len(ms)} p50={p50:.0f} ms p90={percentile(ms, 90):.0f} ms "
                f"p99={p99:.0f} ms; {load.text()}"
            )
            print(f"  one turn per ingest: {single.per_turn(args.rate * args.seconds)}")
            before = pgstats.read(engine, settle_s=0)
            with watch_load() as load:
                rate = throughput(engine, args.turns)
            batched = pgstats.read(engine).minus(before)
            ratio = rate / raw.turns_per_s
            print(
                f"sustained: {args.turns} turns ({expected(args.turns)} committable) at "
                f"{rate:.0f} turns/s = {ratio:.2f}x the raw minimal-writes rate, "
                f"{rate / noop:.2f}x the no-op task rate; {load.text()}"
            )
            print(f"  batches of 500: {batched.per_turn(args.turns)}")
            for proc, name in zip(procs, [*STAGES, "relay"], strict=True):
                print(f"peak memory {name}: {peak_memory_mb(proc.pid):.0f} MB")
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:  # a loaded machine: do not lose the figures
                    proc.kill()
                    proc.wait()
    print(f"limit_ratio pipeline={ratio:.2f}")
    print(f"latency_ms p50={p50:.0f} p99={p99:.0f}")
    print(f"rows_per_turn={sum(batched.rows.values()) / args.turns:.1f}")


if __name__ == "__main__":
    main()
