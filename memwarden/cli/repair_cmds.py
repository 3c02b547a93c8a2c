"""``memwarden repair list|irreversible|close``: repair that closes (seed 002)."""

from __future__ import annotations

import argparse
from typing import Any

from memwarden.cli.common import CliError, open_engine, principal_from, print_json


def add_repair_commands(sub: Any) -> None:
    repair = sub.add_parser("repair", help="open repairs of retracted memories: list, close")
    actions = repair.add_subparsers(dest="repair_command", required=True)
    p = actions.add_parser("list", help="open repairs (needs_repair, irreversible) as JSON")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.set_defaults(handler=cmd_repair_list)
    for name, handler, summary in (
        ("irreversible", cmd_repair_irreversible, "record that an effect cannot be undone"),
        ("close", cmd_repair_close, "close a repair (repaired, by you, now)"),
    ):
        p = actions.add_parser(name, help=summary)
        p.add_argument("--tenant", required=True, help="tenant id")
        p.add_argument("--action", required=True, help="the action id")
        p.add_argument("--note", required=True, help="what was done, or what remains")
        p.add_argument("--api-key", help="a memory:review key (or MEMWARDEN_API_KEY)")
        p.set_defaults(handler=handler)


def cmd_repair_list(args: argparse.Namespace) -> int:
    from memwarden_usecases.repair import repairs

    rows = repairs(open_engine(), args.tenant)
    print_json({"repairs": rows, "open": len(rows)})
    return 0


def _mark(args: argparse.Namespace, *, closing: bool) -> int:
    from memwarden_shared.state.auth import Forbidden
    from memwarden_usecases import repair

    engine = open_engine()
    principal = principal_from(args, engine)
    mark = repair.close if closing else repair.irreversible
    try:
        print_json(mark(engine, principal, args.tenant, args.action, args.note))
    except (Forbidden, repair.RepairRefused) as exc:
        raise CliError(f"refused: {exc}") from None
    return 0


def cmd_repair_irreversible(args: argparse.Namespace) -> int:
    return _mark(args, closing=False)


def cmd_repair_close(args: argparse.Namespace) -> int:
    return _mark(args, closing=True)
