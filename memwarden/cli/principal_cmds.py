"""``memwarden principal …``: create, list, disable and rotate API principals.

``memwarden principal --tenant T --name N --scope S`` (no action) still creates one.
Names are unique per tenant. Keys are printed once, at creation and rotation; only their
sha256 is stored, and no command ever prints a stored hash.
"""

from __future__ import annotations

import argparse
from typing import Any

from memwarden.cli.choices import SCOPES
from memwarden.cli.common import CliError, open_engine, print_json

SCOPES_HELP = " | ".join(SCOPES) + " (repeatable)"
KEY_NOTE = "the key is shown once; only its sha256 is stored"


def add_principal_commands(sub: Any) -> None:
    """Register ``principal`` (create) and its ``list``/``disable``/``rotate`` actions."""
    principal = sub.add_parser(
        "principal",
        help="create a principal and print its API key once; or list, disable, rotate",
        description="Without an action: create a principal (--tenant, --name, --scope).",
    )
    principal.add_argument("--tenant", help="the principal's tenant")
    principal.add_argument("--name", help="the principal's name, unique within the tenant")
    principal.add_argument("--scope", action="append", help=SCOPES_HELP)
    principal.set_defaults(handler=cmd_principal_create)
    actions = principal.add_subparsers(dest="principal_action", metavar="{list,disable,rotate}")
    p = actions.add_parser("list", help="a tenant's principals as JSON (never keys or hashes)")
    p.add_argument("--tenant", required=True, help="the tenant to list")
    p.set_defaults(handler=cmd_principal_list)
    for name, handler, text in (
        ("disable", cmd_principal_disable, "refuse a principal's key from now on"),
        ("rotate", cmd_principal_rotate, "replace a principal's key; the old one stops at once"),
    ):
        p = actions.add_parser(name, help=text)
        p.add_argument("--tenant", required=True, help="the principal's tenant")
        p.add_argument("--name", required=True, help="the principal's name")
        p.set_defaults(handler=handler)


def cmd_principal_create(args: argparse.Namespace) -> int:
    from memwarden_usecases import principals

    missing = [flag for flag in ("tenant", "name", "scope") if not getattr(args, flag)]
    if missing:
        raise CliError(
            "creating a principal needs "
            + ", ".join(f"--{flag}" for flag in missing)
            + " (or an action: list, disable, rotate)"
        )
    from memwarden_shared.state.auth import Scope

    try:
        scopes = [Scope(s) for s in args.scope]
    except ValueError as exc:
        raise CliError(f"{exc}; scopes are {SCOPES_HELP}") from None
    try:
        key = principals.create(open_engine(), args.name, args.tenant, scopes)
    except principals.PrincipalExists as exc:
        raise CliError(str(exc)) from None
    print_json(
        {
            "principal_id": args.name,
            "tenant_id": args.tenant,
            "scopes": [s.value for s in scopes],
            "api_key": key,
            "note": KEY_NOTE,
        }
    )
    return 0


def cmd_principal_list(args: argparse.Namespace) -> int:
    from memwarden_usecases import principals

    print_json(principals.listing(open_engine(), args.tenant))
    return 0


def cmd_principal_disable(args: argparse.Namespace) -> int:
    from memwarden_usecases import principals

    try:
        changed = principals.disable(open_engine(), args.tenant, args.name)
    except principals.UnknownPrincipal as exc:
        raise CliError(str(exc)) from None
    print_json({"principal_id": args.name, "tenant_id": args.tenant, "disabled": changed})
    return 0


def cmd_principal_rotate(args: argparse.Namespace) -> int:
    from memwarden_usecases import principals

    try:
        key = principals.rotate(open_engine(), args.tenant, args.name)
    except principals.UnknownPrincipal as exc:
        raise CliError(str(exc)) from None
    print_json(
        {"principal_id": args.name, "tenant_id": args.tenant, "api_key": key, "note": KEY_NOTE}
    )
    return 0
