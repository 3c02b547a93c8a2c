"""Commands that run the pipeline: demo, ingest, submit, eval, workers and the relay."""

from __future__ import annotations

import argparse

from memwarden.cli.common import (
    CliError,
    console,
    err_console,
    open_engine,
    principal_from,
    print_json,
    read_jsonl,
)
from memwarden_shared.config import get_settings


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

    migrate_configured_store()
    console.print(f"schema at head on {get_settings().resolved_database_url.split('@')[-1]}")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    """Stream the file into the store in batches; a progress bar on stderr at a terminal."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    from memwarden_usecases.ingest import BatchStored, IngestRefused, ingest_file

    if args.batch < 1:
        raise CliError("--batch must be at least 1")
    if args.file.is_dir():
        raise CliError(f"{args.file} is a directory, not a JSONL file")
    total = args.file.stat().st_size  # a missing file is refused here, before the database
    engine = open_engine()
    embedded = get_settings().embedded and not args.no_drain
    with Progress(
        TextColumn("ingest"),
        BarColumn(),
        DownloadColumn(),
        TextColumn("{task.fields[turns]} turns"),
        TimeRemainingColumn(),
        console=err_console,
        disable=not err_console.is_terminal,
        transient=True,
    ) as progress:
        task = progress.add_task("ingest", total=total, turns=0)
        turns = 0

        def after_batch(done: BatchStored) -> None:
            nonlocal turns
            turns += done.turns
            if embedded:
                from memwarden_usecases.drain import drain

                drain(engine)  # process each batch's events before the next: a bounded queue
            progress.update(task, completed=done.bytes_read, turns=turns)

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
            )
        except IngestRefused as exc:
            raise CliError(str(exc)) from None
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
    from memwarden.eval.report import print_report, write_report
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
    from memwarden_shared.delivery.celery_app import app
    from memwarden_shared.delivery.pipeline import Stage
    from memwarden_usecases.pipeline import STAGE_TASKS  # registers every stage's task on app

    if get_settings().embedded:
        raise CliError("a worker needs MEMWARDEN_BROKER_URL (embedded mode runs tasks in-process)")
    stage = Stage(args.stage)
    open_engine()
    if stage == Stage.EXTRACTOR:
        _require_runnable_canary()
    if STAGE_TASKS[stage].name not in app.tasks:
        raise CliError(f"stage {stage.value} registered no task on the Celery app")
    prepare_worker_process(args.pool)
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
