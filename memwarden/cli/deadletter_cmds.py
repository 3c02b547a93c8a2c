"""``memwarden deadletter list|retry|discard``: events a stage set aside (SPEC §8.1)."""

from __future__ import annotations

import argparse
from typing import Any

from memwarden.cli.choices import DEAD_LETTER_STAGES
from memwarden.cli.common import CliError, drain_if_embedded, open_engine, print_json


def add_deadletter_commands(sub: Any) -> None:
    dl = sub.add_parser("deadletter", help="events a stage could not process: list, retry, discard")
    actions = dl.add_subparsers(dest="deadletter_command", required=True)
    p = actions.add_parser("list", help="dead letters as JSON (keys and error class, no values)")
    p.add_argument("--stage", choices=DEAD_LETTER_STAGES, help="only this stage's letters")
    p.add_argument("--tenant", help="only this tenant's letters")
    p.add_argument("--limit", type=int, default=100, help="at most this many letters")
    p.set_defaults(handler=cmd_deadletter_list)
    for name, help_text, handler in (
        ("retry", "put the events back in the outbox; the stage runs them again", _retry),
        ("discard", "delete the dead letters; the events stay consumed", _discard),
    ):
        p = actions.add_parser(name, help=help_text)
        p.add_argument("ids", nargs="*", type=int, help="dead letter ids (see list)")
        p.add_argument("--all", action="store_true", help="every dead letter (of --stage)")
        p.add_argument("--stage", choices=DEAD_LETTER_STAGES, help="this stage's letters")
        p.set_defaults(handler=handler)


def cmd_deadletter_list(args: argparse.Namespace) -> int:
    from memwarden_usecases.operate import dead_letters

    rows = dead_letters(open_engine(), stage=args.stage, tenant_id=args.tenant, limit=args.limit)
    print_json({"dead_letters": rows, "count": len(rows)})
    return 0


def _chosen(args: argparse.Namespace) -> list[int] | None:
    """The ids named, or None for ``--all``."""
    if args.all == bool(args.ids):
        raise CliError("name dead letter ids, or --all")
    return list(args.ids) if args.ids else None


def _retry(args: argparse.Namespace) -> int:
    from memwarden_usecases.operate import retry

    count, asked = retry(open_engine(), _chosen(args), stage=args.stage)
    print_json({"retried": count, "asked": asked})
    drain_if_embedded()
    return 0


def _discard(args: argparse.Namespace) -> int:
    from memwarden_usecases.operate import discard

    count, asked = discard(open_engine(), _chosen(args), stage=args.stage)
    print_json({"discarded": count, "asked": asked})
    return 0
