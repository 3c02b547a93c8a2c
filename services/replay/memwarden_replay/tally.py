"""The running tally of a replay and the report made from it. Pure.

The tally is stored with each checkpoint (``replay_runs.counters``), so a resumed run reports
the whole run, not only its last part. It stays small whatever the input size: counts per
decision, reason and key, a few examples per key, the first few problems.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memwarden_shared.contract.models import Decision, Receipt

EXAMPLES_PER_KEY = 3
PROBLEMS_KEPT = 20


@dataclass(frozen=True)
class BatchFacts:
    """What one batch did, as the tally needs it."""

    turns: int
    bad_lines: list[dict[str, Any]]  # {"path", "byte_offset", "error"}: never line content
    stored: int
    duplicates: int
    refused: list[dict[str, Any]]  # {"message_id", "tenant_id", "error"}
    raws: list[dict[str, Any]]  # the proposals sent to the gate, in order
    receipts: list[Receipt]  # one per proposal
    decided_at: datetime  # the gate's clock for this batch: older receipts are replays
    seconds: float


@dataclass
class Tally:
    turns: int = 0
    bad_lines: int = 0
    stored: int = 0
    duplicates: int = 0
    refused: int = 0
    proposals: int = 0
    replayed: int = 0  # receipts returned from an earlier decision of the same proposal id
    batches: int = 0
    seconds: float = 0.0
    decisions: Counter[str] = field(default_factory=Counter)
    reasons: dict[str, Counter[str]] = field(default_factory=dict)  # decision -> reason -> n
    commits: Counter[str] = field(default_factory=Counter)  # key -> new COMMITs of this run
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    problems: list[dict[str, Any]] = field(default_factory=list)

    def add(self, facts: BatchFacts) -> None:
        self.batches += 1
        self.turns += facts.turns
        self.bad_lines += len(facts.bad_lines)
        self.stored += facts.stored
        self.duplicates += facts.duplicates
        self.refused += len(facts.refused)
        self.seconds += facts.seconds
        room = PROBLEMS_KEPT - len(self.problems)
        self.problems.extend([*facts.bad_lines, *facts.refused][: max(room, 0)])
        for raw, receipt in zip(facts.raws, facts.receipts, strict=True):
            self.proposals += 1
            decision = receipt.decision.value
            self.decisions[decision] += 1
            reasons = self.reasons.setdefault(decision, Counter())
            reasons.update(receipt.reasons)
            if receipt.decided_at != facts.decided_at:
                self.replayed += 1
                continue
            if receipt.decision == Decision.COMMIT:
                key = str(raw.get("normalized_key"))
                self.commits[key] += 1
                examples = self.examples.setdefault(key, [])
                if len(examples) < EXAMPLES_PER_KEY:
                    examples.append(
                        {"message_id": raw["evidence"]["message_id"], "value": raw.get("value")}
                    )

    def merge(self, other: Tally) -> None:
        """Add another part of the same run (a distributed replay's chunk): counts add up,
        examples and problems keep their caps, earlier parts first."""
        for name in ("turns", "bad_lines", "stored", "duplicates", "refused", "proposals"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.replayed += other.replayed
        self.batches += other.batches
        self.seconds += other.seconds
        self.decisions.update(other.decisions)
        for decision, reasons in other.reasons.items():
            self.reasons.setdefault(decision, Counter()).update(reasons)
        self.commits.update(other.commits)
        for key, examples in other.examples.items():
            mine = self.examples.setdefault(key, [])
            mine.extend(examples[: max(EXAMPLES_PER_KEY - len(mine), 0)])
        room = PROBLEMS_KEPT - len(self.problems)
        self.problems.extend(other.problems[: max(room, 0)])

    def to_json(self) -> dict[str, Any]:
        return {
            "turns": self.turns,
            "bad_lines": self.bad_lines,
            "stored": self.stored,
            "duplicates": self.duplicates,
            "refused": self.refused,
            "proposals": self.proposals,
            "replayed": self.replayed,
            "batches": self.batches,
            "seconds": round(self.seconds, 6),
            "decisions": dict(sorted(self.decisions.items())),
            "reasons": {d: dict(sorted(r.items())) for d, r in sorted(self.reasons.items())},
            "commits": dict(sorted(self.commits.items())),
            "examples": self.examples,
            "problems": self.problems,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        counts = {
            name: data.get(name, 0)
            for name in (
                "turns",
                "bad_lines",
                "stored",
                "duplicates",
                "refused",
                "proposals",
                "replayed",
                "batches",
            )
        }
        return cls(
            **counts,
            seconds=float(data.get("seconds", 0.0)),
            decisions=Counter(data.get("decisions", {})),
            reasons={d: Counter(r) for d, r in data.get("reasons", {}).items()},
            commits=Counter(data.get("commits", {})),
            examples=dict(data.get("examples", {})),
            problems=list(data.get("problems", [])),
        )


def report(tally: Tally, run: dict[str, Any]) -> dict[str, Any]:
    """The replay report: ``run`` (id, extractor, version, shadow, times) plus the tally.

    ``commits`` are the new COMMIT decisions of this run: in shadow mode, what *would* have
    been committed. Examples hold values; they belong in a local report file, never in logs.
    """
    body = tally.to_json()

    def rate(n: int) -> float:
        return round(n / tally.seconds, 1) if tally.seconds > 0 else 0.0

    return {
        **run,
        **{k: body[k] for k in ("turns", "bad_lines", "stored", "duplicates", "refused")},
        "proposals": tally.proposals,
        "replayed": tally.replayed,
        "seconds": body["seconds"],
        "turns_per_second": rate(tally.turns),
        "proposals_per_second": rate(tally.proposals),
        "decisions": {
            d: {"count": n, "reasons": body["reasons"].get(d, {})}
            for d, n in body["decisions"].items()
        },
        "commits": {
            key: {"count": n, "examples": tally.examples.get(key, [])}
            for key, n in body["commits"].items()
        },
        "problems": tally.problems,
    }
