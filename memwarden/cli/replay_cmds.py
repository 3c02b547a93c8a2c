"""``memwarden replay``: historical sessions through an extractor version, with a progress bar
and a report; resumable, optionally in shadow mode."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from memwarden.cli.common import CliError, console, err_console, open_engine
from memwarden_shared.config import get_settings


def add_replay_parser(add: Any) -> None:
    p = add("replay", cmd_replay, "replay historical sessions (JSONL) through an extractor")
    p.add_argument("paths", nargs="+", type=Path, help="JSONL files or folders of *.jsonl")
    p.add_argument("--tenant", help="tenant for lines that do not name one")
    p.add_argument(
        "--extractor", default="rules", choices=("rules", "llm"), help="which extractor proposes"
    )
    p.add_argument("--extractor-version", help="rules extractor version (part of proposal ids)")
    p.add_argument("--shadow", action="store_true", help="record decisions, commit nothing")
    p.add_argument("--run-id", help="resume or name a run (default: derived from the inputs)")
    p.add_argument("--report", type=Path, help="write the report as JSON (holds example values)")
    p.add_argument("--batch", type=int, default=500, help="turns per transaction")
    p.add_argument(
        "--distributed",
        action="store_true",
        help="record the run's chunks in the store and hand them to `memwarden worker replay` "
        "processes; this command follows the run (stop and rerun it at will)",
    )
    p.add_argument(
        "--lanes",
        type=int,
        default=64,
        help="with --distributed: most chunks of one tenant processed at once (default 64)",
    )
    p.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip lines that are not valid turns (exit 1 when any was skipped); without "
        "it, a bad line refuses the run before anything is replayed",
    )


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


def cmd_replay(args: argparse.Namespace) -> int:
    from memwarden_usecases import replay

    if args.batch < 1:
        raise CliError("--batch must be at least 1")
    paths = replay.expand_paths(args.paths)
    if not paths:
        raise CliError("no *.jsonl files under the given paths")
    # the version as the run records it, so that naming the default changes no run id
    version = replay.recorded_version(args.extractor, args.extractor_version)
    options = replay.ReplayOptions(
        run_id=args.run_id
        or replay.run_id_for(
            paths,
            args.extractor,
            version,
            args.shadow,
            args.tenant,
            distributed=args.distributed,
        ),
        extractor=args.extractor,
        extractor_version=args.extractor_version,
        shadow=args.shadow,
        batch_size=args.batch,
        default_tenant=args.tenant,
        max_text_chars=get_settings().max_text_chars,
        skip_bad=args.skip_bad,
    )
    if args.distributed:
        from memwarden.cli.replay_distributed import follow_distributed

        return follow_distributed(args, paths, options)
    engine = open_engine()
    # One INFO line per decision would drown the progress bar, and in shadow mode it would
    # log decisions that were rolled back; the report carries the counts.
    logging.getLogger("memwarden.gate").setLevel(logging.WARNING)
    try:
        plan = replay.plan(engine, paths, options)
    except replay.ReplayRefused as exc:
        raise CliError(str(exc)) from None
    mode = "shadow " if options.shadow else ""
    console.print(
        f"{mode}replay run [bold]{escape(options.run_id)}[/bold]: {len(paths)} file(s), "
        f"extractor {options.extractor} {plan.extractor_version or '(own version)'}",
        highlight=False,
    )
    if plan.remaining_bytes == 0:
        console.print("nothing left to replay in this run; pass another --run-id to start over")
    started = time.perf_counter()
    turns = 0
    with (
        Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.percentage:>3.0f}%"),
            TextColumn("{task.fields[turns]} turns, {task.fields[rate]} turns/s"),
            TimeRemainingColumn(),
            console=console,
            disable=plan.remaining_bytes == 0,
        ) as progress,
        term_as_interrupt(),
    ):
        task = progress.add_task("replay", total=plan.remaining_bytes, turns=0, rate="-")

        def on_batch(done: replay.BatchDone) -> None:
            nonlocal turns
            turns += done.turns
            rate = turns / max(time.perf_counter() - started, 1e-9)
            progress.update(task, advance=done.bytes, turns=turns, rate=f"{rate:,.0f}")

        try:
            body = replay.run(engine, plan, get_settings(), on_batch=on_batch)
        except KeyboardInterrupt:
            progress.stop()
            console.print(
                f"[yellow]interrupted[/yellow]: the batch in progress was rolled back; rerun with "
                f"--run-id {escape(options.run_id)} (or the same command) to continue",
                highlight=False,
            )
            return 130
        except replay.ReplayRefused as exc:
            raise CliError(str(exc)) from None
    return finish_report(args, body)


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
