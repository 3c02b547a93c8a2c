"""CPU cost of the gate's sentence checks (``services.gate.checks.assess``) per proposal, on
the proposals the rules extractor makes from every turn of the eval sets. No database.

    .venv/bin/python bench/gate_checks.py [--rounds 10] [--profile]

Each round is one gate batch (each message its own memo scope, as in ``decide_wave``). The
figure "without secret scanning" looks secret scanning up from a table filled beforehand,
to isolate the sentence checks from it. CPU time (``time.process_time``), best round.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic import ValidationError

from memwarden_extractor.io import with_id
from memwarden_extractor.rules import extract
from memwarden_gate import checks
from memwarden_shared.contract.canonical import claim_text
from memwarden_shared.contract.models import MemoryProposal, Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.text.batch_memo import batch_scope, message_scope

gate_checks: Any = checks  # the bench swaps two of its functions for cached answers

ROOT = Path(__file__).resolve().parent.parent
SETS = [
    ROOT / "tests/adversarial/adversarial.jsonl",
    ROOT / "tests/breadth/breadth.jsonl",
    ROOT / "tests/breadth/heldout16/h16.jsonl",
    *sorted((ROOT.parent / "shared/eval").glob("*.jsonl")),  # the shared dev sets, if here
]


def proposals() -> list[tuple[MemoryProposal, checks.StoredMessage]]:
    registry = default_registry()
    out = []
    for path in filter(Path.exists, SETS):
        for line in path.read_text("utf-8").splitlines():
            case = json.loads(line)
            for step in case.get("steps", []):
                if "turn" not in step:
                    continue
                raw = {**step["turn"], "tenant_id": case["tenant_id"]}
                try:
                    turn = Turn.model_validate({**raw, "subject_id": case["subject_id"]})
                except ValidationError:
                    continue  # a hostile turn ingest refuses: it never reaches the gate
                msg = checks.StoredMessage(
                    turn.tenant_id, turn.message_id, 1, turn.subject_id, turn.subject_id,
                    turn.role.value, turn.source.value, turn.text, "active", turn.created_at,
                    turn.session_id,
                )  # fmt: skip
                for body in extract(turn, registry):
                    out.append((MemoryProposal.model_validate(with_id(body)), msg))
    return out


def one_batch(pairs: list[tuple[MemoryProposal, checks.StoredMessage]]) -> None:
    registry = default_registry()
    with batch_scope():
        for p, msg in pairs:
            with message_scope((msg.tenant_id, msg.message_id, msg.revision)):
                checks.assess(p, msg, registry, review_all=False, suppressed=False)


def best_round(pairs: list[Any], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        one_batch(pairs)
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    pairs = proposals()
    one_batch(pairs)  # warm the pattern and language caches
    with_secrets = best_round(pairs, args.rounds)
    scans = {m.text: gate_checks.find_secrets(m.text) for _, m in pairs}
    kinds = {
        claim_text(p.value): gate_checks.value_secret_kinds(claim_text(p.value)) for p, _ in pairs
    }
    real = gate_checks.find_secrets, gate_checks.value_secret_kinds
    gate_checks.find_secrets, gate_checks.value_secret_kinds = scans.__getitem__, kinds.__getitem__
    try:
        without = best_round(pairs, args.rounds)
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(one_batch, pairs)
            pstats.Stats(profile).sort_stats("tottime").print_stats(30)
    finally:
        gate_checks.find_secrets, gate_checks.value_secret_kinds = real
    n = len(pairs)
    print(f"{n} proposals, best of {args.rounds} rounds, CPU per proposal:")
    print(f"  assess, with secret scanning:    {with_secrets / n * 1e6:7.0f} us")
    print(f"  assess, without secret scanning: {without / n * 1e6:7.0f} us")


if __name__ == "__main__":
    main()
