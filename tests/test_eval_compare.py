"""``memwarden eval --compare-extractor-version A B``: the same cases under two versions of the
built-in extractor, each in its own namespace, compared per category and per language."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from sqlalchemy import Engine, select

from memwarden.eval.judge import CaseResult, Verdict, metrics
from memwarden.eval.report import print_comparison
from memwarden.eval.runner import run_cases
from memwarden_shared.store.schema import proposals

REPO = Path(__file__).resolve().parent.parent
PICK = (
    "own-exp-en-001",
    "own-exp-zh-001",
    "own-dur-en-001",
    "own-dur-zh-001",
    "own-neg-en-001",
    "own-neg-zh-001",
)


def _cases() -> list[dict[str, Any]]:
    path = REPO / "tests" / "cases" / "own_cases.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [r for r in rows if r["id"] in PICK]


def test_metrics__per_language_beside_the_overall_figures() -> None:
    def result(case_id: str, lang: str, passed: bool) -> CaseResult:
        r = CaseResult(case_id, "negation", lang)
        r.verdicts.append(Verdict({"message_id": "m1", "outcome": "commit"}, passed))
        return r

    m = metrics([result("a", "en", True), result("b", "en", False), result("c", "zh", True)])
    assert (m["cases"], m["passed"], m["commit_recall"]) == (3, 2, 2 / 3)
    assert {"false_commit_rate", "decision_accuracy", "per_category"} <= set(m)  # additive
    assert (m["per_lang"]["en"]["rate"], m["per_lang"]["en"]["commit_recall"]) == (0.5, 0.5)
    assert (m["per_lang"]["zh"]["passed"], m["per_lang"]["zh"]["cases"]) == (1, 1)
    assert m["per_category"] == {"negation": {"passed": 2, "cases": 3, "rate": 2 / 3}}


def test_run_cases__each_version_proposes_under_its_own_id(sqlite_engine: Engine) -> None:
    cases = _cases()
    runs = []
    for version in ("rules-1.0", "rules-2.0-rc1"):
        results = run_cases(cases, engine=sqlite_engine, extractor_version=version)
        runs.append((version, results, metrics(results)))
    with sqlite_engine.connect() as conn:
        by_version: dict[str, set[str]] = {}
        for row in conn.execute(select(proposals.c.extractor_version, proposals.c.tenant_id)):
            by_version.setdefault(row.extractor_version, set()).add(row.tenant_id.split(".")[0])
    # two versions, two namespaces (run prefixes), nothing shared
    assert set(by_version) == {"rules-1.0", "rules-2.0-rc1"}
    assert len(by_version["rules-1.0"] | by_version["rules-2.0-rc1"]) == 2
    assert all(m["passed"] == m["cases"] == len(PICK) for _, _, m in runs)
    console = Console(record=True, width=140)
    print_comparison(console, runs)
    text = console.export_text()
    for needle in (
        "rules-1.0",
        "rules-2.0-rc1",
        "explicit_remember",
        "zh pass rate",
        "en commit_recall",
    ):
        assert needle in text
    assert "changed" not in text  # the same rules under two names decide alike


@pytest.mark.slow
def test_eval_cli__compare_writes_both_runs(tmp_path: Path) -> None:
    cases, report = tmp_path / "cases.jsonl", tmp_path / "report.json"
    cases.write_text(
        "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in _cases()), encoding="utf-8"
    )
    env = {**os.environ, "MEMWARDEN_DATA_DIR": str(tmp_path), "MEMWARDEN_LOG_LEVEL": "WARNING"}
    env.pop("MEMWARDEN_DATABASE_URL", None)
    env.pop("MEMWARDEN_BROKER_URL", None)
    compare = ["--compare-extractor-version", "rules-1.0", "rules-1.1", "--report", str(report)]
    done = subprocess.run(
        [sys.executable, "-m", "memwarden.cli", "eval", str(cases), "--strict", *compare],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    body = json.loads(report.read_text(encoding="utf-8"))
    assert body["extractor_versions"] == ["rules-1.0", "rules-1.1"]
    assert [set(r["metrics"]["per_lang"]) for r in body["runs"]] == [{"en", "zh"}] * 2
    assert "per language" in done.stdout
