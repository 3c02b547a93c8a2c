"""Cost of one hostile request under the body limit (issue 22 item 4): CPU time, peak Python
memory and resident-set growth per request, in process, at the default limits.

The API runs over an embedded SQLite store with a broker URL set, so a write stores its
rows and returns (no in-process pipeline): what is measured is the request itself, which
is what a client controls. Each case runs on a fresh app; figures are per request.

    .venv/bin/python bench/api_request_bounds.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient

from memwarden.api.app import create_app
from memwarden.api.limits import SMALL_BODY_BYTES, batch_body_bytes
from memwarden_shared.config import Settings
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import engine_for, migrate

# The request deadline is lifted here so the full cost is measured, not the cost until 503.
SETTINGS = Settings(broker_url="redis://127.0.0.1:6379/14", request_timeout_seconds=3600)
LIMIT = batch_body_bytes(SETTINGS)


def _turn(n: int, text: str) -> dict[str, Any]:
    return {
        "message_id": f"m{n}",  # short: a long digit run would read as a secret
        "subject_id": "u1",
        "session_id": "s1",
        "role": "user",
        "source": "user_message",
        "text": text,
        "created_at": "2026-05-01T09:00:00Z",
    }


def cases() -> list[tuple[str, str, Callable[[], bytes]]]:
    """(name, route, body) — the body is built outside the measurement."""
    wide = "界" * SETTINGS.max_text_chars  # 6 bytes per character once escaped
    return [
        (
            "100,000 empty turns (oversize batch)",
            "/v1/turns",
            lambda: json.dumps({"turns": [{}] * 100_000}).encode(),
        ),
        (
            f"{SETTINGS.max_batch} empty turns (max errors)",
            "/v1/turns",
            lambda: json.dumps({"turns": [{}] * SETTINGS.max_batch}).encode(),
        ),
        (
            f"{SETTINGS.max_batch} nested junk items",
            "/v1/proposals",
            lambda: json.dumps(
                {"proposals": [{"a": [[{"b": list(range(50))}] * 10]}] * SETTINGS.max_batch}
            ).encode(),
        ),
        (
            f"{SETTINGS.max_batch} maximal turns, escaped (body at the limit)",
            "/v1/turns",
            lambda: json.dumps(
                {"turns": [_turn(n, wide) for n in range(SETTINGS.max_batch)]}, ensure_ascii=True
            ).encode(),
        ),
        (
            "small route, body at its limit",
            "/v1/curate/runs",
            lambda: json.dumps({"pad": "z" * (SMALL_BODY_BYTES - 20)}).encode(),
        ),
    ]


def measure(client: TestClient, key: str, route: str, body: bytes) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    cpu, wall = time.process_time(), time.perf_counter()
    r = client.post(route, headers=headers, content=body)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    return {
        "status": r.status_code,
        "code": r.json().get("code") if r.status_code >= 400 else None,
        "response_bytes": len(r.content),
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "peak_python_mb": round(peak / 2**20, 1),
        "rss_growth_mb": round(rss_growth / 1024, 1),
    }


def _one(route: str, body: bytes) -> dict[str, Any]:
    """One request on a fresh store and app: no case waits on another's rows or locks."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = engine_for(f"sqlite:///{tmp}/bench.db")
        migrate(engine)
        with engine.begin() as conn:
            key = create_principal(conn, "bench", "bench", [Scope.PROPOSE, Scope.ADMIN])
        app = create_app(engine, settings=SETTINGS, event_settle_seconds=0)
        with TestClient(app) as client:
            got = measure(client, key, route, body)
        engine.dispose()
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    print(f"batch route body limit {LIMIT:,} bytes; other routes {SMALL_BODY_BYTES:,} bytes")
    for name, route, build in cases():
        worst: dict[str, Any] = {}
        size = 0
        for _ in range(args.repeat):
            body = build()
            size = len(body)
            got = _one(route, body)
            worst = got if not worst or got["cpu_s"] > worst["cpu_s"] else worst
        print(f"{name} [{size:,} bytes]: " + json.dumps(worst))
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
