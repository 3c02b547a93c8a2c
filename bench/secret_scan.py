"""CPU cost of one secret scan, per call, on the inputs the gate scans: ids, messages, values.

    .venv/bin/python bench/secret_scan.py [--rounds 7]

Per proposal the gate scans its ids (inside pydantic validation), its message and its value
(issue 14); ingest masks every message once (``mask_secrets``, issue 21: vendor formats and
checksums, then shapes, cue windows, encodings and catalogues, then the session window).
Figures are CPU time (``time.process_time``), the best of ``--rounds`` passes, so load from
other processes on a shared machine moves them little. Run it on two commits to
compare them; results are not checked here (tests and ``bench/secret_corpus.py`` do that).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.gate_throughput import SENTENCES
from memwarden_shared.contract.models import _holds_secret
from memwarden_shared.detect.secret_mask import mask_secrets
from memwarden_shared.detect.secrets import find_secrets, secret_kinds

try:  # issue 21: the shape scan; absent on a commit before it, so the bench runs on both
    from memwarden_shared.detect.secret_shape_scan import scan_shapes, value_secret_kinds
except ImportError:
    scan_shapes = value_secret_kinds = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[1]

# The bench's turns: tenant, subject, session and message ids, and the values extracted.
GATE_IDS = ["bench-many", "s"] + [f"{p}{i}" for i in range(500) for p in ("s", "m")]
VALUES = ["pnpm", "dark", "vim", "I review pull requests only in the afternoon",
          "我每周二上午十点开周会", "en English 英语"]  # fmt: skip
SETS = [
    ROOT / "tests/adversarial/adversarial.jsonl",
    ROOT / "tests/breadth/breadth.jsonl",
    ROOT / "tests/breadth/heldout16/h16.jsonl",
    ROOT.parent / "shared/eval/devset.jsonl",  # beside the repository, when present
]


def _set_texts() -> tuple[list[str], list[str]]:
    """Message texts and ids of the labelled sets (those present)."""
    texts: dict[str, None] = {}
    ids: dict[str, None] = {}
    for path in SETS:
        if not path.exists():
            continue
        for line in path.read_text("utf-8").splitlines():
            for step in json.loads(line)["steps"] if line.strip() else []:
                turn = step.get("turn") or {}
                if "text" in turn:
                    texts[turn["text"]] = None
                for key in ("tenant_id", "subject_id", "session_id", "message_id"):
                    if key in turn:
                        ids[turn[key]] = None
    return list(texts), list(ids)


def per_call(fn: Callable[[str], object], inputs: list[str], rounds: int) -> float:
    """Best CPU microseconds per call over ``rounds`` passes (short lists are repeated)."""
    repeat = max(1, 1000 // len(inputs))
    for text in inputs[:50]:
        fn(text)  # loads the rule catalogue and fills the compiled-pattern caches
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(repeat):
            for text in inputs:
                fn(text)
        best = min(best, (time.process_time() - t0) / (repeat * len(inputs)))
    return best * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    set_texts, set_ids = _set_texts()
    uncached = _holds_secret.__wrapped__  # the id check without its cache: each id is new

    def check_id(value: str) -> bool:
        return bool(uncached(value, entropy_counts=False))

    rows = [
        ("find_secrets, gate ids", find_secrets, GATE_IDS),
        ("id check (value + parts), gate ids", check_id, GATE_IDS),
        ("find_secrets, gate messages", find_secrets, SENTENCES),
        ("secret_kinds, gate values", secret_kinds, VALUES),
        ("id check, labelled-set ids", check_id, set_ids),
        ("find_secrets, labelled-set messages", find_secrets, set_texts),
        ("mask_secrets (ingest), gate messages", mask_secrets, SENTENCES),
        ("mask_secrets (ingest), labelled-set messages", mask_secrets, set_texts),
    ]
    if scan_shapes is not None:
        rows += [
            ("scan_shapes, gate messages", scan_shapes, SENTENCES),
            ("scan_shapes, labelled-set messages", scan_shapes, set_texts),
            ("value_secret_kinds, gate values", value_secret_kinds, VALUES),
        ]
    costs = {}
    for label, fn, inputs in rows:
        if inputs:
            costs[label] = per_call(fn, inputs, args.rounds)
            print(f"{label:<40} {len(inputs):>6} inputs  {costs[label]:8.1f} us/call")
    # Per proposal: the subject and message ids are new each time (tenant and session repeat
    # and are cached), then one message and one value.
    ids = 2 * costs["id check (value + parts), gate ids"]
    per_proposal = ids + costs["find_secrets, gate messages"] + costs["secret_kinds, gate values"]
    print(f"{'per gate proposal (2 id checks, message, value)':<54} {per_proposal:8.1f} us")


if __name__ == "__main__":
    main()
