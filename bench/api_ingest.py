"""API batch ingest on PostgreSQL: `memwarden api` as its own process (distributed mode, so a
request stores turns + outbox rows and returns), driven by concurrent HTTP clients.

    .venv/bin/python bench/api_ingest.py [--requests 400] [--batch 100] [--clients 4]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from bench.common import percentile, scratch_database
from memwarden_shared.state.auth import Scope, create_principal

TEXTS = ["I prefer pnpm for all my projects.", "我更喜欢深色主题。", "Thanks, that fixed it!"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    with scratch_database() as engine:
        with engine.begin() as conn:
            key = create_principal(conn, "bench-ingest", "bench", [Scope.PROPOSE])
        port = free_port()
        env = {
            **os.environ,
            "MEMWARDEN_DATABASE_URL": engine.url.render_as_string(hide_password=False),
            "MEMWARDEN_BROKER_URL": "redis://127.0.0.1:6379/12",
            "MEMWARDEN_LOG_LEVEL": "WARNING",
            "MEMWARDEN_MAX_BATCH": str(args.batch),
        }
        api = subprocess.Popen(
            [sys.executable, "-m", "memwarden.cli", "api", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    if httpx.get(base + "/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            latencies: list[float] = []
            lock = threading.Lock()
            counter = iter(range(args.requests))

            def client() -> None:
                with httpx.Client(
                    base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30
                ) as http:
                    for n in counter:
                        body = {
                            "turns": [
                                {
                                    "subject_id": f"s{n}",
                                    "session_id": f"s{n}",
                                    "message_id": f"m{n}-{i}",
                                    "role": "user",
                                    "source": "user_message",
                                    "text": TEXTS[i % len(TEXTS)],
                                    "created_at": "2026-05-01T09:00:00Z",
                                }
                                for i in range(args.batch)
                            ]
                        }
                        t0 = time.perf_counter()
                        response = http.post("/v1/turns", json=body)
                        elapsed = time.perf_counter() - t0
                        response.raise_for_status()
                        with lock:
                            latencies.append(elapsed)

            threads = [threading.Thread(target=client) for _ in range(args.clients)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
            ms = [x * 1000 for x in latencies]
            print(
                f"API ingest: {len(ms)} requests x {args.batch} turns, {args.clients} clients: "
                f"{len(ms) * args.batch / wall:.0f} turns/s, {len(ms) / wall:.0f} requests/s; "
                f"per request p50={percentile(ms, 50):.0f} ms p99={percentile(ms, 99):.0f} ms"
            )
        finally:
            api.terminate()
            api.wait(20)


if __name__ == "__main__":
    main()
