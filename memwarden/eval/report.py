"""Printing and saving evaluation results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from memwarden.eval.judge import CaseResult


def print_report(console: Console, results: list[CaseResult], m: dict[str, Any]) -> None:
    table = Table(title="memwarden eval — per category")
    for col in ("category", "passed", "cases", "rate"):
        table.add_column(col, justify="left" if col == "category" else "right")
    for category, row in m["per_category"].items():
        table.add_row(category, str(row["passed"]), str(row["cases"]), f"{row['rate']:.2f}")
    console.print(table)
    langs = Table(title="per language")
    for col in ("lang", "passed", "cases", "rate", "false_commit_rate", "commit_recall"):
        langs.add_column(col, justify="left" if col == "lang" else "right")
    for lang, row in m.get("per_lang", {}).items():
        langs.add_row(
            lang,
            str(row["passed"]),
            str(row["cases"]),
            f"{row['rate']:.2f}",
            f"{row['false_commit_rate']:.3f}",
            f"{row['commit_recall']:.3f}",
        )
    console.print(langs)
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
    print_producers(console, m.get("per_producer", {}))
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


PRODUCER_RATES = ("acceptance", "quarantine", "conflict", "reject", "needs_confirmation")


def print_producers(console: Console, per_producer: dict[str, dict[str, Any]]) -> None:
    """Seed 002's per-producer rates: one row per extractor version."""
    if not per_producer:
        return
    table = Table(title="per producer (extractor version)")
    table.add_column("extractor_version")
    table.add_column("decisions", justify="right")
    for name in PRODUCER_RATES:
        table.add_column(name, justify="right")
    for version, row in per_producer.items():
        table.add_row(
            version, str(row["decisions"]), *(f"{row[name]:.3f}" for name in PRODUCER_RATES)
        )
    console.print(table)


def write_report(path: Path, results: list[CaseResult], m: dict[str, Any]) -> None:
    body = _body(results, m)
    path.write_text(json.dumps(body, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def _body(results: list[CaseResult], m: dict[str, Any]) -> dict[str, Any]:
    return {
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


# One run of the cases per extractor version: (version, results, metrics).
Run = tuple[str, list[CaseResult], dict[str, Any]]

_HEADLINE = ("false_commit_rate", "commit_recall", "decision_accuracy")


def print_comparison(console: Console, runs: list[Run]) -> None:
    """The metrics of each version side by side, overall, per category and per language,
    with the difference of the last to the first, then the cases whose outcome changed."""
    names = [name for name, _, _ in runs]
    metrics = [m for _, _, m in runs]
    console.print(_headline_comparison(names, metrics))
    console.print(_category_comparison(names, metrics))
    console.print(_lang_comparison(names, metrics))
    print_producers(console, {v: row for m in metrics for v, row in m["per_producer"].items()})
    for line in _changed_cases(names, [results for _, results, _ in runs]):
        console.print(line, markup=False)


def _side_by_side(title: str, first: str, names: list[str]) -> Table:
    """A column per version, and a Δ column (last minus first) when there are several."""
    t = Table(title=title)
    t.add_column(first)
    for name in names:
        t.add_column(name, justify="right")
    if len(names) > 1:
        t.add_column("Δ", justify="right")
    return t


def _cells(values: list[float], fmt: str) -> list[str]:
    out = [format(v, fmt) for v in values]
    return [*out, format(values[-1] - values[0], "+" + fmt)] if len(values) > 1 else out


def _headline_comparison(names: list[str], metrics: list[dict[str, Any]]) -> Table:
    table = _side_by_side("eval by extractor version", "metric", names)
    table.add_row("cases passed", *_cells([float(m["passed"]) for m in metrics], ".0f"))
    for metric in _HEADLINE:
        table.add_row(metric, *_cells([m[metric] for m in metrics], ".3f"))
    return table


def _category_comparison(names: list[str], metrics: list[dict[str, Any]]) -> Table:
    table = _side_by_side("pass rate per category", "category", names)
    for category in sorted({c for m in metrics for c in m["per_category"]}):
        rates = [m["per_category"].get(category, {}).get("rate", 0.0) for m in metrics]
        table.add_row(category, *_cells(rates, ".2f"))
    return table


def _lang_comparison(names: list[str], metrics: list[dict[str, Any]]) -> Table:
    table = _side_by_side("per language", "lang / metric", names)
    for lang in sorted({lang for m in metrics for lang in m["per_lang"]}):
        for metric in ("rate", *_HEADLINE):
            values = [m["per_lang"].get(lang, {}).get(metric, 0.0) for m in metrics]
            label = f"{lang} {'pass rate' if metric == 'rate' else metric}"
            table.add_row(label, *_cells(values, ".3f"))
    return table


def _changed_cases(names: list[str], results: list[list[CaseResult]]) -> list[str]:
    """One line per case (of the first run) that passed under one version and not another."""
    outcomes = [{r.case_id: r.passed for r in run} for run in results]
    lines = []
    for case_id in outcomes[0]:
        seen = [o.get(case_id) for o in outcomes]
        if len(set(seen)) > 1:
            marks = ", ".join(
                f"{name}: {'pass' if ok else 'FAIL'}" for name, ok in zip(names, seen, strict=True)
            )
            lines.append(f"changed {case_id} ({marks})")
    return lines


def write_comparison(path: Path, runs: list[Run]) -> None:
    body = {
        "extractor_versions": [name for name, _, _ in runs],
        "runs": [{"extractor_version": name, **_body(results, m)} for name, results, m in runs],
    }
    path.write_text(json.dumps(body, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def print_misses(console: Console, found: dict[str, Any]) -> None:
    """``--misses``: failed commit expectations per verb class and language, by group."""
    for group, title in (
        ("unproposed", "missed: nothing proposed"),
        ("proposed_not_committed", "missed: proposed, not committed"),
    ):
        table = Table(title=f"{title} ({found[f'{group}_total']})")
        for col in ("verb class", "lang", "count", "messages"):
            table.add_column(col, justify="right" if col == "count" else "left")
        for name, by_lang in found[group].items():
            for lang, row in by_lang.items():
                shown = ", ".join(row["messages"][:3]) + (" …" if row["count"] > 3 else "")
                table.add_row(name, lang, str(row["count"]), shown)
        console.print(table)
