"""``memwarden curate snapshot|plan|check|review|attest|publish|rollback|status|export``
(SPEC §15). Each prints JSON with ``run_id``, ``stage``, ``hash`` and counts; a refusal
prints its reason and exits 2; a check that finds problems prints them and exits 1."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from memwarden.cli.common import (
    CliError,
    drain_if_embedded,
    open_engine,
    principal_from,
    print_json,
)


def add_curate_commands(sub: Any) -> None:
    p = sub.add_parser("curate", help="rewrite a memory base as a release (SPEC §15)")
    p.set_defaults(handler=cmd_curate)
    p.add_argument("action", choices=tuple(STEPS), help="the curate step to run")
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


@dataclass(frozen=True)
class _Step:
    """What every curate step needs; ``curate`` is the use-case module, imported lazily."""

    curate: ModuleType
    engine: Any
    principal: Any
    args: argparse.Namespace
    settings: Any


def cmd_curate(args: argparse.Namespace) -> int:
    from memwarden_shared.config import get_settings
    from memwarden_shared.store.tenant_scope import tenant_scope
    from memwarden_usecases import curate

    engine = open_engine()
    principal = principal_from(args, engine)
    if args.tenant and args.tenant != principal.tenant_id:
        raise CliError(f"the API key belongs to tenant {principal.tenant_id}, not {args.tenant}")
    if args.action != "snapshot" and not args.run:
        raise CliError(f"curate {args.action} needs --run RUN_ID")
    step = _Step(curate, engine, principal, args, get_settings())
    # Row-level security: the run is the API key's tenant's (shared.tenant_scope).
    with tenant_scope(principal.tenant_id):
        try:
            return STEPS[args.action](step)
        except curate.CurateRefused as exc:
            detail = f" ({len(exc.problems)} problems: {exc.problems[:3]})" if exc.problems else ""
            raise CliError(f"{exc}{detail}") from None


def _show(step: _Step, out: dict[str, Any]) -> int:
    print_json(step.curate.summary(out))
    return 0


def _snapshot(step: _Step) -> int:
    args = step.args
    if not args.subject and not args.all_subjects:
        raise CliError("snapshot needs --subject S (repeatable) or --all-subjects")
    subjects = None if args.all_subjects else args.subject
    out = step.curate.snapshot(
        step.engine, step.principal, subjects, run_id=args.run, batch_size=args.batch_size
    )
    return _show(step, out)


def _plan(step: _Step) -> int:
    out = step.curate.plan(
        step.engine, step.principal, step.args.run, step.args.rewriter, step.settings
    )
    return _show(step, out)


def _check(step: _Step) -> int:
    """Exit 1 when the check finds problems (they are in the printed JSON)."""
    out = step.curate.check(step.engine, step.principal, step.args.run)
    _show(step, out)
    return 1 if out["problems"] else 0


def _review(step: _Step) -> int:
    out = step.curate.review(
        step.engine,
        step.principal,
        step.args.run,
        approve=not step.args.reject,
        reviewer_model=step.args.reviewer_model,
        settings=step.settings,
    )
    return _show(step, out)


def _attest(step: _Step) -> int:
    statement = _statement(step.args.statement)
    return _show(step, step.curate.attest(step.engine, step.principal, step.args.run, statement))


def _publish(step: _Step) -> int:
    out = step.curate.publish(step.engine, step.principal, step.args.run)
    drain_if_embedded()
    return _show(step, out)


def _rollback(step: _Step) -> int:
    out = step.curate.rollback(step.engine, step.principal, step.args.run)
    drain_if_embedded()
    return _show(step, out)


def _export(step: _Step) -> int:
    sys.stdout.write(step.curate.export(step.engine, step.principal, step.args.run))
    return 0


def _status(step: _Step) -> int:
    return _show(step, step.curate.run_status(step.engine, step.principal, step.args.run))


STEPS: dict[str, Callable[[_Step], int]] = {
    "snapshot": _snapshot,
    "plan": _plan,
    "check": _check,
    "review": _review,
    "attest": _attest,
    "publish": _publish,
    "rollback": _rollback,
    "status": _status,
    "export": _export,
}
