"""``memwarden switch status|close|open|quarantine|sweep``: the commit switch (seed 000, hard
rollback). Opening needs a memory:admin key and a reason."""

from __future__ import annotations

import argparse
from typing import Any

from memwarden.cli.common import CliError, open_engine, principal_from, print_json


def add_switch_commands(sub: Any) -> None:
    switch = sub.add_parser("switch", help="the commit switch: status, close, open, quarantine")
    actions = switch.add_subparsers(dest="switch_command", required=True)
    p = actions.add_parser("status", help="the tenant's and the global switch (JSON)")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.set_defaults(handler=cmd_switch_status)
    for name, handler, who in (
        ("close", cmd_switch_close, "a memory:review key (global: memory:admin)"),
        ("open", cmd_switch_open, "a memory:admin key"),
    ):
        p = actions.add_parser(name, help=f"{name} the commit switch ({who})")
        p.add_argument("--tenant", required=True, help="tenant id")
        p.add_argument("--reason", required=True, help="why (recorded and announced)")
        p.add_argument("--global", dest="everyone", action="store_true", help="every tenant")
        p.add_argument("--api-key", help=f"{who} (or MEMWARDEN_API_KEY)")
        p.set_defaults(handler=handler)
    p = actions.add_parser("quarantine", help="proposals held while the switch was closed")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument("--api-key", help="a memory:review key (or MEMWARDEN_API_KEY)")
    p.set_defaults(handler=cmd_switch_quarantine)
    p = actions.add_parser(
        "sweep",
        help="scan the store; close switches on a cross-tenant write, stored secret "
        "or revocation residue (exit 1 when anything was found)",
    )
    p.add_argument("--tenant", help="only this tenant (default: every tenant)")
    p.set_defaults(handler=cmd_switch_sweep)


def cmd_switch_status(args: argparse.Namespace) -> int:
    from memwarden_usecases.switch import operator_status

    print_json(operator_status(open_engine(), args.tenant))
    return 0


def _change(args: argparse.Namespace, *, opening: bool) -> int:
    from memwarden_shared.state.auth import Forbidden
    from memwarden_usecases import switch

    engine = open_engine()
    principal = principal_from(args, engine)
    change = switch.open_ if opening else switch.close
    try:
        changed = change(engine, principal, args.tenant, args.reason, everyone=args.everyone)
    except Forbidden as exc:
        raise CliError(f"refused: {exc}") from None
    except switch.OpenRefused as exc:
        raise CliError(str(exc)) from None
    print_json({"changed": changed, "status": switch.operator_status(engine, args.tenant)})
    return 0


def cmd_switch_close(args: argparse.Namespace) -> int:
    return _change(args, opening=False)


def cmd_switch_open(args: argparse.Namespace) -> int:
    return _change(args, opening=True)


def cmd_switch_quarantine(args: argparse.Namespace) -> int:
    from memwarden_usecases.switch import quarantined

    engine = open_engine()
    rows = quarantined(engine, principal_from(args, engine), args.tenant)
    print_json({"quarantined": rows, "count": len(rows)})
    return 0


def cmd_switch_sweep(args: argparse.Namespace) -> int:
    from memwarden_usecases.switch import sweep

    out = sweep(open_engine(), args.tenant)
    print_json(out)
    return 1 if out["findings"] else 0
