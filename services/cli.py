"""The ``memwarden`` command line."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from shared.config import get_settings
from shared.db import get_engine, migrate

console = Console()
STAGES = ("extractor", "gate", "revalidation", "vector_sink")


class CliError(Exception):
    """A refusal the user can act on: printed without a traceback, exit code 2."""


def _engine() -> Any:
    engine = get_engine()
    migrate(engine)
    return engine


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CliError(f"{path}:{number}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise CliError(f"{path}:{number}: expected a JSON object")
            rows.append(row)
    return rows


def cmd_demo(args: argparse.Namespace) -> int:
    from services.demo.run import run_demo

    return run_demo(_engine(), console)


def cmd_migrate(args: argparse.Namespace) -> int:
    _engine()
    console.print(f"schema at head on {get_settings().resolved_database_url.split('@')[-1]}")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    from services.ingest.io import IngestRefused, ingest_turns
    from shared.models import Turn

    rows = _read_jsonl(args.file)
    turns = []
    for number, row in enumerate(rows, 1):
        row.setdefault("tenant_id", args.tenant)
        try:
            turns.append(Turn.model_validate(row))
        except ValidationError as exc:
            fields = sorted({".".join(map(str, e["loc"])) + ": " + e["type"] for e in exc.errors()})
            raise CliError(f"{args.file} turn {number}: invalid ({'; '.join(fields)})") from None
    engine = _engine()
    try:
        result = ingest_turns(turns, engine=engine, extract=not args.no_extract,
                              max_text_chars=get_settings().max_text_chars)
    except IngestRefused as exc:
        raise CliError(str(exc)) from None
    if get_settings().embedded and not args.no_drain:
        from services.pipeline import drain

        drain(engine)
    _print_json({"stored": result.stored, "duplicates": result.duplicates})
    return 0


def _principal(args: argparse.Namespace, engine: Any) -> Any:
    from shared.auth import Unauthenticated, authenticate

    with engine.connect() as conn:
        try:
            return authenticate(conn, args.api_key or get_settings().api_key)
        except Unauthenticated as exc:
            raise CliError(f"{exc} (pass --api-key or set MEMWARDEN_API_KEY)") from None


def cmd_submit(args: argparse.Namespace) -> int:
    from services.gate.io import GateContext, decide_batch
    from shared.auth import Forbidden, Scope, authorize

    engine = _engine()
    principal = _principal(args, engine)
    rows = _read_jsonl(args.file)
    for row in rows:
        try:
            authorize(principal, Scope.PROPOSE, str(row.get("tenant_id")))
        except Forbidden as exc:
            raise CliError(f"submit refused: {exc}") from None
    receipts = decide_batch(rows, engine=engine,
                            ctx=GateContext(proposed_by=principal.principal_id))
    if get_settings().embedded:
        from services.pipeline import drain

        drain()
    _print_json([r.model_dump(mode="json") for r in receipts])
    return 0


def cmd_memories(args: argparse.Namespace) -> int:
    from services.inspect import list_memories

    _print_json(list_memories(args.tenant, args.subject, engine=_engine()))
    return 0


def cmd_proposals(args: argparse.Namespace) -> int:
    from services.inspect import list_proposals

    _print_json(list_proposals(args.tenant, args.subject, engine=_engine()))
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    from services.recall.query import recall

    found = recall(args.tenant, args.subject, args.query, k=args.k, scope_kind=args.scope_kind,
                   engine=_engine())
    _print_json([r.as_json() for r in found])
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    from services.revalidation.io import UnknownMessage, revoke_message

    try:
        changed = revoke_message(args.tenant, args.message, engine=_engine())
    except UnknownMessage as exc:
        raise CliError(str(exc)) from None
    _drain_if_embedded()
    _print_json({"message_id": args.message, "revoked": changed})
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from services.revalidation.io import UnknownMessage, forget_message

    try:
        forgotten = forget_message(args.tenant, args.message, engine=_engine())
    except UnknownMessage as exc:
        raise CliError(str(exc)) from None
    _drain_if_embedded()
    _print_json({"message_id": args.message, "memory_versions_forgotten": forgotten})
    return 0


def cmd_pending(args: argparse.Namespace) -> int:
    from services.gate.review import pending
    from shared.auth import Forbidden

    engine = _engine()
    try:
        _print_json(pending(_principal(args, engine), args.tenant, engine=engine))
    except Forbidden as exc:
        raise CliError(str(exc)) from None
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    from services.gate.review import ReviewRefused, approve, reject
    from shared.auth import Forbidden

    engine = _engine()
    principal = _principal(args, engine)
    try:
        if args.command == "approve":
            outcome = approve(principal, args.tenant, args.proposal, args.payload_hash,
                              engine=engine)
        else:
            outcome = reject(principal, args.tenant, args.proposal, engine=engine)
    except (ReviewRefused, Forbidden) as exc:
        raise CliError(f"{args.command} refused: {exc}") from None
    _drain_if_embedded()
    _print_json(outcome.__dict__)
    return 0


def cmd_principal(args: argparse.Namespace) -> int:
    from shared.auth import Scope, create_principal

    try:
        scopes = [Scope(s) for s in args.scope]
    except ValueError as exc:
        raise CliError(str(exc)) from None
    engine = _engine()
    with engine.begin() as conn:
        key = create_principal(conn, args.name, args.tenant, scopes)
    _print_json({"principal_id": args.name, "tenant_id": args.tenant,
                 "scopes": [s.value for s in scopes], "api_key": key,
                 "note": "the key is shown once; only its sha256 is stored"})
    return 0


def cmd_policy(args: argparse.Namespace) -> int:
    from shared.db import insert_ignore, utcnow
    from shared.schema import tenant_policies

    engine = _engine()
    with engine.begin() as conn:
        conn.execute(tenant_policies.delete().where(tenant_policies.c.tenant_id == args.tenant))
        insert_ignore(conn, tenant_policies, {"tenant_id": args.tenant, "profile": args.profile,
                                              "updated_at": utcnow()}, ["tenant_id"])
    _print_json({"tenant_id": args.tenant, "profile": args.profile})
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from services.eval.judge import metrics
    from services.eval.report import print_report, write_report
    from services.eval.runner import run_cases

    cases = _read_jsonl(args.cases)
    engine = _engine()
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


def cmd_drain(args: argparse.Namespace) -> int:
    from services.pipeline import drain

    _print_json({"events_processed": drain(_engine())})
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    import importlib

    from shared.celery_app import STAGE_TASK_MODULES, Stage, app

    if get_settings().embedded:
        raise CliError("a worker needs MEMWARDEN_BROKER_URL (embedded mode runs tasks in-process)")
    stage = Stage(args.stage)
    _engine()
    importlib.import_module(STAGE_TASK_MODULES[stage])
    app.worker_main(["worker", "-Q", stage.value, "-n", f"{stage.value}@%h",
                     "--concurrency", str(args.concurrency), "--pool", args.pool,
                     "--loglevel", get_settings().log_level, "--without-gossip",
                     "--without-mingle", "--without-heartbeat"])
    return 0


def cmd_relay(args: argparse.Namespace) -> int:
    from shared.celery_app import app
    from shared.relay import celery_publisher, run_relay

    settings = get_settings()
    if settings.embedded:
        raise CliError("the relay needs MEMWARDEN_BROKER_URL; embedded mode drains in-process")
    run_relay(_engine(), celery_publisher(app), limit=settings.max_batch,
              poll_seconds=settings.relay_poll_seconds)
    return 0


def _drain_if_embedded() -> None:
    if get_settings().embedded:
        from services.pipeline import drain

        drain()


def configure_logging(level: str, *, embedded: bool) -> None:
    """Console logs at ``level``; the handler carries the level so that an eval capturing
    every record for its secret scan does not also print them."""
    handler = logging.StreamHandler()
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(level)
    if embedded:
        # In-process tasks would log one "succeeded" line per batch; noise in a CLI.
        logging.getLogger("celery.app.trace").setLevel(logging.WARNING)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memwarden", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, handler: Any, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.set_defaults(handler=handler)
        return p

    def subject(p: argparse.ArgumentParser) -> None:
        p.add_argument("--tenant", required=True)
        p.add_argument("--subject", required=True)

    add("demo", cmd_demo, "run the bundled conversations through the embedded pipeline")
    add("migrate", cmd_migrate, "bring the schema to the latest Alembic revision")
    p = add("ingest", cmd_ingest, "store turns from a JSONL file (one turn per line)")
    p.add_argument("file", type=Path)
    p.add_argument("--tenant", help="tenant for lines that do not name one")
    p.add_argument("--no-extract", action="store_true", help="store as evidence only")
    p.add_argument("--no-drain", action="store_true", help="embedded: leave events queued")
    p = add("submit", cmd_submit, "send external MemoryProposals (JSONL) to the gate")
    p.add_argument("file", type=Path)
    p.add_argument("--api-key", help="a memory:propose key (default MEMWARDEN_API_KEY)")
    subject(p := add("memories", cmd_memories, "a subject's memory versions as JSON"))
    subject(p := add("proposals", cmd_proposals, "a subject's proposals and decisions as JSON"))
    p = add("recall", cmd_recall, "what recall returns for a subject")
    subject(p)
    p.add_argument("--query")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--scope-kind")
    for name, handler, text in (("revoke", cmd_revoke, "revoke a source message"),
                                ("forget", cmd_forget, "forget what a message taught")):
        p = add(name, handler, text)
        p.add_argument("--tenant", required=True)
        p.add_argument("--message", required=True)
    p = add("pending", cmd_pending, "pending confirmations of a tenant")
    p.add_argument("--tenant", required=True)
    p.add_argument("--api-key", help="a memory:review key (default MEMWARDEN_API_KEY)")
    for name in ("approve", "reject"):
        p = add(name, cmd_review, f"{name} a pending candidate")
        p.add_argument("--tenant", required=True)
        p.add_argument("--proposal", required=True)
        p.add_argument("--api-key", help="a memory:review key (default MEMWARDEN_API_KEY)")
        if name == "approve":
            p.add_argument("--payload-hash", required=True)
    p = add("principal", cmd_principal, "create a principal and print its API key once")
    p.add_argument("--tenant", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--scope", action="append", required=True,
                   help="memory:propose | memory:review | memory:read | memory:admin")
    p = add("policy", cmd_policy, "set a tenant's policy profile")
    p.add_argument("--tenant", required=True)
    p.add_argument("--profile", required=True, choices=("auto", "review_all"))
    p = add("eval", cmd_eval, "run labelled cases (SPEC §13) and print metrics")
    p.add_argument("cases", type=Path)
    p.add_argument("--snapshots", type=Path)
    p.add_argument("--report", type=Path)
    p.add_argument("--strict", action="store_true", help="exit 1 unless every case passes")
    add("drain", cmd_drain, "embedded: process every queued event now")
    p = add("worker", cmd_worker, "run one stage's Celery worker")
    p.add_argument("stage", choices=STAGES)
    p.add_argument("--concurrency", type=int, default=1)
    p.add_argument("--pool", default="solo", choices=("solo", "prefork", "threads"))
    add("relay", cmd_relay, "publish outbox rows to the stage queues")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(get_settings().log_level, embedded=get_settings().embedded)
    try:
        return int(args.handler(args))
    except CliError as exc:
        console.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        return 2
    except FileNotFoundError as exc:
        console.print(f"[red]error:[/red] {exc.strerror}: {exc.filename}")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
