"""Replay of generated historical turns through `memwarden replay` (a separate process):
on the embedded default (SQLite, tasks in-process) and on PostgreSQL + Redis with one worker
process per stage (the replay process ingests, extracts and decides; the relay and the
vector-sink worker index what it committed). Prints turns/s, proposals/s and peak memory.

    .venv/bin/python bench/replay_bench.py [--turns 100000] [--skip-embedded] [--skip-pg]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import scratch_database
from bench.pipeline_bench import BROKER, peak_memory_mb, start_pipeline

COMMITTABLE = [
    "I prefer {pm} for all my projects.",
    "我更喜欢{theme}主题。",
    "Remember that I review pull requests only on {day}.",
    "我写代码一直用 {editor}。",
    "请记住，我每周{zday}上午开周会。",
]
OTHER = [
    "My colleague lives in {city}.",
    "Use {pm} this time.",
    "Should I switch to {pm}?",
    "这次先用 {pm}。",
    "Thanks, that fixed the build!",
    "同事住{zcity}。",
    "Can you summarise the incident report?",
    "好的，继续吧。",
    "I don't like {theme2} mode.",
    "If I ever move to {city}, I'd want light mode.",
]
FILL = {
    "pm": ["npm", "pnpm", "yarn", "bun"],
    "theme": ["深色", "浅色"],
    "theme2": ["dark", "light"],
    "day": ["Mondays", "Tuesdays", "Fridays"],
    "editor": ["Vim", "Emacs", "VS Code"],
    "zday": ["一", "三", "五"],
    "city": ["Berlin", "Tokyo", "Lisbon"],
    "zcity": ["北京", "上海", "深圳"],
}


def generate(path: Path, n: int) -> None:
    rng = random.Random(7)
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            template = rng.choice(COMMITTABLE) if rng.random() < 0.34 else rng.choice(OTHER)
            text = template.format(**{k: rng.choice(v) for k, v in FILL.items()})
            subject = f"u{i // 20}"  # a subject's history of twenty turns
            out.write(
                json.dumps(
                    {
                        "subject_id": subject,
                        "session_id": f"{subject}-s{i // 5}",
                        "message_id": f"m{i}",
                        "role": "user",
                        "source": "user_message",
                        "text": text,
                        "created_at": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T09:00:00Z",
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )


def replay(path: Path, env: dict[str, str], report: Path) -> tuple[float, dict[str, Any], float]:
    argv = [
        "memwarden",
        "replay",
        str(path),
        "--tenant",
        "hist",
        "--batch",
        "1000",
        "--report",
        str(report),
    ]
    # the replay process reports its own peak RSS on the way out
    wrapper = (
        "import resource, runpy, sys\n"
        f"sys.argv = {argv!r}\n"
        "try:\n    runpy.run_module('memwarden.cli', run_name='__main__')\n"
        "finally:\n    print('PEAK_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
        " file=sys.stderr)\n"
    )
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", wrapper], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    peak_kb = next(
        int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_KB")
    )
    return wall, json.loads(report.read_text()), peak_kb / 1024


def show(label: str, n: int, wall: float, body: dict[str, Any], peak: float) -> None:
    keys = ("turns", "proposals", "turns_per_second", "proposals_per_second")
    figures = {k: body.get(k, body.get("totals", {}).get(k)) for k in keys}
    print(
        f"{label}: {n} turns in {wall:.1f} s wall = {n / wall:.0f} turns/s; report {figures}; "
        f"replay process peak {peak:.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--skip-embedded", action="store_true")
    parser.add_argument("--skip-pg", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "history.jsonl"
        generate(data, args.turns)
        print(
            f"generated {args.turns} turns ({data.stat().st_size / 1e6:.1f} MB, about a third "
            "committable, English and Chinese)"
        )
        base = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
        if not args.skip_embedded:
            env = {**base, "MEMWARDEN_DATA_DIR": tmp, "MEMWARDEN_LOG_LEVEL": "WARNING"}
            wall, body, peak = replay(data, env, Path(tmp) / "embedded.json")
            show("embedded (SQLite)", args.turns, wall, body, peak)
        if not args.skip_pg:
            with scratch_database() as engine:
                url = engine.url.render_as_string(hide_password=False)
                procs = start_pipeline(url, Path(tmp))
                try:
                    env = {
                        **base,
                        "MEMWARDEN_DATABASE_URL": url,
                        "MEMWARDEN_BROKER_URL": BROKER,
                        "MEMWARDEN_LOG_LEVEL": "WARNING",
                    }
                    wall, body, peak = replay(data, env, Path(tmp) / "pg.json")
                    show("PostgreSQL + Redis, one worker per stage", args.turns, wall, body, peak)
                    for proc, name in zip(
                        procs,
                        ["extractor", "gate", "revalidation", "vector_sink", "relay"],
                        strict=True,
                    ):
                        print(f"  peak memory {name} worker: {peak_memory_mb(proc.pid):.0f} MB")
                finally:
                    for proc in procs:
                        proc.terminate()
                    for proc in procs:
                        proc.wait(20)


if __name__ == "__main__":
    main()
