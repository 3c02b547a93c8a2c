"""``memwarden registry show|validate``: the key registry, and a tenant's own keys file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from memwarden.cli.common import CliError, print_json


def add_registry_commands(sub: Any) -> None:
    """Register ``registry show`` and ``registry validate``."""
    registry = sub.add_parser("registry", help="show the key registry or validate a tenant file")
    cmds = registry.add_subparsers(dest="registry_command", required=True)
    p = cmds.add_parser("show", help="the keys the gate accepts (built-in, plus a tenant's)")
    p.add_argument(
        "--tenant", help="add this tenant's keys from MEMWARDEN_TENANT_REGISTRY (or --file)"
    )
    p.add_argument("--file", type=Path, help="a tenant registry file to show with the built-ins")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=cmd_show)
    p = cmds.add_parser("validate", help="check a tenant registry file; exit 0 when usable")
    p.add_argument("file", type=Path, help="the tenant registry file (JSON)")
    p.set_defaults(handler=cmd_validate)


def _extended(path: Path, tenant: str | None) -> Any:
    from memwarden_shared.contract.registry import default_registry
    from memwarden_shared.contract.tenant_registry import TenantRegistryError, extend

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CliError(f"{path}: {exc.strerror or type(exc).__name__}") from None
    try:
        return extend(default_registry(), raw, str(path), tenant)
    except TenantRegistryError as exc:
        raise CliError(str(exc)) from None


def cmd_validate(args: argparse.Namespace) -> int:
    from memwarden_shared.contract.registry import default_registry

    registry = _extended(args.file, None)
    added = len(registry.keys) - len(default_registry().keys)
    sys.stdout.write(f"ok: {args.file}: {added} tenant keys, registry {registry.version}\n")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from memwarden_shared.config import get_settings
    from memwarden_shared.contract.registry import default_registry
    from memwarden_shared.contract.tenant_registry import tenant_file

    registry = default_registry()
    if args.file is not None:
        registry = _extended(args.file, args.tenant)
    elif args.tenant is not None:
        location = get_settings().tenant_registry
        path = tenant_file(location, args.tenant) if location is not None else None
        if path is not None:
            registry = _extended(path, args.tenant)
    rows = [_row(spec) for spec in registry.keys.values()]
    if args.json:
        print_json({"registry_version": registry.version, "keys": rows})
        return 0
    lines = [f"registry {registry.version}"]
    for r in rows:
        lines.append(
            f"{r['key']:<31} {r['type']:<10} {r['sensitivity']:<9} "
            f"{'multi' if r['multi_valued'] else 'single':<6} {','.join(r['scopes'])}"
        )
    sys.stdout.write("\n".join(lines) + "\n")  # plain lines: a pipe or grep reads them whole
    return 0


def _row(spec: Any) -> dict[str, Any]:
    return {
        "key": spec.normalized_key,
        "type": spec.value["type"],
        "sensitivity": spec.sensitivity.value,
        "multi_valued": spec.multi_valued,
        "scopes": list(spec.scopes),
        "retrieval_purposes": list(spec.retrieval_purposes),
        "description": spec.description,
        "key_aliases": spec.key_aliases,
    }
