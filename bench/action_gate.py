"""Action gate latency on PostgreSQL: decide requests that each use one committed memory.

Memories are made by the real pipeline (ingest, extractor, gate), one per subject; then
requests are decided one at a time (new keys), as retries of those keys (DUPLICATE), and
from several client threads at once.

    .venv/bin/python bench/action_gate.py [--subjects 200] [--requests 2000] [--threads 4]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import select

from bench.common import scratch_database, summary_ms
from memwarden_actions.io import request_action
from memwarden_actions.request import ActionRequest
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.state.auth import Principal, Scope
from memwarden_shared.store.schema import current_memories
from memwarden_usecases.pipeline import drain

TENANT = "bench"
AGENT = Principal("bench-agent", TENANT, frozenset({Scope.ACTION_REQUEST}))


def seed(engine, subjects: int) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    turns = [
        Turn.model_validate(
            {
                "tenant_id": TENANT,
                "subject_id": f"s{i}",
                "session_id": "s",
                "message_id": f"m{i}",
                "role": "user",
                "source": "user_message",
                "text": "I use npm for every project",
                "created_at": "2026-07-01T08:00:00Z",
            }
        )
        for i in range(subjects)
    ]
    ingest_turns(turns, engine=engine)
    drain(engine)
    with engine.connect() as conn:
        rows = conn.execute(select(current_memories.c.subject_id, current_memories.c.memory_id))
        return [(r.subject_id, r.memory_id) for r in rows]


def ask(engine, subject: str, memory_id: str, key: str) -> float:  # type: ignore[no-untyped-def]
    req = ActionRequest(
        tenant_id=TENANT,
        subject_id=subject,
        intent="package.install",
        params={"package": "express"},
        uses=[memory_id],
        idempotency_key=key,
    )
    start = time.perf_counter()
    request_action(req, AGENT, engine=engine)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--subjects", type=int, default=200)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    with scratch_database() as engine:
        memories = seed(engine, args.subjects)
        print(f"seeded {len(memories)} committed memories")
        jobs = [(*memories[i % len(memories)], f"k{i}") for i in range(args.requests)]
        started = time.perf_counter()
        fresh = [ask(engine, *job) for job in jobs]
        wall = time.perf_counter() - started
        print(f"new keys, 1 client: {summary_ms(fresh)}; {len(fresh) / wall:.0f} decisions/s")
        started = time.perf_counter()
        retries = [ask(engine, *job) for job in jobs]
        wall = time.perf_counter() - started
        print(f"retries (DUPLICATE), 1 client: {summary_ms(retries)}; {len(retries) / wall:.0f}/s")
        threaded = [(s, m, f"t{i}") for i, (s, m, _) in enumerate(jobs)]
        started = time.perf_counter()
        with ThreadPoolExecutor(args.threads) as pool:
            many = list(pool.map(lambda job: ask(engine, *job), threaded))
        wall = time.perf_counter() - started
        print(
            f"new keys, {args.threads} clients: {summary_ms(many)}; "
            f"{len(many) / wall:.0f} decisions/s"
        )


if __name__ == "__main__":
    main()
