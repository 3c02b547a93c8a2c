"""``memwarden canary status|check|clear`` and ``memwarden holds list|clear``: the staged
rollout of an extractor version and the scopes held for review (docs/operations.md)."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any

from memwarden.cli.common import CliError, open_engine, principal_from, print_json


def add_rollout_commands(sub: Any) -> None:
    canary = sub.add_parser("canary", help="the canary extractor version: status, check, clear")
    actions = canary.add_subparsers(dest="canary_command", required=True)
    p = actions.add_parser("status", help="the setting, routing, rollbacks, window rates (JSON)")
    p.set_defaults(handler=cmd_canary_status)
    p = actions.add_parser("check", help="run the monitor now (rolls back when it is worse)")
    p.set_defaults(handler=cmd_canary_check)
    p = actions.add_parser("clear", help="lift a rollback: the setting routes to the version again")
    p.add_argument("--version", required=True, help="the rolled-back extractor version")
    p.add_argument("--by", required=True, help="who lifts it (recorded)")
    p.set_defaults(handler=cmd_canary_clear)

    holds = sub.add_parser("holds", help="scopes held for review: list, clear")
    actions = holds.add_subparsers(dest="holds_command", required=True)
    p = actions.add_parser("list", help="holds as JSON")
    p.add_argument("--tenant", help="only this tenant's holds")
    p.add_argument("--all", action="store_true", help="cleared holds too")
    p.set_defaults(handler=cmd_holds_list)
    p = actions.add_parser(
        "clear", help="clear a write-rate hold (an owner or reviewer: memory:review)"
    )
    p.add_argument("--tenant", required=True, help="the tenant the hold is in")
    p.add_argument("--scope", required=True, help="subject:<id>, session:<id> or producer:<v>")
    p.add_argument("--api-key", help="a reviewer's key (or MEMWARDEN_API_KEY)")
    p.set_defaults(handler=cmd_holds_clear)


def cmd_canary_status(args: argparse.Namespace) -> int:
    from memwarden_shared.config import get_settings
    from memwarden_usecases.rollout import canary_status

    print_json(canary_status(open_engine(), get_settings()))
    return 0


def cmd_canary_check(args: argparse.Namespace) -> int:
    from memwarden_shared.config import get_settings
    from memwarden_usecases.rollout import canary_check

    print_json({"check": canary_check(open_engine(), get_settings(), datetime.now(UTC))})
    return 0


def cmd_canary_clear(args: argparse.Namespace) -> int:
    from memwarden_shared.contract.models import is_safe_id
    from memwarden_usecases.rollout import canary_clear

    if not is_safe_id(args.by):
        raise CliError("--by must be an id (letters, digits, . _ : @ -)")
    if not canary_clear(open_engine(), args.version, by=args.by, now=datetime.now(UTC)):
        raise CliError("no rollback of that version stands")
    print_json({"cleared": args.version})
    return 0


def cmd_holds_list(args: argparse.Namespace) -> int:
    from memwarden_usecases.rollout import holds

    rows = holds(open_engine(), args.tenant, active_only=not args.all)
    print_json({"holds": rows, "count": len(rows)})
    return 0


def cmd_holds_clear(args: argparse.Namespace) -> int:
    from memwarden_shared.state.auth import Forbidden
    from memwarden_usecases.rollout import clear_write_hold

    engine = open_engine()
    principal = principal_from(args, engine)
    try:
        hold = clear_write_hold(engine, principal, args.tenant, args.scope, now=datetime.now(UTC))
    except Forbidden as exc:
        raise CliError(f"clear refused: {exc}") from None
    if hold is None:
        raise CliError("no write-rate hold on that scope in that tenant")
    print_json({"cleared": hold})
    return 0
