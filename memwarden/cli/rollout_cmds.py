"""``memwarden canary status|check|clear`` and ``memwarden holds list|clear``: the staged
rollout of an extractor version and the scopes held for review (docs/operations.md)."""

from __future__ import annotations

import argparse
from typing import Any

from memwarden.cli.common import CliError, open_engine, principal_from, print_json
from memwarden_shared.state.holds import ALL_TENANTS, list_holds
from memwarden_shared.store.db import unit_of_work, utcnow


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
    from memwarden_shared.config import get_settings, parse_canary
    from memwarden_shared.observe.rollout import is_rolled_back

    settings = get_settings()
    canary = parse_canary(settings.extractor_canary)
    with unit_of_work(open_engine()) as uow:
        rolled = [h.as_json() for h in list_holds(uow.conn, ALL_TENANTS, active_only=False)]
        routed = canary is not None and not is_rolled_back(uow.conn, canary.version)
    print_json(
        {
            "canary": None
            if canary is None
            else {"version": canary.version, "percent": canary.percent},
            "routing": "canary" if routed else "stable",
            "rollbacks": rolled,
        }
    )
    return 0


def cmd_canary_check(args: argparse.Namespace) -> int:
    from memwarden_extractor.canary import watch
    from memwarden_shared.config import get_settings

    with unit_of_work(open_engine()) as uow:
        check = watch(uow.conn, get_settings(), utcnow())
        uow.commit()
    print_json({"check": None if check is None else check.as_json()})
    return 0


def cmd_canary_clear(args: argparse.Namespace) -> int:
    from memwarden_shared.contract.models import is_safe_id
    from memwarden_shared.observe.rollout import clear_rollback

    if not is_safe_id(args.by):
        raise CliError("--by must be an id (letters, digits, . _ : @ -)")
    with unit_of_work(open_engine()) as uow:
        cleared = clear_rollback(uow.conn, args.version, by=args.by, now=utcnow())
        uow.commit()
    if not cleared:
        raise CliError("no rollback of that version stands")
    print_json({"cleared": args.version})
    return 0


def cmd_holds_list(args: argparse.Namespace) -> int:
    with unit_of_work(open_engine()) as uow:
        rows = list_holds(uow.conn, args.tenant, active_only=not args.all)
    print_json({"holds": [h.as_json() for h in rows], "count": len(rows)})
    return 0


def cmd_holds_clear(args: argparse.Namespace) -> int:
    from memwarden_shared.observe.anomaly import clear_hold
    from memwarden_shared.state.auth import Forbidden, Scope, authorize

    engine = open_engine()
    principal = principal_from(args, engine)
    try:
        authorize(principal, Scope.REVIEW, args.tenant)
    except Forbidden as exc:
        raise CliError(f"clear refused: {exc}") from None
    with unit_of_work(engine) as uow:
        hold = clear_hold(
            uow.conn, args.tenant, args.scope, by=principal.principal_id, now=utcnow()
        )
        uow.commit()
    if hold is None:
        raise CliError("no write-rate hold on that scope in that tenant")
    print_json({"cleared": hold.as_json()})
    return 0
