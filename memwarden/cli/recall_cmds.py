"""``memwarden eval-recall`` (ranking quality on a labelled query set) and ``memwarden
reindex`` (vectors to the configured embedder)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from memwarden.cli.common import CliError, Unavailable, console, open_engine, print_json


def add_recall_commands(add: Any) -> None:
    p = add(
        "eval-recall",
        cmd_eval_recall,
        "recall@1, recall@5 and MRR of the ranking on labelled queries (JSONL)",
    )
    p.add_argument("queries", type=Path, help="JSONL: id, lang, memories, query, relevant")
    p.add_argument("--report", type=Path, help="write the figures and the misses here (JSON)")
    p = add("reindex", cmd_reindex, "re-embed the vector index with the configured embedder")
    p.add_argument("--tenant", help="only this tenant (default: all)")
    p.add_argument("--batch", type=int, default=500, help="memories per transaction")


def _embedder() -> Any:
    from memwarden_usecases.recall import EmbedderNotConfigured, configured_embedder

    try:
        return configured_embedder()
    except EmbedderNotConfigured as exc:
        raise CliError(str(exc)) from None


def cmd_eval_recall(args: argparse.Namespace) -> int:
    from memwarden_usecases import recall

    try:
        cases = recall.query_set(args.queries)
    except recall.BadQuerySet as exc:
        raise CliError(str(exc)) from None
    try:
        report = recall.quality(cases, _embedder())
    except recall.EmbeddingError as exc:
        raise Unavailable(f"the embedder failed: {exc}") from None
    _print(report)
    if args.report:
        args.report.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    return 0


def _print(report: dict[str, Any]) -> None:
    from rich.table import Table

    table = Table(title=f"recall quality ({report['embedder']}, {report['queries']} queries)")
    for column in ("", "queries", "recall@1", "recall@5", "MRR"):
        table.add_column(column)

    def row(label: str, f: dict[str, Any]) -> None:
        table.add_row(
            label,
            str(f["queries"]),
            f"{f['recall_at_1']:.3f}",
            f"{f['recall_at_5']:.3f}",
            f"{f['mrr']:.3f}",
        )

    row("all", report)
    for name, figures in {**report["by_lang"], **report["by_key"]}.items():
        row(name, figures)
    console.print(table)


def cmd_reindex(args: argparse.Namespace) -> int:
    from memwarden_usecases import recall

    if args.batch < 1:
        raise CliError("--batch must be at least 1")
    _embedder()
    try:
        print_json(recall.reindex(open_engine(), args.tenant, batch=args.batch))
    except recall.EmbeddingError as exc:
        raise Unavailable(f"the embedder failed: {exc} (rerun reindex when it is back)") from None
    return 0
