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


SecretAbsent = Callable[[str], bool]


def judge(
    exp: dict[str, Any],
    state: CaseState,
    decisions: list[str | None],
    secret_absent: SecretAbsent,
) -> Verdict:
    """One expectation, judged at the point where it stands: by the first of its keys that
    names a kind of expectation (``outcome``, ``recall_excludes``, ``recall_includes``,
    ``proposal``, ``secret_absent``)."""
    for key, rule in _RULES:
        if key in exp:
            return rule(exp, state, decisions, secret_absent)
    return Verdict(exp, False, "unknown expectation")


def _by_outcome(
    exp: dict[str, Any], state: CaseState, _d: list[str | None], _s: SecretAbsent
) -> Verdict:
    return _judge_outcome(exp, state)


def _recall_excludes(
    exp: dict[str, Any], state: CaseState, _d: list[str | None], _s: SecretAbsent
) -> Verdict:
    texts = state.recall_text()
    hits = [t for t in exp["recall_excludes"] if any(t.lower() in x for x in texts)]
    return Verdict(exp, not hits, f"recalled {hits}" if hits else "")


def _recall_includes(
    exp: dict[str, Any], state: CaseState, _d: list[str | None], _s: SecretAbsent
) -> Verdict:
    texts = state.recall_text()
    missing = [t for t in exp["recall_includes"] if not any(t.lower() in x for x in texts)]
    return Verdict(exp, not missing, f"not recalled {missing}" if missing else "")


def _proposal(
    exp: dict[str, Any], _state: CaseState, decisions: list[str | None], _s: SecretAbsent
) -> Verdict:
    n = int(exp["proposal"])
    got = decisions[n] if 0 <= n < len(decisions) else None
    return Verdict(exp, got == exp["decision"], f"decision {got}")


def _secret_absent(
    exp: dict[str, Any], _state: CaseState, _d: list[str | None], secret_absent: SecretAbsent
) -> Verdict:
    ok = secret_absent(exp["secret_absent"])
    return Verdict(
        exp, ok, "" if ok else "secret found in a table (message texts included) or a log line"
    )


_RULES: tuple[
    tuple[str, Callable[[dict[str, Any], CaseState, list[str | None], SecretAbsent], Verdict]],
    ...,
] = (
    ("outcome", _by_outcome),
    ("recall_excludes", _recall_excludes),
    ("recall_includes", _recall_includes),
    ("proposal", _proposal),
    ("secret_absent", _secret_absent),
)


def _judge_outcome(exp: dict[str, Any], state: CaseState) -> Verdict:
    """A labelled message's outcome: what its committed memories and pending candidates say."""
    mid = exp["message_id"]
    committed = _committed_from(state, mid)
    pending = [p for p in state.proposals if p.message_id == mid and p.state == "pending"]
    rule = _OUTCOMES.get(exp["outcome"])
    if rule is None:
        return Verdict(exp, False, f"unknown outcome {exp['outcome']}")
    ok, failure = rule(exp, committed, len(pending))
    return Verdict(exp, ok, "" if ok else failure)


Committed = list[MemoryView]


def _commit(exp: dict[str, Any], committed: Committed, _pending: int) -> tuple[bool, str]:
    """A recallable committed memory whose value holds every ``value_has`` token."""
    tokens = [t.lower() for t in exp.get("value_has", [])]
    ok = any(m.recallable and all(t in _value_text(m.value) for t in tokens) for m in committed)
    return ok, f"committed values {[m.value for m in committed]}"


def _no_commit(_exp: dict[str, Any], committed: Committed, pending: int) -> tuple[bool, str]:
    return not committed and not pending, f"{len(committed)} committed, {pending} pending"


def _not_auto(_exp: dict[str, Any], committed: Committed, _pending: int) -> tuple[bool, str]:
    return not committed, "committed"


def _pending(_exp: dict[str, Any], _committed: Committed, pending: int) -> tuple[bool, str]:
    return bool(pending), "nothing pending"


def _no_durable(_exp: dict[str, Any], committed: Committed, _pending: int) -> tuple[bool, str]:
    """Only session-scoped memories may come of it."""
    return not [m for m in committed if m.scope["kind"] != "session"], "durable commit"


_OUTCOMES: dict[str, Callable[[dict[str, Any], Committed, int], tuple[bool, str]]] = {
    "commit": _commit,
    "no_commit": _no_commit,
    "not_auto": _not_auto,
    "pending": _pending,
    "no_durable": _no_durable,
}


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
    texts: dict[str, str] = field(default_factory=dict)  # message -> its text, as written
    proposed: dict[str, int] = field(default_factory=dict)  # message -> proposals stored

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
    commit_total, commit_met = _expectations_met(results, lambda e: e.get("outcome") == "commit")
    decisions_total, decisions_right = _expectations_met(results, lambda e: "proposal" in e)
    auto_total, false_commits = _auto_commits(results)
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


def _expectations_met(
    results: list[CaseResult], counted: Callable[[dict[str, Any]], bool]
) -> tuple[int, int]:
    """(expectations of the kind, how many of them passed)."""
    verdicts = [v for r in results for v in r.verdicts if counted(v.expectation)]
    return len(verdicts), sum(v.passed for v in verdicts)


def _auto_commits(results: list[CaseResult]) -> tuple[int, int]:
    """(auto-commits from labelled messages, how many of them no label allows)."""
    total = false = 0
    for r in results:
        for m in r.auto_commits:
            allowed = _label_allows(r.labels.get(m.source_message_id or ""), m)
            if allowed is None:
                continue
            total += 1
            false += not allowed
    return total, false


def _label_allows(outcomes: set[str] | None, m: MemoryView) -> bool | None:
    """Whether the message's labels allow this auto-commit; None when it does not count
    (an unlabelled message, or a session memory of a ``no_durable`` one: what that label
    allows, left out of both counts)."""
    if not outcomes:
        return None
    if "commit" in outcomes:
        return True
    if "no_durable" in outcomes and m.scope["kind"] == "session":
        return None
    return False
