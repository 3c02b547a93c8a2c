"""Alembic environment: runs on the connection handed in by ``shared.db.migrate``,
or on ``MEMWARDEN_DATABASE_URL`` when called from the ``alembic`` command line."""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext

from memwarden_shared.store.db import get_engine
from memwarden_shared.store.schema import UtcDateTime, metadata

config = context.config


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    """Migrations name plain SQL types: UtcDateTime is a Python-side conversion only."""
    if type_ == "type" and isinstance(obj, UtcDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(
            connection=connection,
            target_metadata=metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            render_item=render_item,
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    with get_engine().connect() as conn:
        context.configure(
            connection=conn,
            target_metadata=metadata,
            render_as_batch=conn.dialect.name == "sqlite",
            render_item=render_item,
        )
        with context.begin_transaction():
            context.run_migrations()
        conn.commit()


run()
