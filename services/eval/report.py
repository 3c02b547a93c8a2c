"""Printing and saving evaluation results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from services.eval.judge import CaseResult


def print_report(console: Console, results: list[CaseResult], m: dict[str, Any]) -> None:
    table = Table(title="memwarden eval — per category")
    for col in ("category", "passed", "cases", "rate"):
        table.add_column(col, justify="left" if col == "category" else "right")
    for category, row in m["per_category"].items():
        table.add_row(category, str(row["passed"]), str(row["cases"]), f"{row['rate']:.2f}")
    console.print(table)
    headline = Table(title="metrics")
    headline.add_column("metric")
    headline.add_column("value", justify="right")
    headline.add_row("cases passed", f"{m['passed']}/{m['cases']}")
    headline.add_row(
        "false_commit_rate",
        f"{m['false_commit_rate']:.3f} ({m['false_commits']}/{m['auto_commits_on_labelled']})",
    )
    headline.add_row("commit_recall", f"{m['commit_recall']:.3f} ({m['commit_expectations']})")
    headline.add_row(
        "decision_accuracy", f"{m['decision_accuracy']:.3f} ({m['decision_expectations']})"
    )
    console.print(headline)
    for r in results:
        if r.passed:
            continue
        failed = [
            f"{json.dumps(v.expectation, ensure_ascii=False)} → {v.detail}"
            for v in r.verdicts
            if not v.passed
        ]
        console.print(
            f"[red]FAIL[/red] {r.case_id} ({r.category})" + (f": {r.error}" if r.error else "")
        )
        for line in failed:
            console.print(f"    {line}", markup=False)


def write_report(path: Path, results: list[CaseResult], m: dict[str, Any]) -> None:
    body = {
        "metrics": m,
        "cases": [
            {
                "id": r.case_id,
                "category": r.category,
                "lang": r.lang,
                "passed": r.passed,
                "error": r.error,
                "failures": [
                    {"expectation": v.expectation, "detail": v.detail}
                    for v in r.verdicts
                    if not v.passed
                ],
            }
            for r in results
        ],
    }
    path.write_text(json.dumps(body, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
