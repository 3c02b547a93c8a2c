"""Commands on memories: list, recall, revoke, supersede, forget, reject, audit."""

from __future__ import annotations

import argparse
import sys

from memwarden.cli.common import (
    CliError,
    Unavailable,
    drain_if_embedded,
    get_settings,
    open_engine,
    print_json,
    read_text_arg,
)


def cmd_memories(args: argparse.Namespace) -> int:
    from memwarden_usecases.inspect import list_memories

    print_json(list_memories(open_engine(), args.tenant, args.subject))
    return 0


def cmd_proposals(args: argparse.Namespace) -> int:
    from memwarden_usecases.inspect import list_proposals

    print_json(list_proposals(open_engine(), args.tenant, args.subject))
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    from memwarden_usecases import recall

    try:
        found = recall.recall(
            open_engine(),
            args.tenant,
            args.subject,
            args.query,
            k=args.k,
            scope_kind=args.scope_kind,
            purpose=args.purpose,
        )
    except recall.EmbedderMismatch as exc:
        raise Unavailable(str(exc)) from None
    except recall.EmbedderNotConfigured as exc:
        raise CliError(str(exc)) from None
    if args.format == "context":
        sys.stdout.write(recall.context_block(found, args.lang))
        return 0
    if reason := recall.protected_reason(found):
        print_json({"memories": [], "protected_reason": reason})
        return 0
    print_json([r.as_json() for r in found])
    return 0


def cmd_why(args: argparse.Namespace) -> int:
    from memwarden_usecases.provenance import why

    found = why(open_engine(), args.tenant, args.memory)
    if found is None:
        raise CliError(f"no memory {args.memory} in tenant {args.tenant}")
    print_json(found)
    return 0


def cmd_reads(args: argparse.Namespace) -> int:
    from memwarden_usecases.provenance import prune_reads, reads

    if args.prune:
        print_json({"pruned": prune_reads(open_engine())})
        return 0
    if not (args.tenant and args.memory):
        raise CliError("reads needs --tenant and --memory (or --prune)")
    rows = reads(open_engine(), args.tenant, args.memory, limit=args.limit, before_id=args.before)
    print_json({"memory_id": args.memory, "reads": rows, "count": len(rows)})
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    from memwarden_usecases import retract

    try:
        changed = retract.revoke(open_engine(), args.tenant, args.message)
    except retract.UnknownMessage as exc:
        raise CliError(str(exc)) from None
    drain_if_embedded()
    print_json({"message_id": args.message, "revoked": changed})
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from memwarden_usecases import retract

    try:
        forgotten = retract.forget(open_engine(), args.tenant, args.message)
    except retract.UnknownMessage as exc:
        raise CliError(str(exc)) from None
    drain_if_embedded()
    print_json({"message_id": args.message, "memory_versions_forgotten": forgotten})
    return 0


def cmd_supersede(args: argparse.Namespace) -> int:
    from memwarden_usecases import retract

    text = read_text_arg(args.text, args.file)
    try:
        revision = retract.supersede(
            open_engine(),
            args.tenant,
            args.message,
            text,
            max_text_chars=get_settings().max_text_chars,
        )
    except (retract.UnknownMessage, retract.Refused) as exc:
        raise CliError(str(exc)) from None
    drain_if_embedded()
    print_json({"message_id": args.message, "revision": revision})
    return 0


def cmd_reject_memory(args: argparse.Namespace) -> int:
    from memwarden_usecases import retract

    try:
        version = retract.reject(open_engine(), args.tenant, args.memory)
    except retract.UnknownMemory as exc:
        raise CliError(str(exc)) from None
    drain_if_embedded()
    print_json({"memory_id": args.memory, "version": version, "status": "revoked"})
    return 0


def cmd_as_of(args: argparse.Namespace) -> int:
    from datetime import datetime

    from memwarden_usecases.recall import as_of

    try:
        valid_at = datetime.fromisoformat(args.valid_at)
        known_at = datetime.fromisoformat(args.known_at) if args.known_at else valid_at
    except ValueError as exc:
        raise CliError(f"timestamps must be ISO 8601 with an offset ({exc})") from None
    if valid_at.tzinfo is None or known_at.tzinfo is None:
        raise CliError("timestamps must carry a UTC offset, e.g. 2026-05-01T00:00:00Z")
    print_json(
        as_of(open_engine(), args.tenant, args.subject, valid_at=valid_at, known_at=known_at)
    )
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from memwarden_usecases.audit import audit

    report = audit(args.tenant, engine=open_engine())
    print_json(report.as_json())
    return 0 if report.clean else 1
