"""Commands that run the pipeline: demo, ingest, submit, eval, workers and the relay."""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memwarden.cli.common import (
    CliError,
    Unavailable,
    console,
    err_console,
    get_settings,
    open_engine,
    principal_from,
    print_json,
    read_jsonl,
    read_text_arg,
)


def cmd_demo(args: argparse.Namespace) -> int:
    """Embedded on a store of its own, whatever the configured database and broker are."""
    import logging

    from memwarden.demo.run import demo_store, run_demo

    # In-process tasks log one "succeeded" line per batch even when a broker is configured.
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    logging.getLogger("memwarden").setLevel(logging.WARNING)  # the tables say what happened
    with demo_store(args.data_dir) as (engine, directory, kept):
        return run_demo(engine, console, kept_in=directory if kept else None)


def cmd_migrate(args: argparse.Namespace) -> int:
    from memwarden.cli.common import migrate_configured_store

    tenant_free = migrate_configured_store()
    console.print(f"schema at head on {get_settings().resolved_database_url.split('@')[-1]}")
    if tenant_free:  # PostgreSQL: the reviewed allow-list (shared.rls.TENANT_FREE_TABLES);
        # every other table has a tenant or system policy, or migrate would have refused
        console.print(
            "tables judged tenant-free (no row-level security): " + ", ".join(tenant_free)
        )
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    """Stream the file into the store in batches; on a terminal, a progress bar on stderr
    shows the validation pass, then the storing pass. Interrupted (Ctrl-C), it says how
    many turns were stored and the command that resumes after the last stored line."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    from memwarden_usecases.ingest import BatchStored, IngestRefused, Validated, ingest_file

    if args.batch < 1:
        raise CliError("--batch must be at least 1")
    if args.from_line < 1:
        raise CliError("--from-line must be at least 1")
    if args.file.is_dir():
        raise CliError(f"{args.file} is a directory, not a JSONL file")
    total = args.file.stat().st_size  # a missing file is refused here, before the database
    engine = open_engine()
    _require_broker(args.store_only)
    embedded = get_settings().embedded and not args.no_drain
    stored = {"turns": 0, "line": args.from_line - 1}
    with (
        _stop_between_batches() as stop,
        Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TextColumn("{task.fields[turns]} turns"),
            TimeRemainingColumn(),
            console=err_console,
            disable=not err_console.is_terminal,
            transient=True,
        ) as progress,
    ):
        check = progress.add_task("validate", total=total, turns=0, visible=not args.skip_bad)
        task = progress.add_task("ingest", total=total, turns=0)

        def validated(done: Validated) -> None:
            progress.update(check, completed=done.bytes_read)
            if stop.is_set():
                raise _Stopped

        def after_batch(done: BatchStored) -> None:
            stored["turns"] += done.turns
            stored["line"] = done.last_line
            if embedded:
                from memwarden_usecases.drain import drain

                drain(engine)  # process each batch's events before the next: a bounded queue
            progress.update(check, completed=total)
            progress.update(task, completed=done.bytes_read, turns=stored["turns"])
            if stop.is_set():
                raise _Stopped  # at a batch boundary: what is stored is exactly known

        try:
            result = ingest_file(
                engine,
                args.file,
                default_tenant=args.tenant,
                extract=not args.no_extract,
                max_text_chars=get_settings().max_text_chars,
                batch_size=args.batch,
                skip_bad=args.skip_bad,
                after_batch=after_batch,
                from_line=args.from_line,
                on_validated=validated,
            )
        except IngestRefused as exc:
            raise CliError(str(exc)) from None
        except (_Stopped, KeyboardInterrupt):
            progress.stop()
            _interrupted(args, stored["turns"], stored["line"])
            return 130
    print_json(
        {
            "stored": result.stored,
            "duplicates": result.duplicates,
            "skipped": result.skipped,
            "skipped_lines": result.skipped_lines,
        }
    )
    if result.skipped:
        err_console.print(
            f"[yellow]refused:[/yellow] {result.skipped} bad line(s) skipped "
            "(line numbers and reasons on stdout)",
            highlight=False,
        )
        return 1
    return 0


class _Stopped(Exception):
    """Ctrl-C asked the ingest to stop at the next batch boundary."""


@contextmanager
def _stop_between_batches() -> Iterator[threading.Event]:
    """The first Ctrl-C (SIGINT) asks the ingest to stop once the batch in flight is stored,
    so the resume line is exact; a second one interrupts at once."""
    stop = threading.Event()

    def on_interrupt(_signum: int, _frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupted(args: argparse.Namespace, turns: int, last_line: int) -> None:
    """What an interrupted ingest kept, and the command that goes on from there (each batch
    is one transaction: a batch cut short stored nothing)."""
    from shlex import join

    again = ["memwarden", "ingest", str(args.file), "--from-line", str(last_line + 1)]
    if args.tenant:
        again += ["--tenant", args.tenant]
    again += [
        flag
        for flag, on in (
            ("--no-extract", args.no_extract),
            ("--skip-bad", args.skip_bad),
            ("--store-only", args.store_only),
        )
        if on
    ]
    through = f"through line {last_line}" if last_line else "nothing"
    err_console.print(
        f"[yellow]interrupted:[/yellow] {turns} turns stored ({through}); resume with: "
        f"{join(again)}",
        highlight=False,
        soft_wrap=True,
    )


def _require_broker(store_only: bool) -> None:
    """Distributed: the stored turns reach the workers only through the broker. Unreachable,
    ingest refuses before storing anything (exit 3) unless ``--store-only`` says to store
    them anyway; they then wait in the outbox until a relay reaches the broker."""
    from memwarden_usecases.ingest import broker_reachable

    settings = get_settings()
    if settings.embedded or broker_reachable(settings.broker_url):
        return
    if not store_only:
        raise Unavailable(
            "the broker is unreachable (check MEMWARDEN_BROKER_URL); nothing was stored. "
            "Pass --store-only to store the turns anyway: they wait in the outbox until a "
            "relay reaches the broker"
        )
    err_console.print(
        "[yellow]warning:[/yellow] the broker is unreachable; the turns are stored and wait "
        "in the outbox until a relay reaches it",
        highlight=False,
    )


def cmd_submit(args: argparse.Namespace) -> int:
    from memwarden_shared.state.auth import Forbidden, Scope, authorize
    from memwarden_shared.store.tenant_scope import tenant_scope
    from memwarden_usecases.drain import drain_if_embedded
    from memwarden_usecases.propose import propose

    engine = open_engine()
    principal = principal_from(args, engine)
    rows = read_jsonl(args.file)
    for row in rows:
        try:
            authorize(principal, Scope.PROPOSE, str(row.get("tenant_id")))
        except Forbidden as exc:
            raise CliError(f"submit refused: {exc}") from None
    with tenant_scope(principal.tenant_id):  # every row was authorised for this tenant
        receipts = propose(engine, rows, proposed_by=principal.principal_id)
    drain_if_embedded(engine, get_settings())
    print_json([r.model_dump(mode="json") for r in receipts])
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from memwarden.eval.judge import metrics
    from memwarden.eval.misses import misses
    from memwarden.eval.report import print_misses, print_report, write_report
    from memwarden.eval.runner import run_cases

    if args.compare_extractor_version:
        return _compare_extractor_versions(args)
    cases = read_jsonl(args.cases)
    engine = open_engine()
    if args.snapshots:
        with args.snapshots.open("w", encoding="utf-8") as snap:
            results = run_cases(cases, engine=engine, snapshots=snap)
    else:
        results = run_cases(cases, engine=engine)
    m = metrics(results)
    print_report(console, results, m)
    if args.misses:
        found = misses(results)
        print_misses(console, found)
        m = {**m, "misses": found}
    if args.report:
        write_report(args.report, results, m)
    return 0 if m["passed"] == m["cases"] or not args.strict else 1


def _compare_extractor_versions(args: argparse.Namespace) -> int:
    """The cases once per rules extractor version, each run in its own namespace."""
    from memwarden.eval.judge import metrics
    from memwarden.eval.report import print_comparison, write_comparison
    from memwarden.eval.runner import run_cases

    if args.snapshots:
        raise CliError("--snapshots cannot be combined with --compare-extractor-version")
    cases = read_jsonl(args.cases)
    engine = open_engine()
    runs = []
    for version in args.compare_extractor_version:
        results = run_cases(cases, engine=engine, extractor_version=version)
        runs.append((version, results, metrics(results)))
    print_comparison(console, runs)
    if args.report:
        write_comparison(args.report, runs)
    every_case_passed = all(m["passed"] == m["cases"] for _, _, m in runs)
    return 0 if every_case_passed or not args.strict else 1


def cmd_drain(args: argparse.Namespace) -> int:
    from memwarden_usecases.drain import drain

    print_json({"events_processed": drain(open_engine())})
    return 0


def _require_runnable_canary() -> None:
    """An extractor worker refuses to start with a canary it cannot run."""
    from memwarden_usecases.rollout import UnknownVersion, require_runnable_canary

    try:
        require_runnable_canary(get_settings())
    except UnknownVersion as exc:
        raise CliError(str(exc)) from None


def cmd_worker(args: argparse.Namespace) -> int:
    import logging
    import time

    from memwarden_shared.delivery.celery_app import app
    from memwarden_shared.delivery.pipeline import Stage
    from memwarden_usecases.pipeline import (
        STAGE_TASKS,  # registers every stage's task on app
        warm,
    )

    if get_settings().embedded:
        raise CliError("a worker needs MEMWARDEN_BROKER_URL (embedded mode runs tasks in-process)")
    stage = Stage(args.stage)
    open_engine()
    if stage == Stage.EXTRACTOR:
        _require_runnable_canary()
    if STAGE_TASKS[stage].name not in app.tasks:
        raise CliError(f"stage {stage.value} registered no task on the Celery app")
    prepare_worker_process(args.pool)
    started = time.perf_counter()
    warm(stage)  # before the first message: a prefork pool's children inherit what it loaded
    logging.getLogger("memwarden.worker").info(
        "stage %s warmed in %.2f s", stage.value, time.perf_counter() - started
    )
    app.worker_main(
        [
            *(["--quiet"] if get_settings().log_format == "json" else []),  # no banner
            "worker",
            "-Q",
            stage.value,
            "-n",
            f"{stage.value}@%h",
            "--concurrency",
            str(args.concurrency),
            "--pool",
            args.pool,
            "--loglevel",
            get_settings().log_level,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
    )
    return 0


def cmd_relay(args: argparse.Namespace) -> int:
    from memwarden_shared.delivery.celery_app import app
    from memwarden_shared.delivery.publish import celery_publisher
    from memwarden_shared.delivery.queues import redis_busy_queues, redis_llen
    from memwarden_shared.delivery.relay import run_relay
    from memwarden_shared.observe import metrics
    from memwarden_shared.observe.samplers import RelaySampler

    settings = get_settings()
    if settings.embedded:
        raise CliError("the relay needs MEMWARDEN_BROKER_URL; embedded mode drains in-process")
    engine = open_engine()
    sampler = None
    if metrics.serve(settings.metrics_port):
        sampler = RelaySampler(engine, redis_llen(settings.broker_url))
    run_relay(
        engine,
        celery_publisher(app),
        limit=settings.max_batch,
        poll_seconds=settings.relay_poll_seconds,
        after_round=sampler,
        busy_queues=redis_busy_queues(settings.broker_url),
    )
    return 0


def prepare_worker_process(pool: str) -> None:
    """Keep the logging ``main`` configured, time every task, serve metrics when a port is set."""
    import logging

    from memwarden_shared.observe import metrics
    from memwarden_shared.observe.logging import take_over_celery_logging

    take_over_celery_logging()
    metrics.install_task_timing()
    if metrics.serve(get_settings().metrics_port) and pool == "prefork":
        logging.getLogger("memwarden.metrics").warning(
            "prefork children keep their own metrics, which /metrics does not show; "
            "run one --pool solo (or threads) worker per process and port"
        )


def cmd_explain(args: argparse.Namespace) -> int:
    """What the extractor and the gate would do with a text, sentence by sentence; nothing is
    stored and no database is opened. The reasons in words (``--lang``), codes in JSON."""
    from dataclasses import asdict

    from rich.table import Table

    from memwarden.reasons import in_words, reasons_in_words
    from memwarden_usecases.explain import explain

    text = read_text_arg(args.text, None)
    sentences = explain(text, role=args.role)
    if args.format == "json":
        print_json([asdict(s) for s in sentences])
        return 0
    table = Table(title="what memwarden would do (nothing stored)")
    for col in ("sentence", "extractor", "gate", "why"):
        table.add_column(col)
    for s in sentences:
        if not s.candidates:
            table.add_row(s.text, "declined", "—", reasons_in_words(s.declined, args.lang))
        for c in s.candidates:
            table.add_row(
                s.text,
                f"{c.key} = {c.value}",
                in_words(c.decision, args.lang),
                reasons_in_words(c.reasons, args.lang),
            )
    console.print(table)
    return 0
