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
    from memwarden_shared.state.auth import Forbidden
    from memwarden_usecases.review import pending

    engine = open_engine()
    try:
        print_json(pending(engine, principal_from(args, engine), args.tenant))
    except Forbidden as exc:
        raise CliError(str(exc)) from None
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    from memwarden_shared.state.auth import Forbidden
    from memwarden_usecases import review

    engine = open_engine()
    principal = principal_from(args, engine)
    try:
        if args.command == "approve":
            outcome = review.approve(
                engine, principal, args.tenant, args.proposal, args.payload_hash
            )
        else:
            outcome = review.reject(engine, principal, args.tenant, args.proposal)
    except (review.ReviewRefused, Forbidden) as exc:
        raise CliError(f"{args.command} refused: {exc}") from None
    drain_if_embedded()
    print_json(outcome.__dict__)
    return 0


def cmd_policy(args: argparse.Namespace) -> int:
    from memwarden_usecases.review import set_policy

    set_policy(open_engine(), args.tenant, args.profile)
    print_json({"tenant_id": args.tenant, "profile": args.profile})
    return 0
