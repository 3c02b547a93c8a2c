"""Helpers every command uses: the engine, JSON in and out, credentials, refusals."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine

    from memwarden_shared.config import Settings

# Everything heavy (rich, SQLAlchemy, pydantic-settings, the store) is imported on first use:
# building the parser must stay cheap, so that `memwarden --version` and a usage error
# answer at once (issue 26 item 6; bench/cli_start.py measures it).


class _LazyConsole:
    """A rich ``Console`` created on first use."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def _real(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real(), name)

    # Special methods are looked up on the type, never through __getattr__: rich's Live
    # and Progress enter the console as a context manager.
    def __enter__(self) -> Console:
        return self._real().__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        self._real().__exit__(*exc_info)


console = cast("Console", _LazyConsole())
# Refusals go to stderr, one line each, so stdout stays the command's JSON.
err_console = cast("Console", _LazyConsole(stderr=True, soft_wrap=True))


def get_settings() -> Settings:
    from memwarden_shared.config import get_settings as settings

    return settings()


def get_engine() -> Engine:
    from memwarden_shared.store.db import get_engine as engine

    return engine()


class CliError(Exception):
    """A refusal the user can act on: printed without a traceback, exit code 2."""


class Unavailable(Exception):
    """Something the command needs is not there (database, broker, schema): exit code 3."""


def open_engine() -> Any:
    """The configured store, at the schema this code needs.

    An embedded SQLite file is this machine's own and is migrated here. A shared database
    (PostgreSQL) is migrated only by ``memwarden migrate`` or the migration Job, so no
    worker, relay or API pod needs DDL rights; behind, the command refuses in one line.
    """
    from memwarden_shared.store.db import migrate
    from memwarden_shared.store.dialect import is_embedded_store
    from memwarden_shared.store.schema_version import SchemaBehind, require_current_schema

    engine = get_engine()
    if is_embedded_store(engine):
        migrate(engine)
        return engine
    try:
        require_current_schema(engine)
    except SchemaBehind as exc:
        raise Unavailable(str(exc)) from None
    return engine


def migrate_configured_store() -> list[str]:
    """``memwarden migrate``: bring the configured store to head, check the row-level
    security of every table that can hold tenant data, make the system login
    (``MEMWARDEN_SYSTEM_DB_USER``) a member of the system role and grant the application
    role (``MEMWARDEN_APP_ROLE``) row access. Returns the tables judged tenant-free."""
    from memwarden_shared.store.db import migrate
    from memwarden_shared.store.rls import RlsError

    settings = get_settings()
    engine = get_engine()
    try:
        return migrate(
            engine,
            app_role=settings.app_role,
            app_role_password=settings.app_role_password.get_secret_value(),
            system_login=settings.system_db_user,
            system_login_password=settings.system_db_password.get_secret_value(),
        )
    except RlsError as exc:
        raise CliError(str(exc)) from None


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """One I-JSON object per line (shared.ijson); a bad line refuses the whole file, naming
    the line and the rule broken, never its content."""
    from memwarden_shared.contract.ijson import IJsonError, loads_strict

    rows = []
    with path.open("rb") as handle:  # bytes: invalid UTF-8 is a refusal, not a traceback
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = loads_strict(line)
            except IJsonError as exc:
                raise CliError(f"{path}:{number}: {exc.code}: {exc}") from None
            if not isinstance(row, dict):
                raise CliError(f"{path}:{number}: expected a JSON object")
            rows.append(row)
    return rows


def read_text_arg(text: str | None, path: Path | None) -> str:
    """``--text`` or ``--file`` as message text: UTF-8, no control characters (shared.models
    ``Text``), refused with a reason that quotes none of it."""
    from pydantic import TypeAdapter, ValidationError

    from memwarden_shared.contract.models import Text, safe_error_fields

    if text is None and path is not None:
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CliError(f"{path}: not UTF-8 (byte {exc.start})") from None
    try:
        return TypeAdapter(Text).validate_python(text or "")
    except ValidationError as exc:
        raise CliError(f"text refused ({'; '.join(safe_error_fields(exc))})") from None


def principal_from(args: argparse.Namespace, engine: Any) -> Any:
    from memwarden_shared.state.auth import Unauthenticated, authenticate_with

    try:
        return authenticate_with(engine, args.api_key or get_settings().api_key)
    except Unauthenticated as exc:
        raise CliError(f"{exc} (pass --api-key or set MEMWARDEN_API_KEY)") from None


def drain_if_embedded() -> None:
    """Embedded mode: run the write's cascade before the command prints its answer."""
    from memwarden_usecases.drain import drain_if_embedded as settle

    settle(get_engine(), get_settings())


# Operator commands whose work spans tenants: a JSONL file may name many (``--tenant`` is
# only the default for lines that name none), or the command reads shared tables of every
# tenant (outbox, dead letters). The list is in docs/decisions.md (row-level security).
SPANS_TENANTS = frozenset(
    {"ingest", "replay", "outbox", "deadletter", "canary", "holds", "reindex"}
)


@contextmanager
def command_scope(args: argparse.Namespace) -> Iterator[None]:
    """The row-level security scope a CLI command runs in (shared.tenant_scope).

    A command of one tenant (``--tenant``) sees that tenant only; the commands of
    :data:`SPANS_TENANTS` see every tenant; any other command starts with no scope (it sets
    its own once it knows the tenant, as ``submit`` and ``curate`` do from the API key, or
    its work sets one, as consumers and the audit do). On SQLite nothing changes."""
    from memwarden_shared.store.tenant_scope import all_tenants, tenant_scope

    if args.command in SPANS_TENANTS:
        with all_tenants(f"operator command {args.command}"):
            yield
    elif getattr(args, "tenant", None) and args.command != "curate":
        with tenant_scope(args.tenant):
            yield
    else:
        yield
