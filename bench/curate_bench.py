"""Curate a 10,000-memory tenant end to end on PostgreSQL (SPEC §15) and print the time of
each stage and how long recall stayed blocked during the switch.

The memories are made the real way: turns ingested and run through the embedded pipeline
(extractor, gate, vector sink), so every memory has a proposal, a receipt and evidence.
Each subject says distinct notes, word-order duplicates, near-duplicates, notes that
disagree on a number, a package-manager preference and a decision.

    .venv/bin/python bench/curate_bench.py [--subjects 100] [--per-subject 100]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import scratch_database
from memwarden_curate.publish import publish, rollback
from memwarden_curate.runs import get_run, items_of
from memwarden_curate.stages import (
    RulesRewriter,
    attest_plan,
    check_plan,
    make_plan,
    review_plan,
    take_snapshot,
)
from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.state.auth import Principal, Scope
from memwarden_shared.store.db import unit_of_work
from memwarden_usecases.pipeline import drain

ADJ = [
    "amber",
    "azure",
    "brisk",
    "cobalt",
    "coral",
    "dusky",
    "ember",
    "frosty",
    "golden",
    "hazel",
    "ivory",
    "jade",
    "lunar",
    "misty",
    "noble",
    "ochre",
    "pearl",
    "rusty",
    "silver",
    "topaz",
]
NOUN = [
    "falcon",
    "badger",
    "heron",
    "otter",
    "lynx",
    "marten",
    "osprey",
    "raven",
    "beaver",
    "bison",
    "crane",
    "egret",
    "ferret",
    "gecko",
    "ibis",
    "koala",
    "lemur",
    "moose",
    "newt",
    "panda",
]
DAYS = ["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays"]


def subject_lines(n: int, per: int) -> list[str]:
    """``per`` sentences for one subject: the mix described in the module docstring."""
    combos = list(itertools.product(ADJ, NOUN))
    offset = (n * 37) % len(combos)
    combos = combos[offset:] + combos[:offset]
    pick = iter(combos)
    lines = [
        "I prefer pnpm for all my JavaScript projects.",
        "We decided to use PostgreSQL for the billing service.",
    ]
    budget = per - len(lines)
    dup, near, conflict = budget // 10, budget // 20, budget // 25
    for i in range(dup):
        a, b = next(pick)
        day = DAYS[i % 5]
        lines += [
            f"Remember that the {a} {b} service deploys only on {day}.",
            f"Remember that the {a} {b} service deploys on {day} only.",
        ]
    for i in range(near):
        a, b = next(pick)
        day = DAYS[i % 5]
        lines += [
            f"Remember that the {a} {b} service deploys on {day}.",
            f"Remember that the {a} {b} service always deploys on {day}.",
        ]
    for i in range(conflict):
        a, b = next(pick)
        lines += [
            f"Remember that the {a} {b} backup runs at {1 + i % 5}pm.",
            f"Remember that the {a} {b} backup runs at {6 + i % 5}pm.",
        ]
    while len(lines) < per:
        a, b = next(pick)
        lines.append(f"Remember that the {a} {b} service deploys on {DAYS[len(lines) % 5]}.")
    return lines


def seed(engine: Any, tenant: str, subjects: int, per: int) -> None:
    batch: list[Turn] = []
    for n in range(subjects):
        for i, text in enumerate(subject_lines(n, per)):
            batch.append(
                Turn.model_validate(
                    {
                        "tenant_id": tenant,
                        "subject_id": f"s{n:04d}",
                        "session_id": f"s{n:04d}",
                        "message_id": f"s{n:04d}-m{i:03d}",
                        "role": "user",
                        "source": "user_message",
                        "text": text,
                        "created_at": f"2026-05-{1 + i % 28:02d}T09:{i % 60:02d}:00Z",
                    }
                )
            )
        if len(batch) >= 2000 or n == subjects - 1:
            ingest_turns(batch, engine=engine)
            drain(engine)
            batch = []


def timed(label: str, figures: dict[str, float], call: Any) -> Any:
    start = time.perf_counter()
    out = call()
    figures[label] = time.perf_counter() - start
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=100)
    parser.add_argument("--per-subject", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=500)
    args = parser.parse_args()
    tenant = "bench"
    planner = Principal("planner", tenant, frozenset({Scope.ADMIN}))
    reviewer = Principal("reviewer", tenant, frozenset({Scope.REVIEW}))
    attester = Principal("attester", tenant, frozenset({Scope.ADMIN}))
    with scratch_database() as engine:
        start = time.perf_counter()
        seed(engine, tenant, args.subjects, args.per_subject)
        print(f"seeded through the pipeline in {time.perf_counter() - start:.1f} s")
        f: dict[str, float] = {}
        snap = timed(
            "snapshot",
            f,
            lambda: take_snapshot(planner, tenant, None, batch_size=args.batch_size, engine=engine),
        )
        run = snap["run_id"]
        print(f"memories in the snapshot: {snap['counts']['sources']:,}")
        rules = RulesRewriter(default_registry())
        planned = timed("plan", f, lambda: make_plan(planner, run, rules, engine=engine))
        checked = timed("check", f, lambda: check_plan(planner, run, engine=engine))
        assert not checked["problems"], checked["problems"][:5]
        timed("review", f, lambda: review_plan(reviewer, run, engine=engine))
        with unit_of_work(engine) as uow:
            items = items_of(get_run(uow.conn, run, tenant))
        sample = sorted({i["kind"]: i["source"] for i in items}.values())
        statement = {"plan_hash": planned["plan_hash"], "saw_catalogue": True, "sampled": sample}
        timed("attest", f, lambda: attest_plan(attester, run, statement, engine=engine))
        published = timed("publish", f, lambda: publish(planner, run, engine=engine))
        block = published["outcome"]["read_block_seconds"]
        start = time.perf_counter()
        drain(engine)  # the vector sink catches up on the switch (outside the block)
        f["index after publish"] = time.perf_counter() - start
        rolled = timed("rollback", f, lambda: rollback(planner, run, engine=engine))
        recalled = len(recall(tenant, "s0000", engine=engine, k=1000))
        counts = planned["counts"]
        print(
            f"plan: {counts['keep']:,} keep, {counts['duplicate']:,} duplicate, "
            f"{counts['merge']:,} merge into {counts['targets']:,} targets, "
            f"{counts['review']:,} review ({counts['disagreements']:,} dated disagreements), "
            f"{len(planned['ledger'])} batches"
        )
        print(
            f"publish: {published['outcome']['committed']:,} versions committed, "
            f"{published['outcome']['retired']:,} retired; read block {block * 1000:.0f} ms"
        )
        print(
            f"rollback: {rolled['outcome']['restored']:,} restored, read block "
            f"{rolled['outcome']['read_block_seconds'] * 1000:.0f} ms; s0000 recalls {recalled}"
        )
        for label, seconds in f.items():
            print(f"  {label:<22} {seconds:8.2f} s")


if __name__ == "__main__":
    main()
