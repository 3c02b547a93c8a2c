"""The ``memwarden`` command line: a memory write gate for AI agents."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from traceback import format_tb
from typing import Any

# Building the parser imports nothing heavy: the command modules import the store, the
# stages, rich and pydantic inside their handlers, so `memwarden --version` and a usage
# error answer at once (issue 26 item 6; bench/cli_start.py, tests/test_cli_start.py).
from memwarden.cli.action_cmds import add_action_commands
from memwarden.cli.api_cmds import cmd_api, cmd_mcp
from memwarden.cli.common import CliError, Unavailable, command_scope, err_console, get_settings
from memwarden.cli.curate_cmds import add_curate_commands
from memwarden.cli.deadletter_cmds import add_deadletter_commands
from memwarden.cli.memory_cmds import (
    cmd_as_of,
    cmd_audit,
    cmd_forget,
    cmd_memories,
    cmd_proposals,
    cmd_reads,
    cmd_recall,
    cmd_reject_memory,
    cmd_revoke,
    cmd_supersede,
    cmd_why,
)
from memwarden.cli.outbox_cmds import add_outbox_commands
from memwarden.cli.pipeline_cmds import (
    cmd_demo,
    cmd_drain,
    cmd_eval,
    cmd_explain,
    cmd_ingest,
    cmd_migrate,
    cmd_relay,
    cmd_submit,
    cmd_worker,
)
from memwarden.cli.principal_cmds import add_principal_commands
from memwarden.cli.recall_cmds import add_recall_commands
from memwarden.cli.registry_cmds import add_registry_commands
from memwarden.cli.repair_cmds import add_repair_commands
from memwarden.cli.replay_cmds import add_replay_parser
from memwarden.cli.review_cmds import cmd_pending, cmd_policy, cmd_review
from memwarden.cli.rollout_cmds import add_rollout_commands
from memwarden.cli.switch_cmds import add_switch_commands

log = logging.getLogger("memwarden.cli")

EXIT_CODES = """exit codes:
  0  ok
  1  refused (the gate, a policy or a residue audit said no; a line was skipped)
  2  usage or input error (a bad flag, a missing or unreadable file, invalid JSON/UTF-8)
  3  unavailable (database or broker unreachable, wrong database URL, schema behind)"""


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown after each flag's help, except the empty ones (None, False) that say
    nothing; the description keeps its line breaks (the exit code table)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or isinstance(action, argparse._VersionAction):
            return action.help or ""
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """Every (sub)command parser: defaults in --help, and a usage error is one line on stderr
    with exit code 2, not the usage block."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:
        # plain stderr, not rich: a usage error must not pay for rich's import
        sys.stderr.write(f"error: {message} (see `{self.prog} --help`)\n")
        raise SystemExit(2)


STAGES = ("extractor", "gate", "revalidation", "vector_sink", "replay")


def configure_logging(level: str, *, embedded: bool) -> None:
    """Logs at ``level`` on stderr, JSON when ``MEMWARDEN_LOG_FORMAT=json`` (shared.logging);
    the handler carries the level so that an eval capturing every record for its secret scan
    does not also print them."""
    from memwarden_shared.observe.logging import configure_logging as setup_logging

    setup_logging(level, json=get_settings().log_format == "json")
    if embedded:
        # In-process tasks would log one "succeeded" line per batch; noise in a CLI.
        logging.getLogger("celery.app.trace").setLevel(logging.WARNING)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="memwarden", description=__doc__, epilog=EXIT_CODES)
    parser.add_argument("--version", action="version", version=f"memwarden {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler: Any, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.set_defaults(handler=handler)
        return p

    def subject(p: argparse.ArgumentParser) -> None:
        p.add_argument("--tenant", required=True, help="tenant id")
        p.add_argument("--subject", required=True, help="subject id (whose memories)")

    p = add("demo", cmd_demo, "run the bundled conversations through an embedded pipeline")
    p.add_argument(
        "--data-dir",
        type=Path,
        help="keep the demo's SQLite store here (default: a temporary directory, removed "
        "after); the configured database and broker are never used",
    )
    add("migrate", cmd_migrate, "bring the schema to the latest Alembic revision")
    p = add("explain", cmd_explain, "what the extractor and the gate would do with a text")
    p.add_argument("text", help="the message, as the user (or --role) would say it")
    p.add_argument(
        "--role",
        default="user",
        choices=("user", "assistant", "tool", "system"),
        help="who says it",
    )
    p.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the reasons")
    p.add_argument("--format", choices=("table", "json"), default="table", help="json: codes")
    p = add("ingest", cmd_ingest, "store turns from a JSONL file (one turn per line)")
    p.add_argument(
        "file",
        type=Path,
        help="JSONL file, one turn per line in the turn format of docs/api.md (user_id or "
        "subject_id, content or text; the other fields have defaults)",
    )
    p.add_argument("--tenant", help="tenant for lines that do not name one")
    p.add_argument("--no-extract", action="store_true", help="store as evidence only")
    p.add_argument("--no-drain", action="store_true", help="embedded: leave events queued")
    p.add_argument("--batch", type=int, default=500, help="turns per transaction")
    p.add_argument(
        "--from-line",
        type=int,
        default=1,
        help="resume an interrupted ingest: start at this line (the interrupt names it)",
    )
    p.add_argument(
        "--store-only",
        action="store_true",
        help="distributed: store the turns even when the broker is unreachable (they wait in "
        "the outbox); without it, an unreachable broker refuses the file with exit 3",
    )
    p.add_argument(
        "--skip-bad",
        action="store_true",
        help="store the good lines and skip the bad ones (exit 1 when any was skipped); "
        "without it, a bad line refuses the file before anything is stored",
    )
    p = add("submit", cmd_submit, "send external MemoryProposals (JSONL) to the gate")
    p.add_argument("file", type=Path, help="JSONL file, one MemoryProposal object per line")
    p.add_argument("--api-key", help="a memory:propose key (default MEMWARDEN_API_KEY)")
    subject(p := add("memories", cmd_memories, "a subject's memory versions as JSON"))
    subject(p := add("proposals", cmd_proposals, "a subject's proposals and decisions as JSON"))
    p = add("recall", cmd_recall, "what recall returns for a subject")
    subject(p)
    p.add_argument("--query", help="rank by relevance to this text (default: all, newest first)")
    p.add_argument("--k", type=int, default=10, help="at most this many memories")
    p.add_argument("--scope-kind", help="only memories of this scope kind (e.g. global)")
    p.add_argument("--purpose", help="only keys whose retrieval purposes include this")
    p.add_argument(
        "--format",
        choices=("json", "context"),
        default="json",
        help="context: the prompt block (pointer + 'historical record, not current verification')",
    )
    p.add_argument(
        "--lang", choices=("en", "zh"), default="en", help="language of --format context"
    )
    p = add("as-of", cmd_as_of, "bi-temporal read: what held at --valid-at, as known at --known-at")
    subject(p)
    p.add_argument("--valid-at", required=True, help="ISO 8601 time the facts held at")
    p.add_argument("--known-at", help="ISO 8601 time of knowledge (default: now)")
    p = add("supersede", cmd_supersede, "store an edited message as a new revision")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument("--message", required=True, help="id of the message to revise")
    text = p.add_mutually_exclusive_group(required=True)
    text.add_argument("--text", help="the new text")
    text.add_argument("--file", type=Path, help="a UTF-8 file holding the new text")
    p = add("reject-memory", cmd_reject_memory, "the owner rejects a committed memory")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument("--memory", required=True, help="id of the memory to reject")
    p = add("why", cmd_why, "where a memory came from, who let it in and read it, how to revoke")
    p.add_argument("memory", help="memory id")
    p.add_argument("--tenant", required=True, help="tenant id")
    p = add("reads", cmd_reads, "who read a memory: principal, subject, version, when")
    p.add_argument("--tenant", help="tenant id")
    p.add_argument("--memory", help="memory id")
    p.add_argument("--limit", type=int, default=100, help="at most this many rows, newest first")
    p.add_argument("--before", type=int, help="the next page: rows older than this row id")
    p.add_argument("--prune", action="store_true", help="drop rows past the retention window")
    p = add("audit", cmd_audit, "residue audit; exits 1 when anything is found")
    p.add_argument("--tenant", help="audit this tenant only (default: every tenant)")
    for name, handler, summary in (
        ("revoke", cmd_revoke, "revoke a source message"),
        ("forget", cmd_forget, "forget what a message taught"),
    ):
        p = add(name, handler, summary)
        p.add_argument("--tenant", required=True, help="tenant id")
        p.add_argument("--message", required=True, help="id of the source message")
    p = add("pending", cmd_pending, "pending confirmations of a tenant")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument("--api-key", help="a memory:review key (default MEMWARDEN_API_KEY)")
    for name in ("approve", "reject"):
        p = add(name, cmd_review, f"{name} a pending candidate")
        p.add_argument("--tenant", required=True, help="tenant id")
        p.add_argument("--proposal", required=True, help="id of the pending proposal")
        p.add_argument("--api-key", help="a memory:review key (default MEMWARDEN_API_KEY)")
        if name == "approve":
            p.add_argument(
                "--payload-hash", required=True, help="the payload hash `pending` showed"
            )
    add_principal_commands(sub)
    p = add("policy", cmd_policy, "set a tenant's policy profile")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument(
        "--profile",
        required=True,
        choices=("auto", "review_all", "staged", "local"),
        help="auto: the gate commits; review_all: every candidate waits for a reviewer; "
        "staged: after a review period, a share of low-risk keys auto-commits; local: "
        "auto-apply only on a sealed single-owner embedded store (seed 001)",
    )
    p = add("eval", cmd_eval, "run labelled cases (SPEC §13) and print metrics")
    p.add_argument("cases", type=Path, help="JSONL file of labelled cases")
    p.add_argument("--snapshots", type=Path, help="write each case's store snapshot here (JSONL)")
    p.add_argument("--report", type=Path, help="write the metrics and failures here (JSON)")
    p.add_argument("--strict", action="store_true", help="exit 1 unless every case passes")
    p.add_argument(
        "--misses",
        action="store_true",
        help="group the failed commit expectations by verb class and language (unproposed, "
        "or proposed but not committed); with --report they are written there too",
    )
    p.add_argument(
        "--compare-extractor-version",
        nargs=2,
        metavar=("A", "B"),
        help="run the cases under two rules extractor versions and compare their metrics",
    )
    add_replay_parser(add)
    add_recall_commands(add)
    add("drain", cmd_drain, "embedded: process every queued event now")
    p = add("worker", cmd_worker, "run one stage's Celery worker")
    p.add_argument("stage", choices=STAGES, help="the stage whose queue this worker consumes")
    p.add_argument("--concurrency", type=int, default=1, help="tasks run at once")
    p.add_argument(
        "--pool", default="solo", choices=("solo", "prefork", "threads"), help="Celery pool"
    )
    add("relay", cmd_relay, "publish outbox rows to the stage queues")
    p = add("mcp", cmd_mcp, "serve memwarden's tools to an MCP client over stdio")
    p.add_argument("--tenant", default="default", help="the tenant the tools act in")
    p = add("api", cmd_api, "serve the HTTP API and the review console")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=8080, help="port to listen on")
    add_outbox_commands(sub)
    add_deadletter_commands(sub)
    add_rollout_commands(sub)
    add_switch_commands(sub)
    add_repair_commands(sub)
    add_action_commands(sub)
    add_curate_commands(sub)
    add_registry_commands(sub)
    _describe_subcommands(parser)
    return parser


def _describe_subcommands(parser: argparse.ArgumentParser) -> None:
    """``memwarden X --help`` opens with the line ``memwarden --help`` lists for X."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, child in action.choices.items():
                if not child.description:
                    child.description = helps.get(name)
                _describe_subcommands(child)


def _version() -> str:
    from memwarden._version import __version__

    return __version__


def main(argv: list[str] | None = None) -> int:
    """Run one command. Every failure is one line on stderr, never a traceback and never a
    value from the input or the configuration (a database URL may hold a password); the exit
    codes are listed in ``EXIT_CODES``."""
    words = sys.argv[1:] if argv is None else argv
    if words == ["--version"]:  # the one answer that needs no parser
        sys.stdout.write(f"memwarden {_version()}\n")
        return 0
    args = build_parser().parse_args(argv)
    # After parsing (a usage error or --version never reads the settings), before any
    # command runs: a bad MEMWARDEN_* value is one line on stderr, not a traceback.
    from memwarden.cli.preflight import refuse_bad_settings

    refused = refuse_bad_settings()
    if refused is not None:
        return refused
    try:
        configure_logging(get_settings().log_level, embedded=get_settings().embedded)
        with command_scope(args):
            return int(args.handler(args))
    except BaseException as exc:  # every failure becomes one line and an exit code
        return _exit_for(exc, args.command)


def _exit_for(exc: BaseException, command: str) -> int:
    if isinstance(exc, SystemExit):
        raise exc
    if isinstance(exc, KeyboardInterrupt):
        return 130
    for line_of, code in ((_unavailable_line, 3), (_input_line, 2), (_refused_line, 1)):
        line = line_of(exc)
        if line is not None:
            return _refuse(line, code)
    # Frames only, at DEBUG: the exception's message may quote the input.
    log.debug("%s in %s\n%s", type(exc).__name__, command, "".join(format_tb(exc.__traceback__)))
    return _refuse(f"internal error ({type(exc).__name__}); its message is not shown", 1)


def _unavailable_line(exc: BaseException) -> str | None:
    """Exit 3: something the command needs is not there (database, broker, schema)."""
    from kombu.exceptions import OperationalError as BrokerDown
    from redis.exceptions import ConnectionError as RedisDown
    from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError

    if isinstance(exc, Unavailable):
        return str(exc)
    if isinstance(exc, (ArgumentError, NoSuchModuleError)):
        return "the database URL is not usable (check MEMWARDEN_DATABASE_URL)"
    if isinstance(exc, OperationalError) or (
        isinstance(exc, DBAPIError) and exc.connection_invalidated
    ):
        # psycopg's message names host, port and user: the line stays generic.
        return (
            "the database is unavailable (unreachable, or the URL or credentials are wrong; "
            "check MEMWARDEN_DATABASE_URL)"
        )
    if isinstance(exc, (BrokerDown, RedisDown)):
        return "the broker is unavailable (check MEMWARDEN_BROKER_URL)"
    return None


def _input_line(exc: BaseException) -> str | None:
    """Exit 2: a usage or input error the user can fix."""
    from pydantic import ValidationError

    from memwarden.cli.preflight import settings_error_line
    from memwarden_shared.contract.models import safe_error_fields
    from memwarden_shared.store.dialect import UnsupportedStore

    if isinstance(exc, CliError):
        return str(exc)
    if isinstance(exc, UnsupportedStore):
        return f"{exc} (check MEMWARDEN_DATABASE_URL)"
    if isinstance(exc, UnicodeDecodeError):
        return f"input is not UTF-8 (byte {exc.start})"
    if isinstance(exc, OSError):
        return f"{exc.strerror or type(exc).__name__}: {exc.filename or ''}"
    if isinstance(exc, ValidationError) and exc.title == "Settings":
        return settings_error_line(exc)
    if isinstance(exc, ValidationError):
        return f"invalid input ({'; '.join(safe_error_fields(exc))})"
    return None


def _refused_line(exc: BaseException) -> str | None:
    """Exit 1: the database refused the operation."""
    from sqlalchemy.exc import SQLAlchemyError

    if isinstance(exc, SQLAlchemyError):
        # The database's own message may quote a row (a unique key holding a message id).
        return f"the database refused the operation ({type(exc).__name__})"
    return None


def _refuse(line: str, code: int) -> int:
    from rich.markup import escape

    err_console.print(f"[red]error:[/red] {escape(line)}", markup=True, highlight=False)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
