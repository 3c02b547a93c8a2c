"""memwarden_shared.store.schema and the Alembic migrations: one schema, on both backends."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine

from memwarden_shared.store.schema import metadata


def test_schema__migrated_store_matches_the_tables_in_code(store: Engine) -> None:
    with store.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
