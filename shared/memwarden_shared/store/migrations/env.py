"""Alembic environment: runs on the connection handed in by ``shared.db.migrate``,
or on ``MEMWARDEN_DATABASE_URL`` when called from the ``alembic`` command line."""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import Connection

from memwarden_shared.store.db import get_engine
from memwarden_shared.store.dialect import alters_in_batches
from memwarden_shared.store.schema import UtcDateTime, metadata

config = context.config


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    """Migrations name plain SQL types: UtcDateTime is a Python-side conversion only."""
    if type_ == "type" and isinstance(obj, UtcDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _upgrade(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=alters_in_batches(connection),
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _upgrade(connection)
        return
    with get_engine().connect() as conn:
        _upgrade(conn)
        conn.commit()


run()
