"""``memwarden replay``: historical sessions through an extractor version, with a progress bar
and a report; resumable, optionally in shadow mode."""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path
from typing import Any

from memwarden.cli.common import CliError, console, get_settings, open_engine


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


def cmd_replay(args: argparse.Namespace) -> int:
    from rich.markup import escape
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from memwarden.cli.replay_report import finish_report, term_as_interrupt
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
