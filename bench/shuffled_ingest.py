"""A backlog whose timestamps are out of order per subject, through relay and stages on
PostgreSQL: the relay work it costs (issue 26 item 1).

The turns are shuffled, then ingested in chunks while a relay round and a shuffling broker
run between chunks: a subject's older turns keep arriving after its newer ones. The broker
keeps every published batch and runs them in a random order, split at random, as two
workers and a reordering queue would. Redelivery is off (a deadline of an hour), so every
publish after the first is a parked event woken by its predecessor's consumer: the figure
this measures. A relay that republished held events on a timer would show here as rows
published many times and rounds that move nothing.

    .venv/bin/python bench/shuffled_ingest.py [--turns 30000] [--subjects 1500] [--seed 26]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import Engine, func, select

from bench.common import scratch_database
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.delivery.outbox import delivery_health
from memwarden_shared.delivery.relay import RelayTimings, relay_once
from memwarden_shared.store.db import engine_scope
from memwarden_shared.store.schema import outbox
from memwarden_shared.store.tenant_scope import all_tenants
from memwarden_usecases.pipeline import run_task_locally
from tests.faults.workload import build

# no timer-driven republish: only a wake may publish a row again
NO_REDELIVERY = RelayTimings(lease_seconds=30.0, redeliver_seconds=3600.0)
# relay rounds in a row that claim nothing while rows stay unconsumed: a stall
STALL_ROUNDS = 5


@dataclass
class Figures:
    turns: int
    rows: int  # outbox rows written (turns, proposals, memory versions...)
    publishes: int  # sum of publish_count
    max_publishes: int  # the most any one row was published
    rows_over_two: int  # rows published three times or more
    relay_rounds: int
    idle_rounds: int  # rounds that claimed nothing while work was left
    parked_peak: int  # the most rows parked at once (seen between rounds)
    overdue_peak: int
    unconsumed: int  # left at the end (0: settled)
    seconds: float

    def line(self) -> str:
        return (
            f"turns={self.turns} outbox_rows={self.rows} publishes={self.publishes} "
            f"publishes_per_row={self.publishes / max(self.rows, 1):.2f} "
            f"max_per_row={self.max_publishes} rows_published_3plus={self.rows_over_two} "
            f"relay_rounds={self.relay_rounds} idle_rounds={self.idle_rounds} "
            f"parked_peak={self.parked_peak} overdue_peak={self.overdue_peak} "
            f"unconsumed={self.unconsumed} seconds={self.seconds:.1f}"
        )


class ShufflingBroker:
    """Keeps published batches; runs them in a random order, each split and shuffled."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.waiting: list[tuple[str, str, list[dict[str, Any]]]] = []

    def publish(self, task: str, queue: str, envelopes: list[dict[str, Any]], /) -> None:
        self.waiting.append((task, queue, list(envelopes)))

    def run_all(self) -> None:
        self.rng.shuffle(self.waiting)
        while self.waiting:
            task, queue, envelopes = self.waiting.pop()
            self.rng.shuffle(envelopes)
            cut = self.rng.randint(0, len(envelopes))
            for part in (envelopes[cut:], envelopes[:cut]):
                if part:
                    run_task_locally(task, queue, part)


@all_tenants("the bench plays relay and workers over every tenant")
def run_shuffled(
    engine: Engine, turns: list[dict[str, Any]], seed: int, chunk: int = 500
) -> Figures:
    """Ingest ``turns`` shuffled by ``seed`` in chunks, relaying between chunks, then relay
    until every row is consumed or the relay stalls; returns the figures."""
    rng = random.Random(seed)
    shuffled = list(turns)
    rng.shuffle(shuffled)
    broker = ShufflingBroker(rng)
    peaks = {"parked": 0, "overdue": 0, "rounds": 0, "idle": 0}
    t0 = time.monotonic()

    def round_trip() -> int:
        moved = relay_once(engine, broker.publish, 200, NO_REDELIVERY)
        broker.run_all()
        peaks["rounds"] += 1
        with engine.connect() as conn:
            health = delivery_health(conn, redeliver_seconds=NO_REDELIVERY.redeliver_seconds)
        peaks["parked"] = max(peaks["parked"], health.parked)
        peaks["overdue"] = max(peaks["overdue"], health.overdue)
        return moved

    with engine_scope(engine):
        for start in range(0, len(shuffled), chunk):
            part = [Turn.model_validate(t) for t in shuffled[start : start + chunk]]
            ingest_turns(part, engine=engine)
            round_trip()
        stalled = 0
        while _unconsumed(engine) and stalled < STALL_ROUNDS:
            moved = round_trip()
            stalled = 0 if moved else stalled + 1
            peaks["idle"] += 0 if moved else 1
    return _figures(engine, len(turns), peaks, time.monotonic() - t0)


def _unconsumed(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                select(func.count()).select_from(outbox).where(outbox.c.consumed_at.is_(None))
            ).scalar_one()
        )


def _figures(engine: Engine, turns: int, peaks: dict[str, int], seconds: float) -> Figures:
    with engine.connect() as conn:
        rows, publishes, most, over = conn.execute(
            select(
                func.count(),
                func.coalesce(func.sum(outbox.c.publish_count), 0),
                func.coalesce(func.max(outbox.c.publish_count), 0),
                func.count().filter(outbox.c.publish_count >= 3),
            ).select_from(outbox)
        ).one()
    return Figures(
        turns=turns,
        rows=int(rows),
        publishes=int(publishes),
        max_publishes=int(most),
        rows_over_two=int(over),
        relay_rounds=peaks["rounds"],
        idle_rounds=peaks["idle"],
        parked_peak=peaks["parked"],
        overdue_peak=peaks["overdue"],
        unconsumed=_unconsumed(engine),
        seconds=seconds,
    )


def shuffled_workload(turns: int, subjects: int, seed: int) -> list[dict[str, Any]]:
    """The fault suite's workload (changing preferences, one-time requests, chatter,
    English and Chinese), ``turns`` of it over ``subjects``."""
    return build(subjects=subjects, turns_per_subject=max(turns // subjects, 1), seed=seed).turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=30_000)
    parser.add_argument("--subjects", type=int, default=1_500)
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args()
    turns = shuffled_workload(args.turns, args.subjects, args.seed)
    with scratch_database() as engine:
        figures = run_shuffled(engine, turns, args.seed)
    print(figures.line())
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
