"""Is the database's schema at the revision this code expects?

Only ``memwarden migrate`` (or the Kubernetes migration Job) changes the schema of a shared
database, so workers, relays and the API need no DDL rights. They call
:func:`require_current_schema` at start and refuse to run against an older schema.
"""

from __future__ import annotations

from functools import lru_cache

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from memwarden_shared.store.db import MIGRATIONS_DIR


class SchemaBehind(RuntimeError):
    """The database's schema is older than the code (or has never been migrated)."""


@lru_cache(maxsize=1)
def head_revisions() -> frozenset[str]:
    """The Alembic head revision(s) shipped with this code."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return frozenset(ScriptDirectory.from_config(config).get_heads())


def current_revisions(engine: Engine) -> frozenset[str]:
    """The revision(s) stamped in the database; empty when it was never migrated."""
    with engine.connect() as conn:
        return frozenset(MigrationContext.configure(conn).get_current_heads())


def require_current_schema(engine: Engine) -> None:
    """Raise :class:`SchemaBehind` with a one-line, actionable message unless the database is
    at head. The message names revisions only, never the URL (it may carry a password)."""
    current, head = current_revisions(engine), head_revisions()
    if current == head:
        return
    found = ", ".join(sorted(current)) or "none (never migrated)"
    raise SchemaBehind(
        f"database schema is at revision {found}, this code needs {', '.join(sorted(head))}; "
        "run `memwarden migrate` (or the migration Job) first"
    )
