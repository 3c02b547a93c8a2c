"""``memwarden curate snapshot|plan|check|review|attest|publish|rollback|status|export``
(SPEC §15). Each prints JSON with ``run_id``, ``stage``, ``hash`` and counts; a refusal
prints its reason and exits 2; a check that finds problems prints them and exits 1."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memwarden.cli.common import (
    CliError,
    drain_if_embedded,
    open_engine,
    principal_from,
    print_json,
)

ACTIONS = (
    "snapshot",
    "plan",
    "check",
    "review",
    "attest",
    "publish",
    "rollback",
    "status",
    "export",
)


def add_curate_commands(sub: Any) -> None:
    p = sub.add_parser("curate", help="rewrite a memory base as a release (SPEC §15)")
    p.set_defaults(handler=cmd_curate)
    p.add_argument("action", choices=ACTIONS, help="the curate step to run")
    p.add_argument("--tenant", help="the tenant (default: the API key's)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--subject", action="append", help="snapshot: a subject (repeatable)")
    who.add_argument("--all-subjects", action="store_true", help="snapshot: the whole tenant")
    p.add_argument("--run", help="the run id (snapshot: optional, else generated)")
    p.add_argument("--api-key", help="a principal's key (default MEMWARDEN_API_KEY)")
    p.add_argument(
        "--statement",
        help="attest: a JSON file ('-' for stdin) with plan_hash, saw_catalogue and sampled",
    )
    p.add_argument("--rewriter", default="rules", help="plan: rules | llm")
    p.add_argument("--reviewer-model", help="review: the model that reviews an LLM's plan")
    p.add_argument("--reject", action="store_true", help="review: request changes")
    p.add_argument("--batch-size", type=int, default=200, help="snapshot: memories per batch")


def _statement(arg: str | None) -> dict[str, Any]:
    if not arg:
        raise CliError("attest needs --statement FILE (JSON: plan_hash, saw_catalogue, sampled)")
    text = sys.stdin.read() if arg == "-" else Path(arg).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"--statement: not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise CliError("--statement: expected a JSON object")
    return data


def cmd_curate(args: argparse.Namespace) -> int:
    from memwarden_curate import doors
    from memwarden_curate.publish import publish, rollback
    from memwarden_curate.runs import CurateRefused
    from memwarden_curate.stages import (
        attest_plan,
        check_plan,
        make_plan,
        review_plan,
        take_snapshot,
    )
    from memwarden_shared.config import get_settings
    from memwarden_shared.store.tenant_scope import tenant_scope

    engine = open_engine()
    principal = principal_from(args, engine)
    if args.tenant and args.tenant != principal.tenant_id:
        raise CliError(f"the API key belongs to tenant {principal.tenant_id}, not {args.tenant}")
    if args.action != "snapshot" and not args.run:
        raise CliError(f"curate {args.action} needs --run RUN_ID")
    settings = get_settings()
    # Row-level security: the run is the API key's tenant's (shared.tenant_scope).
    with tenant_scope(principal.tenant_id):
        try:
            if args.action == "snapshot":
                if not args.subject and not args.all_subjects:
                    raise CliError("snapshot needs --subject S (repeatable) or --all-subjects")
                out = take_snapshot(
                    principal,
                    principal.tenant_id,
                    None if args.all_subjects else args.subject,
                    run_id=args.run,
                    batch_size=args.batch_size,
                    engine=engine,
                )
            elif args.action == "plan":
                out = make_plan(
                    principal, args.run, doors.rewriter(args.rewriter, settings), engine=engine
                )
            elif args.action == "check":
                out = check_plan(principal, args.run, engine=engine)
                print_json(doors.summary(out))
                return 1 if out["problems"] else 0
            elif args.action == "review":
                out = review_plan(
                    principal,
                    args.run,
                    approve=not args.reject,
                    reviewer=doors.reviewer(args.reviewer_model, settings),
                    engine=engine,
                )
            elif args.action == "attest":
                out = attest_plan(principal, args.run, _statement(args.statement), engine=engine)
            elif args.action == "publish":
                out = publish(principal, args.run, engine=engine)
                drain_if_embedded()
            elif args.action == "rollback":
                out = rollback(principal, args.run, engine=engine)
                drain_if_embedded()
            elif args.action == "export":
                sys.stdout.write(doors.snapshot_jsonl(principal, args.run, engine=engine))
                return 0
            else:
                out = doors.run_status(principal, args.run, engine=engine)
        except CurateRefused as exc:
            detail = f" ({len(exc.problems)} problems: {exc.problems[:3]})" if exc.problems else ""
            raise CliError(f"{exc}{detail}") from None
    print_json(doors.summary(out))
    return 0
