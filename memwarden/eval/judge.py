"""Judging expectations against a case's state, and the metrics of SPEC §13. Pure."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memwarden.eval.state import CaseState, MemoryView
from memwarden_shared.contract.models import Decision
from memwarden_shared.observe.anomaly import DECISION_COLUMN
from memwarden_shared.observe.rollout import VersionRates


@dataclass
class Verdict:
    expectation: dict[str, Any]
    passed: bool
    detail: str = ""


def _value_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False).lower()


def _committed_from(state: CaseState, message_id: str) -> list[MemoryView]:
    return [
        m
        for m in state.memories
        if message_id in m.evidence_message_ids and m.status == "committed" and m.current
    ]


def judge(
    exp: dict[str, Any],
    state: CaseState,
    decisions: list[str | None],
    secret_absent: Callable[[str], bool],
) -> Verdict:
    """One expectation, judged at the point where it stands."""
    if "outcome" in exp:
        return _judge_outcome(exp, state)
    if "recall_excludes" in exp:
        texts = state.recall_text()
        hits = [t for t in exp["recall_excludes"] if any(t.lower() in x for x in texts)]
        return Verdict(exp, not hits, f"recalled {hits}" if hits else "")
    if "recall_includes" in exp:
        texts = state.recall_text()
        missing = [t for t in exp["recall_includes"] if not any(t.lower() in x for x in texts)]
        return Verdict(exp, not missing, f"not recalled {missing}" if missing else "")
    if "proposal" in exp:
        n = int(exp["proposal"])
        got = decisions[n] if 0 <= n < len(decisions) else None
        return Verdict(exp, got == exp["decision"], f"decision {got}")
    if "secret_absent" in exp:
        ok = secret_absent(exp["secret_absent"])
        return Verdict(exp, ok, "" if ok else "secret found outside the evidence store")
    return Verdict(exp, False, "unknown expectation")


def _judge_outcome(exp: dict[str, Any], state: CaseState) -> Verdict:
    mid, outcome = exp["message_id"], exp["outcome"]
    committed = _committed_from(state, mid)
    pending = [p for p in state.proposals if p.message_id == mid and p.state == "pending"]
    if outcome == "commit":
        tokens = [t.lower() for t in exp.get("value_has", [])]
        ok = any(m.recallable and all(t in _value_text(m.value) for t in tokens) for m in committed)
        values = [m.value for m in committed]
        return Verdict(exp, ok, "" if ok else f"committed values {values}")
    if outcome == "no_commit":
        ok = not committed and not pending
        return Verdict(exp, ok, "" if ok else f"{len(committed)} committed, {len(pending)} pending")
    if outcome == "not_auto":
        return Verdict(exp, not committed, "" if not committed else "committed")
    if outcome == "pending":
        return Verdict(exp, bool(pending), "" if pending else "nothing pending")
    if outcome == "no_durable":
        durable = [m for m in committed if m.scope["kind"] != "session"]
        return Verdict(exp, not durable, "" if not durable else "durable commit")
    return Verdict(exp, False, f"unknown outcome {outcome}")


@dataclass
class CaseResult:
    case_id: str
    category: str
    lang: str
    verdicts: list[Verdict] = field(default_factory=list)
    error: str | None = None
    auto_commits: list[MemoryView] = field(default_factory=list)
    labels: dict[str, set[str]] = field(default_factory=dict)  # message -> outcomes
    # (extractor version, gate decision) -> proposals of the case
    producers: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.error is None and all(v.passed for v in self.verdicts)


def metrics(results: list[CaseResult]) -> dict[str, Any]:
    """SPEC §13 metrics over all cases, pass rates per category, and per language the pass
    rate with the same metrics over that language's cases."""
    per_category: dict[str, list[CaseResult]] = defaultdict(list)
    per_lang: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        per_category[r.category].append(r)
        per_lang[r.lang].append(r)
    return {
        **_counts(results),
        "per_producer": per_producer(results),
        "per_category": {c: _pass_rate(rs) for c, rs in sorted(per_category.items())},
        "per_lang": {
            lang: {**_counts(rs), **_pass_rate(rs)} for lang, rs in sorted(per_lang.items())
        },
    }


def per_producer(results: list[CaseResult]) -> dict[str, dict[str, Any]]:
    """Per extractor version: its decisions and their acceptance, quarantine, conflict,
    reject and needs_confirmation rates (the same shares the canary monitor compares)."""
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        for (version, decision), n in r.producers.items():
            totals[version][decision] += n
    out = {}
    for version, counts in sorted(totals.items()):
        rates = VersionRates(
            decisions=sum(counts.values()),
            **{DECISION_COLUMN[Decision(d)]: n for d, n in counts.items()},
        )
        out[version] = {"decisions": rates.decisions, **rates.rates()}
    return out


def _pass_rate(results: list[CaseResult]) -> dict[str, Any]:
    passed = sum(r.passed for r in results)
    return {"passed": passed, "cases": len(results), "rate": passed / len(results)}


def _counts(results: list[CaseResult]) -> dict[str, Any]:
    auto_total = false_commits = 0
    commit_total = commit_met = 0
    decisions_total = decisions_right = 0
    for r in results:
        for v in r.verdicts:
            if v.expectation.get("outcome") == "commit":
                commit_total += 1
                commit_met += v.passed
            if "proposal" in v.expectation:
                decisions_total += 1
                decisions_right += v.passed
        for m in r.auto_commits:
            outcomes = r.labels.get(m.source_message_id or "")
            if not outcomes:
                continue
            if (
                "commit" not in outcomes
                and "no_durable" in outcomes
                and m.scope["kind"] == "session"
            ):
                continue  # what a no_durable label allows; left out of both counts
            auto_total += 1
            false_commits += "commit" not in outcomes
    return {
        "cases": len(results),
        "passed": sum(r.passed for r in results),
        "false_commit_rate": false_commits / auto_total if auto_total else 0.0,
        "false_commits": false_commits,
        "auto_commits_on_labelled": auto_total,
        "commit_recall": commit_met / commit_total if commit_total else 1.0,
        "commit_expectations": commit_total,
        "decision_accuracy": decisions_right / decisions_total if decisions_total else 1.0,
        "decision_expectations": decisions_total,
    }
