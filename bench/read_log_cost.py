"""What the read log costs recall (issue 24 item 5: keep it within 10% of p99).

Loads committed memories on a scratch PostgreSQL database (``recall_latency.load``), then
recalls random subjects' top 10 twice per round, in alternating order: once through the
recall stage alone (no read log) and once through the use case the doors call (recall,
then one multi-row INSERT into ``read_log``). Alternating keeps both under the same load.

    .venv/bin/python bench/read_log_cost.py [--subjects 300] [--per-subject 50] [--rounds 1500]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import percentile, scratch_database, summary_ms
from bench.recall_latency import load
from memwarden_recall.query import recall as recall_without_log
from memwarden_usecases.recall import recall as recall_with_log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--subjects", type=int, default=300)
    parser.add_argument("--per-subject", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=1500)
    args = parser.parse_args()
    rng = random.Random(7)
    with scratch_database() as engine:
        load(engine, args.subjects, args.per_subject, rng)
        plain: list[float] = []
        logged: list[float] = []
        for i in range(args.rounds):
            subject = f"subject-{rng.randrange(args.subjects):04d}"
            calls = [
                (plain, lambda s=subject: recall_without_log("bench", s, k=10, engine=engine)),
                (logged, lambda s=subject: recall_with_log(engine, "bench", s, k=10, reader="b")),
            ]
            for samples, call in calls if i % 2 else reversed(calls):
                started = time.perf_counter()
                found = call()
                samples.append(time.perf_counter() - started)
                assert len(found) == 10
        load1, load5, _ = os.getloadavg()
        print(f"load average {load1:.2f} (1 min), {load5:.2f} (5 min); cores {os.cpu_count()}")
        print(f"recall without read log: {summary_ms(plain)}")
        print(f"recall with read log:    {summary_ms(logged)}")
        p99_plain = percentile([s * 1000 for s in plain], 99)
        p99_logged = percentile([s * 1000 for s in logged], 99)
        print(f"p99 cost of the read log: {100 * (p99_logged / p99_plain - 1):+.1f}%")


if __name__ == "__main__":
    main()
