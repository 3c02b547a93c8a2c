"""``memwarden replay --distributed``: plan the run into the store, hand its chunks to the
``replay`` workers, and follow it with a progress bar read from the store.

The coordinator holds no state of its own: stop it (Ctrl-C, SIGTERM, a kill) and the workers
go on with the chunks they were handed; the same command later finds the plan, redelivers
what was lost and reports. Two coordinators of one run only sweep twice.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from memwarden.cli.common import CliError, console, err_console, open_engine
from memwarden.cli.replay_report import finish_report, term_as_interrupt
from memwarden_shared.config import get_settings

if TYPE_CHECKING:
    from memwarden_usecases.replay import ReplayOptions

POLL_SECONDS = 0.5


def follow_distributed(args: argparse.Namespace, paths: list[Path], options: ReplayOptions) -> int:
    from memwarden_usecases import replay

    if get_settings().embedded:
        raise CliError(
            "--distributed needs MEMWARDEN_BROKER_URL (and `memwarden worker replay` processes); "
            "without a broker, replay runs in-process"
        )
    if args.lanes < 1:
        raise CliError("--lanes must be at least 1")
    engine = open_engine()
    queue_busy = replay.queue_watch(get_settings())
    logging.getLogger("memwarden.gate").setLevel(logging.WARNING)
    try:
        plan = replay.open_distributed(engine, paths, options, lanes=args.lanes)
    except replay.ReplayRefused as exc:
        raise CliError(str(exc)) from None
    mode = "shadow " if options.shadow else ""
    console.print(
        f"distributed {mode}replay run [bold]{escape(options.run_id)}[/bold]: "
        f"{plan['files']} file(s), {plan['turns']} turns in {plan['chunks']} chunks, "
        f"extractor {options.extractor}",
        highlight=False,
    )
    state = replay.progress(engine, options.run_id)
    started, done_at_start = time.monotonic(), state.turns_done
    with (
        Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.percentage:>3.0f}%"),
            TextColumn("{task.fields[chunks]} chunks, {task.fields[rate]} turns/s"),
            TimeRemainingColumn(),
            console=console,
            disable=state.finished,
        ) as bar,
        term_as_interrupt(),
    ):
        task = bar.add_task(
            "replay", total=max(state.turns, 1), completed=state.turns_done, chunks="", rate="-"
        )
        try:
            while True:
                replay.dispatch(engine, options.run_id, queue_busy)
                state = replay.progress(engine, options.run_id)
                rate = (state.turns_done - done_at_start) / max(time.monotonic() - started, 1e-9)
                bar.update(
                    task,
                    completed=state.turns_done,
                    chunks=f"{state.done}/{state.chunks}",
                    rate=f"{rate:,.0f}",
                )
                if state.settled:
                    break
                time.sleep(POLL_SECONDS)
        except KeyboardInterrupt:
            bar.stop()
            console.print(
                "[yellow]coordinator stopped[/yellow]: the workers finish the chunks they were "
                f"handed; rerun with --distributed --run-id {escape(options.run_id)} (or the "
                "same command) to follow the run and redeliver what is left",
                highlight=False,
            )
            return 130
    if not state.finished:
        for failed in replay.failures(engine, options.run_id):
            err_console.print(
                f"[red]chunk {failed['chunk']} failed[/red] after {failed['attempts']} "
                f"attempt(s): {escape(str(failed['error']))}",
                highlight=False,
            )
        err_console.print(
            f"{state.chunks - state.done} chunk(s) not replayed; rerun the same command to try "
            "the failed chunks again",
            highlight=False,
        )
        return 1
    return finish_report(args, replay.finish(engine, options.run_id))
