"""``memwarden act`` and ``memwarden actions …``: ask the action gate before a side effect,
approve, report outcomes, and print the repair list of a retracted message (SPEC §14)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from memwarden.cli.common import CliError, open_engine, principal_from, print_json

API_KEY_HELP = "an API key (default MEMWARDEN_API_KEY)"


def add_action_commands(sub: Any) -> None:
    """Register ``act`` and ``actions approve|outcome|list|pending|affected``."""
    p = sub.add_parser("act", help="ask the action gate; prints the receipt with its decision")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument("--subject", required=True, help="subject id the action is for")
    p.add_argument("--intent", required=True, help="a registered intent, e.g. email.send")
    p.add_argument("--params", default="{}", help="JSON object of the action's parameters")
    p.add_argument(
        "--uses", action="append", default=[], help="memory_id[:version] relied on (repeatable)"
    )
    p.add_argument("--idempotency-key", required=True, help="the same key returns the same receipt")
    p.add_argument("--purpose", help="retrieval purpose the memories are read for")
    p.add_argument("--api-key", help="an action:request key (default MEMWARDEN_API_KEY)")
    p.set_defaults(handler=cmd_act)

    actions = sub.add_parser("actions", help="approve, report, list and repair actions")
    cmds = actions.add_subparsers(dest="actions_command", required=True)
    p = cmds.add_parser("approve", help="approve a NEEDS_APPROVAL action (another principal)")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument("--action", required=True, help="the action id from its receipt")
    p.add_argument("--request-hash", required=True, help="the receipt's request_hash")
    p.add_argument("--api-key", help="an action:approve key (default MEMWARDEN_API_KEY)")
    p.set_defaults(handler=cmd_approve)
    p = cmds.add_parser("outcome", help="report what happened to an allowed action")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument("--action", required=True, help="the action id from its receipt")
    p.add_argument(
        "--status",
        required=True,
        choices=("executed", "failed", "cancelled"),
        help="what happened to the side effect",
    )
    p.add_argument("--external-ref", help="the side effect's id elsewhere (job, message, …)")
    p.add_argument("--api-key", help="an action:request key (default MEMWARDEN_API_KEY)")
    p.set_defaults(handler=cmd_outcome)
    p = cmds.add_parser("list", help="actions that read any version of a memory")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument("--memory", required=True, help="memory id")
    p.set_defaults(handler=cmd_list)
    p = cmds.add_parser("pending", help="actions awaiting approval, with their params")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.set_defaults(handler=cmd_pending_actions)
    p = cmds.add_parser("affected", help="the repair list of a retracted message")
    p.add_argument("--tenant", required=True, help="tenant id")
    p.add_argument("--message", required=True, help="id of the retracted message")
    p.set_defaults(handler=cmd_affected)


def cmd_act(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from memwarden_shared.state.auth import Forbidden
    from memwarden_usecases import act

    try:
        params = json.loads(args.params)
    except json.JSONDecodeError as exc:
        raise CliError(f"--params is not JSON ({exc.msg})") from None
    try:
        req = act.ActionRequest(
            tenant_id=args.tenant,
            subject_id=args.subject,
            intent=args.intent,
            params=params,
            uses=args.uses,
            idempotency_key=args.idempotency_key,
            purpose=args.purpose,
        )
    except ValidationError as exc:
        fields = sorted({".".join(str(x) for x in e["loc"]) for e in exc.errors()})
        raise CliError(f"invalid action request: {', '.join(fields)}") from None
    engine = open_engine()
    principal = principal_from(args, engine)
    try:
        print_json(act.request(engine, principal, req))
    except act.ActionKeyConflict as exc:
        print_json(exc.receipt())
        return 1  # like HTTP 409: the key means another action
    except (act.UnknownIntent, Forbidden) as exc:
        raise CliError(str(exc)) from None
    return 0


def _refusals() -> tuple[type[Exception], ...]:
    from memwarden_shared.state.auth import Forbidden
    from memwarden_usecases.act import ActionRefused, UnknownAction

    return (ActionRefused, UnknownAction, Forbidden)


def cmd_approve(args: argparse.Namespace) -> int:
    from memwarden_usecases import act

    engine = open_engine()
    principal = principal_from(args, engine)
    try:
        print_json(act.approve(engine, principal, args.tenant, args.action, args.request_hash))
    except _refusals() as exc:
        raise CliError(f"approve refused: {exc}") from None
    return 0


def cmd_outcome(args: argparse.Namespace) -> int:
    from memwarden_usecases import act

    engine = open_engine()
    principal = principal_from(args, engine)
    try:
        receipt = act.outcome(
            engine,
            principal,
            args.tenant,
            args.action,
            act.OutcomeStatus(args.status),
            args.external_ref,
        )
    except _refusals() as exc:
        raise CliError(f"outcome refused: {exc}") from None
    print_json(receipt)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from memwarden_usecases import act

    print_json(act.for_memory(open_engine(), args.tenant, args.memory))
    return 0


def cmd_pending_actions(args: argparse.Namespace) -> int:
    from memwarden_usecases import act

    print_json(act.pending(open_engine(), args.tenant))
    return 0


def cmd_affected(args: argparse.Namespace) -> int:
    from memwarden_usecases import act

    print_json(act.affected(open_engine(), args.tenant, args.message))
    return 0
