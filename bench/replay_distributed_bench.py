"""Distributed replay throughput with 1, 2 and 4 `memwarden worker replay` processes, and where
the time goes: CPU seconds of the replay workers, of the PostgreSQL backends serving them
(this run's database only) and of the coordinator, plus commits and broker messages per turn.

Each worker count gets a fresh database and the same generated history. The fleet rate is
turns over the wall time from the first chunk claimed to the last chunk done (the report's
``seconds``); the command's wall time adds the planning pass and process start-up.

    .venv/bin/python bench/replay_distributed_bench.py [--turns 40000] [--workers 1 2 4]
        [--broker redis://127.0.0.1:6379/2] [--profile]

``--profile`` samples the single worker with py-spy (``pip install py-spy``) and prints where
its samples fall (extraction, gate, ingest, database driver, JSON...).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis
from sqlalchemy import text

from bench.common import scratch_database
from bench.replay_bench import generate

TICK = os.sysconf("SC_CLK_TCK")
LANES = 16  # set from --lanes
PROFILE_BUCKETS = [  # first match in a sampled stack (leaf first) names the bucket
    ("database driver / network wait", ("psycopg", "socket", "selectors")),
    ("SQLAlchemy", ("sqlalchemy",)),
    ("gate (services/gate)", ("services/gate",)),
    (
        "extractor (rules, segmenter, classifier)",
        (
            "services/extractor",
            "shared/segmenter",
            "shared/classifier",
            "shared/reltime",
            "shared/grounding",
        ),
    ),
    ("secret / sensitive detection", ("shared/secret", "shared/sensitive")),
    ("ingest", ("services/ingest",)),
    ("pydantic validation", ("pydantic",)),
    ("JSON / hashing", ("json", "canonical", "hashlib")),
    ("replay glue", ("services/replay",)),
    ("celery / kombu", ("celery", "kombu")),
]


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def start_workers(n: int, env: dict[str, str], logs: Path) -> list[subprocess.Popen[bytes]]:
    procs = []
    for i in range(n):
        out = (logs / f"worker-{n}-{i}.log").open("w")
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "memwarden.cli", "worker", "replay"],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # ready: each log says so
        ready = sum("ready" in (logs / f"worker-{n}-{i}.log").read_text() for i in range(n))
        if ready == n:
            return procs
        time.sleep(0.2)
    for proc in procs:
        proc.kill()
    raise SystemExit("replay workers did not start")


def backend_pids(engine: object, dbname: str) -> list[int]:
    with engine.connect() as conn:  # type: ignore[attr-defined]
        rows = conn.execute(
            text("SELECT pid FROM pg_stat_activity WHERE datname = :d AND pid <> pg_backend_pid()"),
            {"d": dbname},
        )
        return [r.pid for r in rows]


def commits(engine: object, dbname: str) -> int:
    with engine.connect() as conn:  # type: ignore[attr-defined]
        return int(
            conn.execute(
                text("SELECT xact_commit FROM pg_stat_database WHERE datname = :d"), {"d": dbname}
            ).scalar_one()
        )


def rows_written(engine: object) -> int:
    """Rows inserted or updated in this database so far (the statistics lag a moment)."""
    with engine.connect() as conn:  # type: ignore[attr-defined]
        return int(
            conn.execute(
                text("SELECT coalesce(sum(n_tup_ins + n_tup_upd), 0) FROM pg_stat_user_tables")
            ).scalar_one()
        )


def profile_summary(raw: Path) -> list[tuple[str, float]]:
    """py-spy raw (collapsed) stacks -> share of samples per bucket."""
    buckets: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = stack.split(";")[::-1]  # leaf first
        for frame in frames:
            name = next((b for b, marks in PROFILE_BUCKETS if any(m in frame for m in marks)), None)
            if name:
                buckets[name] += n
                break
        else:
            buckets["other (interpreter, stdlib, idle)"] += n
    return [(b, n / max(total, 1)) for b, n in buckets.most_common()]


def run_once(
    n: int, data: Path, turns: int, broker: str, tmp: Path, profile: bool
) -> dict[str, Any]:
    with scratch_database() as engine:
        url = engine.url.render_as_string(hide_password=False)
        dbname = engine.url.database
        assert dbname, "scratch_database names its database"
        redis.Redis.from_url(broker).flushdb()
        base = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
        env = {
            **base,
            "MEMWARDEN_DATABASE_URL": url,
            "MEMWARDEN_BROKER_URL": broker,
            "MEMWARDEN_LOG_LEVEL": "WARNING",
        }
        # INFO for the workers: Celery's "ready" line says they are up; per chunk it adds
        # two lines (the gate's per-decision lines are silenced in replay tasks)
        workers = start_workers(n, {**env, "MEMWARDEN_LOG_LEVEL": "INFO"}, tmp)
        spy = None
        raw = tmp / f"profile-{n}.txt"
        if profile and shutil.which("py-spy", path=str(Path(sys.executable).parent)):
            spy = subprocess.Popen(
                [
                    str(Path(sys.executable).parent / "py-spy"),
                    "record",
                    "--pid",
                    str(workers[0].pid),
                    "--format",
                    "raw",
                    "--output",
                    str(raw),
                    "--rate",
                    "50",
                    "--nonblocking",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        try:
            measured = measure(engine, dbname, workers, env, data, tmp, n)
        finally:
            if spy:
                spy.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
                spy.wait(30)
            for p in workers:
                p.terminate()
            for p in workers:
                p.wait(30)
    return {**measured, "profile": profile_summary(raw) if spy and raw.exists() else None}


def measure(
    engine: Any, dbname: str, workers: list[Any], env: dict[str, str], data: Path, tmp: Path, n: int
) -> dict[str, Any]:
    """Run the coordinator once against running workers; CPU, commits and rows it cost."""
    cpu_before = [cpu_seconds(p.pid) for p in workers]
    commits_before = commits(engine, dbname)
    rows_before = rows_written(engine)
    backends_before = {pid: cpu_seconds(pid) for pid in backend_pids(engine, dbname)}
    report = tmp / f"report-{n}.json"
    usage_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memwarden.cli",
            "replay",
            "--distributed",
            str(data),
            "--tenant",
            "hist",
            "--batch",
            "500",
            "--lanes",
            str(LANES),
            "--report",
            str(report),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(done.stdout[-1500:] + done.stderr[-1500:])
    worker_cpu = sum(cpu_seconds(p.pid) for p in workers) - sum(cpu_before)
    backends = backend_pids(engine, dbname)
    pg_cpu = sum(cpu_seconds(pid) - backends_before.get(pid, 0.0) for pid in backends)
    txs = commits(engine, dbname) - commits_before
    time.sleep(1.5)  # let the backends report their row counts
    rows = rows_written(engine) - rows_before
    with engine.connect() as conn:
        chunks = conn.execute(text("SELECT count(*), sum(attempts) FROM replay_chunks")).one()
    body = json.loads(report.read_text())
    coordinator_cpu = (usage.ru_utime + usage.ru_stime) - (
        usage_before.ru_utime + usage_before.ru_stime
    )
    return {
        "workers": n,
        "turns": body["turns"],
        "proposals": body["proposals"],
        "fleet_seconds": body["seconds"],
        "fleet_rate": body["turns"] / body["seconds"],
        "command_wall": wall,
        "worker_cpu": worker_cpu,
        "pg_cpu": pg_cpu,
        "coordinator_cpu": coordinator_cpu,
        "commits": txs,
        "rows": rows,
        "chunks": int(chunks[0]),
        "attempts": int(chunks[1]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=40_000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument(
        "--broker", default=os.environ.get("MEMWARDEN_BENCH_BROKER", "redis://127.0.0.1:6379/13")
    )
    parser.add_argument("--profile", action="store_true", help="py-spy the 1-worker run")
    parser.add_argument("--lanes", type=int, default=16, help="lanes (at most 500 turns a chunk)")
    args = parser.parse_args()
    global LANES  # one setting for the whole script
    LANES = args.lanes
    print(
        f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start "
        "(shared with other engineers' work: figures are lower bounds)"
    )
    results = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        data = tmp / "history.jsonl"
        generate(data, args.turns)
        print(f"generated {args.turns} turns, subjects of 20 turns in sessions of 5")
        for n in args.workers:
            r = run_once(n, data, args.turns, args.broker, tmp, args.profile and n == 1)
            results.append(r)
            t = r["turns"]
            print(
                f"{n} replay worker(s): {r['fleet_rate']:,.0f} turns/s "
                f"({t} turns, {r['proposals']} proposals, {r['fleet_seconds']:.1f} s fleet wall, "
                f"{r['command_wall']:.1f} s command wall incl. planning); CPU per 1k turns: "
                f"workers {1000 * r['worker_cpu'] / t:.2f} s, PostgreSQL backends "
                f"{1000 * r['pg_cpu'] / t:.2f} s, coordinator {1000 * r['coordinator_cpu'] / t:.2f}"
                f" s; {r['commits'] / t:.4f} commits/turn, {r['rows'] / t:.2f} rows written/turn; "
                f"{r['chunks']} chunks, "
                f"{r['attempts']} claims, {r['attempts'] / t:.4f} broker messages/turn "
                f"(plus one redelivery sweep query every 0.5 s); load {os.getloadavg()[0]:.1f}"
            )
            if r["profile"]:
                print("  py-spy, 1 worker (share of samples):")
                for bucket, share in r["profile"]:
                    print(f"    {share:6.1%}  {bucket}")
    one = results[0]["fleet_rate"]
    for r in results[1:]:
        print(
            f"gain {r['workers']} workers over {results[0]['workers']}: "
            f"{r['fleet_rate'] / one:.2f}x"
        )


if __name__ == "__main__":
    main()
