"""Owner review and access: pending, approve, reject, tenant policy (principals:
principal_cmds.py)."""

from __future__ import annotations

import argparse

from memwarden.cli.common import (
    CliError,
    drain_if_embedded,
    open_engine,
    principal_from,
    print_json,
)


def cmd_pending(args: argparse.Namespace) -> int:
    from memwarden_gate.review import pending
    from memwarden_shared.state.auth import Forbidden

    engine = open_engine()
    try:
        print_json(pending(principal_from(args, engine), args.tenant, engine=engine))
    except Forbidden as exc:
        raise CliError(str(exc)) from None
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    from memwarden_gate.review import ReviewRefused, approve, reject
    from memwarden_shared.state.auth import Forbidden

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


def cmd_policy(args: argparse.Namespace) -> int:
    from memwarden_shared.store.db import utcnow
    from memwarden_shared.store.dialect import insert_ignore
    from memwarden_shared.store.schema import tenant_policies

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
