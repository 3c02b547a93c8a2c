"""A tenant's own registry keys (registry v2): a validated file, added for that tenant only.

``MEMWARDEN_TENANT_REGISTRY`` names a directory holding ``<tenant_id>.json`` files, or one
such file. Each file is a :class:`~memwarden_shared.contract.registry_file.TenantRegistryFile`: its
``tenant_id`` must be the tenant it is used for, every key is named ``<kind>.x_<name>``, a
built-in key is never redefined, and an unknown field refuses the whole file.

The gate asks :func:`registry_for` once per proposal. A tenant without a file gets the
built-in registry. A tenant whose file is unreadable or invalid also gets the built-in
registry, under a version marked ``+invalid``, so its own keys are refused as unknown (fail
closed) while its built-in memories keep working; the error is logged, and
``memwarden registry validate`` says what is wrong.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pydantic import ValidationError

from memwarden_shared.contract.registry import (
    Registry,
    check_prohibited_actions,
    file_digest,
    spec_of,
)
from memwarden_shared.contract.registry_file import TenantRegistryFile

log = logging.getLogger("memwarden.registry")


class TenantRegistryError(ValueError):
    """A tenant registry file that cannot be used as written; ``str()`` is one line."""


def _first_error(exc: ValidationError) -> str:
    err = exc.errors(include_input=False)[0]
    where = ".".join(str(p) for p in err["loc"]) or "file"
    return f"{where}: {err['msg']}"


def parse_tenant_file(raw: bytes, label: str) -> TenantRegistryFile:
    """The validated file; raises :class:`TenantRegistryError` with one line naming why."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise TenantRegistryError(f"{label}: not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise TenantRegistryError(f"{label}: not JSON ({exc.msg}, line {exc.lineno})") from None
    try:
        return TenantRegistryFile.model_validate(data)
    except ValidationError as exc:
        raise TenantRegistryError(f"{label}: {_first_error(exc)}") from None


def extend(base: Registry, raw: bytes, label: str, tenant_id: str | None = None) -> Registry:
    """``base`` plus the keys of the tenant file ``raw``; raises TenantRegistryError."""
    parsed = parse_tenant_file(raw, label)
    if tenant_id is not None and parsed.tenant_id != tenant_id:
        raise TenantRegistryError(f"{label}: tenant_id is not {tenant_id!r}")
    version = f"{base.version}+{parsed.registry_version}#{file_digest(raw)}"
    try:
        specs = [spec_of(entry) for entry in parsed.keys]
        check_prohibited_actions(specs, None)
        return base.with_keys(version, specs)
    except ValueError as exc:
        raise TenantRegistryError(f"{label}: {exc}") from None


def tenant_file(location: Path, tenant_id: str) -> Path | None:
    """The file holding ``tenant_id``'s keys under ``location`` (a directory or one file)."""
    if location.is_dir():
        candidate = location / f"{tenant_id}.json"
        return candidate if candidate.is_file() else None
    if location.is_file():
        try:
            declared = json.loads(location.read_bytes()).get("tenant_id")
        except (ValueError, AttributeError):
            return location  # unreadable: let extend() say why, for every tenant
        return location if declared == tenant_id else None
    return None


# (location, tenant, mtime_ns, size) -> registry: a changed file is re-read, an unchanged
# one is not parsed again for every proposal.
_CACHE: dict[tuple[str, str, int, int, str], Registry] = {}


def registry_for(base: Registry, tenant_id: str, location: Path | None) -> Registry:
    """The registry the gate uses for ``tenant_id``: ``base`` plus the tenant's keys."""
    if location is None:
        return base
    path = tenant_file(location, tenant_id)
    if path is None:
        return base
    try:
        stat = path.stat()
        key = (str(path), tenant_id, stat.st_mtime_ns, stat.st_size, base.version)
        if key not in _CACHE:
            _CACHE[key] = extend(base, path.read_bytes(), path.name, tenant_id)
        return _CACHE[key]
    except (OSError, TenantRegistryError) as exc:
        log.error("tenant registry refused, its keys are unknown: %s", exc)
        return Registry(version=f"{base.version}+invalid", keys=base.keys)
