"""Owner review and access: pending, approve, reject, principals, tenant policy."""

from __future__ import annotations

import argparse

from services.cli.common import (
    CliError,
    drain_if_embedded,
    open_engine,
    principal_from,
    print_json,
)


def cmd_pending(args: argparse.Namespace) -> int:
    from services.gate.review import pending
    from shared.auth import Forbidden

    engine = open_engine()
    try:
        print_json(pending(principal_from(args, engine), args.tenant, engine=engine))
    except Forbidden as exc:
        raise CliError(str(exc)) from None
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    from services.gate.review import ReviewRefused, approve, reject
    from shared.auth import Forbidden

    engine = open_engine()
    principal = principal_from(args, engine)
    try:
        if args.command == "approve":
            outcome = approve(
                principal, args.tenant, args.proposal, args.payload_hash, engine=engine
            )
        else:
            outcome = reject(principal, args.tenant, args.proposal, engine=engine)
    except (ReviewRefused, Forbidden) as exc:
        raise CliError(f"{args.command} refused: {exc}") from None
    drain_if_embedded()
    print_json(outcome.__dict__)
    return 0


def cmd_principal(args: argparse.Namespace) -> int:
    from shared.auth import Scope, create_principal

    try:
        scopes = [Scope(s) for s in args.scope]
    except ValueError as exc:
        raise CliError(str(exc)) from None
    engine = open_engine()
    with engine.begin() as conn:
        key = create_principal(conn, args.name, args.tenant, scopes)
    print_json(
        {
            "principal_id": args.name,
            "tenant_id": args.tenant,
            "scopes": [s.value for s in scopes],
            "api_key": key,
            "note": "the key is shown once; only its sha256 is stored",
        }
    )
    return 0


def cmd_policy(args: argparse.Namespace) -> int:
    from shared.db import insert_ignore, utcnow
    from shared.schema import tenant_policies

    engine = open_engine()
    with engine.begin() as conn:
        conn.execute(tenant_policies.delete().where(tenant_policies.c.tenant_id == args.tenant))
        insert_ignore(
            conn,
            tenant_policies,
            {"tenant_id": args.tenant, "profile": args.profile, "updated_at": utcnow()},
            ["tenant_id"],
        )
    print_json({"tenant_id": args.tenant, "profile": args.profile})
    return 0
