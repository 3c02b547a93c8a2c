"""What replay prints and writes when a run ends, and SIGTERM handled as Ctrl-C: shared by
in-process replay (``replay_cmds``) and distributed replay (``replay_distributed``)."""

from __future__ import annotations

import argparse
import json
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.markup import escape
from rich.table import Table

from memwarden.cli.common import console, err_console


class Stopped(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: the open batch rolls back, the checkpoint stands."""


@contextmanager
def term_as_interrupt() -> Iterator[None]:
    def stop(_signum: int, _frame: Any) -> None:
        raise Stopped

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def finish_report(args: argparse.Namespace, body: dict[str, Any]) -> int:
    """Print the report, write it where asked; exit 1 when any line was skipped."""
    print_replay_report(body)
    if args.report:
        args.report.write_text(
            json.dumps(body, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
    skipped = body["bad_lines"] + body["refused"]
    if skipped:
        err_console.print(
            f"[yellow]refused:[/yellow] {skipped} line(s) skipped in this run "
            f"({body['bad_lines']} bad, {body['refused']} refused by ingest); see the report",
            highlight=False,
        )
        return 1
    return 0


def print_replay_report(body: dict[str, Any]) -> None:
    """Counts only: example values stay in the report file."""
    shadow = body["shadow"]
    summary = Table(title=escape(f"replay {body['run_id']}") + (" (shadow)" if shadow else ""))
    summary.add_column("")
    summary.add_column("value", justify="right")
    for name in ("turns", "stored", "duplicates", "refused", "bad_lines", "proposals", "replayed"):
        summary.add_row(name, str(body[name]))
    summary.add_row("turns/s", f"{body['turns_per_second']:,.1f}")
    summary.add_row("proposals/s", f"{body['proposals_per_second']:,.1f}")
    console.print(summary)
    decisions = Table(title="decisions (all receipts, replayed included)")
    for col in ("decision", "reason", "count"):
        decisions.add_column(col, justify="right" if col == "count" else "left")
    for decision, row in body["decisions"].items():
        decisions.add_row(decision, "", str(row["count"]))
        for reason, n in row["reasons"].items():
            decisions.add_row("", reason, str(n))
    console.print(decisions)
    commits = Table(title="would be committed" if shadow else "committed by this run")
    commits.add_column("key")
    commits.add_column("count", justify="right")
    for key, row in body["commits"].items():
        commits.add_row(key, str(row["count"]))
    console.print(commits)
    for problem in body["problems"]:
        where = problem.get("path", problem.get("tenant_id", ""))
        at = problem.get("byte_offset", problem.get("message_id", ""))
        line = escape(f"{where} {at}: {problem['error']}")
        console.print(f"[yellow]skipped[/yellow] {line}", highlight=False)
