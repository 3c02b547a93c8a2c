"""Where the gate's time goes: cProfile of the per-proposal and the batched commit paths on
PostgreSQL, printed as the top frames by own time and by cumulative time.

    .venv/bin/python bench/gate_profile.py [--proposals 1500] [--batch 500] [--top 25]

(`py-spy record -o gate.svg -- .venv/bin/python bench/gate_profile.py --no-cprofile` draws
the same as a flame graph.)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import scratch_database
from bench.gate_throughput import make_proposals
from memwarden_gate.io import decide_batch


def _run(label: str, fn: Callable[[], object], profile: bool, top: int, n: int) -> None:
    prof = cProfile.Profile() if profile else None
    t0 = time.perf_counter()
    if prof:
        prof.enable()
    fn()
    if prof:
        prof.disable()
    elapsed = time.perf_counter() - t0
    print(f"== {label}: {n} proposals in {elapsed:.2f} s ({n / elapsed:.0f}/s, under profiler)")
    if prof:
        for order in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats(order).print_stats(top)
            print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--proposals", type=int, default=1500)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-cprofile", action="store_true")
    args = parser.parse_args()
    with scratch_database() as engine:
        single = make_proposals(engine, "one", args.proposals)
        many = make_proposals(engine, "many", args.proposals * 2)
        decide_batch(single[:20], engine=engine)  # warm caches, pool, prepared statements
        _run(
            "one proposal per transaction",
            lambda: [decide_batch([p], engine=engine) for p in single[20:]],
            not args.no_cprofile,
            args.top,
            len(single) - 20,
        )
        _run(
            f"batches of {args.batch}",
            lambda: [
                decide_batch(many[i : i + args.batch], engine=engine)
                for i in range(0, len(many), args.batch)
            ],
            not args.no_cprofile,
            args.top,
            len(many),
        )


if __name__ == "__main__":
    main()
