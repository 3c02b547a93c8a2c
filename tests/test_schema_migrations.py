"""shared/schema.py and the Alembic migrations describe the same schema, on both backends."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from memwarden.shared.schema import metadata
from sqlalchemy import Engine


def test_schema__migrated_store_matches_the_tables_in_code(store: Engine) -> None:
    with store.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
