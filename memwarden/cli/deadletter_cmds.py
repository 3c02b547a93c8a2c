"""``memwarden deadletter list|retry|discard``: events a stage set aside (SPEC §8.1)."""

from __future__ import annotations

import argparse
from typing import Any

from memwarden.cli.common import CliError, drain_if_embedded, open_engine, print_json
from memwarden_shared.delivery.dead_letters import (
    discard_dead_letters,
    list_dead_letters,
    retry_dead_letters,
)
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.store.db import unit_of_work

# the inbox consumer name of each stage is the stage's name (shared.consume)
CONSUMER_OF = {stage.value: stage.value for stage in Stage}


def add_deadletter_commands(sub: Any) -> None:
    dl = sub.add_parser("deadletter", help="events a stage could not process: list, retry, discard")
    actions = dl.add_subparsers(dest="deadletter_command", required=True)
    p = actions.add_parser("list", help="dead letters as JSON (keys and error class, no values)")
    p.add_argument(
        "--stage", choices=[s.value for s in Stage] + ["relay"], help="only this stage's letters"
    )
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
        p.add_argument(
            "--stage", choices=[s.value for s in Stage] + ["relay"], help="this stage's letters"
        )
        p.set_defaults(handler=handler)


def cmd_deadletter_list(args: argparse.Namespace) -> int:
    with unit_of_work(open_engine()) as uow:
        rows = list_dead_letters(
            uow.conn, stage=args.stage, tenant_id=args.tenant, limit=args.limit
        )
    print_json({"dead_letters": [r.as_json() for r in rows], "count": len(rows)})
    return 0


def _chosen(conn: Any, args: argparse.Namespace) -> list[int]:
    if args.all == bool(args.ids):
        raise CliError("name dead letter ids, or --all")
    if args.ids:
        return list(args.ids)
    return [r.id for r in list_dead_letters(conn, stage=args.stage, limit=1_000_000)]


def _retry(args: argparse.Namespace) -> int:
    with unit_of_work(open_engine()) as uow:
        ids = _chosen(uow.conn, args)
        count = retry_dead_letters(uow.conn, ids, CONSUMER_OF)
        uow.commit()
    print_json({"retried": count, "asked": len(ids)})
    drain_if_embedded()
    return 0


def _discard(args: argparse.Namespace) -> int:
    with unit_of_work(open_engine()) as uow:
        ids = _chosen(uow.conn, args)
        count = discard_dead_letters(uow.conn, ids)
        uow.commit()
    print_json({"discarded": count, "asked": len(ids)})
    return 0
