"""``memwarden outbox …``: look at the outbox, and re-publish what a broker lost."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any

from memwarden.cli.choices import TOPICS
from memwarden.cli.common import CliError, get_settings, open_engine, print_json


def add_outbox_commands(sub: Any) -> None:
    """Register ``outbox status`` and ``outbox requeue`` on the top-level subparsers."""
    outbox = sub.add_parser("outbox", help="outbox backlog; re-publish rows a broker lost")
    actions = outbox.add_subparsers(dest="outbox_command", required=True)
    p = actions.add_parser("status", help="unsent rows and the age of the oldest, as JSON")
    p.set_defaults(handler=cmd_outbox_status)
    p = actions.add_parser(
        "requeue",
        help="mark rows sent at or after --since unsent again; relays publish them anew",
    )
    p.add_argument(
        "--since", required=True, type=_moment, help="ISO 8601 time (no offset means UTC)"
    )
    p.add_argument("--until", type=_moment, help="only rows sent before this time")
    p.add_argument(
        "--topic",
        action="append",
        choices=TOPICS,
        help="only this topic (repeatable), e.g. proposal.submitted for the gate's queue",
    )
    p.add_argument("--dry-run", action="store_true", help="count, change nothing")
    p.set_defaults(handler=cmd_outbox_requeue)


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def cmd_outbox_status(args: argparse.Namespace) -> int:
    """Delivery health: rows never published, in flight, overdue (published but not consumed
    past the redelivery deadline), dead letters, undecided candidates, current versions
    without a vector row."""
    from memwarden_usecases.operate import outbox_status

    print_json(outbox_status(open_engine(), redeliver_seconds=get_settings().redeliver_seconds))
    return 0


def cmd_outbox_requeue(args: argparse.Namespace) -> int:
    from memwarden_usecases.operate import requeue

    if args.until is not None and args.until <= args.since:
        raise CliError("--until must be later than --since")
    count = requeue(open_engine(), args.since, args.until, args.topic, dry_run=args.dry_run)
    print_json(
        {
            "requeued": 0 if args.dry_run else count,
            "matched": count,
            "since": args.since.isoformat(),
            "until": args.until.isoformat() if args.until else None,
            "topics": args.topic or "all",
            "dry_run": args.dry_run,
        }
    )
    return 0
