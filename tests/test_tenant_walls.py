"""Tenant walls with no gaps (issue 22 items 1-2), on a real PostgreSQL server.

One row of another tenant in EVERY table of the migrated schema, written by the owner; then
the application role, whatever it sets (``set_config`` of any value, ``RESET``, ``SET ROLE``),
sees none of them. The same rows are visible to that tenant's own scope (tenant tables) and
to the system login (every table), so the walls are shown to hold, not the table to be empty.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from memwarden_shared.store.db import engine_for, migrate, utcnow
from memwarden_shared.store.rls import (
    SYSTEM_ROLE,
    SYSTEM_TABLES,
    TENANT_FREE_TABLES,
    RlsError,
    all_tables,
    require_guarded,
    tenant_tables,
)
from memwarden_shared.store.schema import metadata
from memwarden_shared.store.tenant_scope import SETTING, tenant_scope
from tests.conftest import SYSTEM_LOGIN, SYSTEM_PASSWORD, app_url

pytestmark = pytest.mark.no_test_scope

OTHER = "t-other-" + uuid.uuid4().hex[:8]
BOUNDED = settings(
    max_examples=30,
    deadline=None,  # a loaded machine; the property is about rows, not time
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _value(column: Any, shared: dict[str, Any]) -> Any:
    """A value for ``column``; one per column name, so foreign keys (same name on both
    sides) line up across tables."""
    if column.name == "tenant_id":
        return OTHER
    if column.name not in shared:
        kind = getattr(column.type, "impl", column.type).python_type  # through decorators
        if kind is str:
            shared[column.name] = "v" + uuid.uuid4().hex
        elif kind is bool:
            shared[column.name] = False
        elif kind is datetime:
            shared[column.name] = utcnow()
        elif kind is bytes:
            shared[column.name] = uuid.uuid4().bytes
        elif kind is float:
            shared[column.name] = 1.0
        else:
            shared[column.name] = 1
    value = shared[column.name]
    length = getattr(column.type, "length", None)
    return value[:length] if isinstance(value, str) and length else value


def _seed_every_table(owner: Connection) -> None:
    shared: dict[str, Any] = {}
    for table in metadata.sorted_tables:
        row = {
            c.name: _value(c, shared)
            for c in table.columns
            if not (c.primary_key and c.autoincrement is True and c.type.python_type is int)
        }
        owner.execute(table.insert().values(row))


@pytest.fixture(scope="module")
def seeded(pg_owner_url: str) -> Iterator[str]:
    """The module's database with one row of ``OTHER`` in every table (owner URL)."""
    owner = create_engine(pg_owner_url)
    try:
        with owner.begin() as conn:
            superuser = "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
            assert conn.execute(text(superuser)).scalar_one()  # writes past the policies
            _seed_every_table(conn)
            tables = set(all_tables(conn))
        assert tables - TENANT_FREE_TABLES == {t.name for t in metadata.sorted_tables}
        yield pg_owner_url
    finally:
        owner.dispose()


def _system_url(owner_url: str) -> str:
    return (
        make_url(owner_url)
        .set(username=SYSTEM_LOGIN, password=SYSTEM_PASSWORD)
        .render_as_string(hide_password=False)
    )


def _visible(conn: Connection) -> dict[str, int]:
    return {
        t.name: conn.execute(text(f'SELECT count(*) FROM "{t.name}"')).scalar_one()
        for t in metadata.sorted_tables
    }


def test_walls__every_table_is_a_tenant_or_system_table_or_reviewed_tenant_free(
    seeded: str,
) -> None:
    owner = create_engine(seeded)
    try:
        with owner.connect() as conn:
            assert require_guarded(conn) == sorted(TENANT_FREE_TABLES)
            classes = set(tenant_tables(conn)) | SYSTEM_TABLES | TENANT_FREE_TABLES
            assert set(all_tables(conn)) <= classes
    finally:
        owner.dispose()


def test_walls__the_rows_are_there_for_their_tenant_and_the_system_login(seeded: str) -> None:
    """The positive control: without it, 'nothing visible' could mean 'nothing written'."""
    app = engine_for(app_url(seeded))
    system = create_engine(_system_url(seeded))
    try:
        with system.connect() as conn:
            assert set(_visible(conn).values()) == {1}
        with tenant_scope(OTHER), app.connect() as conn:
            conn.exec_driver_sql("SELECT set_config(%s, %s, true)", (SETTING, OTHER))
            seen = _visible(conn)
        assert {t for t, n in seen.items() if n} == {t.name for t in metadata.sorted_tables} - (
            SYSTEM_TABLES
        )
    finally:
        system.dispose()
        app.dispose()


SETTINGS_AN_ATTACKER_TRIES = ["*", "", "%", "' OR true --", "t-other-%", "NULL", OTHER.upper()]


@given(value=st.one_of(st.sampled_from(SETTINGS_AN_ATTACKER_TRIES), st.text(max_size=40)))
@BOUNDED
def test_walls__the_app_role_sees_no_other_tenant_row_whatever_it_sets(
    seeded: str, value: str
) -> None:
    value = value.replace("\x00", "")
    app = engine_for(app_url(seeded))
    with app.connect() as conn:
        for is_local in (True, False):
            conn.exec_driver_sql("SELECT set_config(%s, %s, %s)", (SETTING, value, is_local))
            assert set(_visible(conn).values()) == {0}, value
        for reset in ("RESET memwarden.tenant", "RESET ALL", "RESET ROLE", "SET ROLE NONE"):
            conn.exec_driver_sql(reset)
            assert set(_visible(conn).values()) == {0}, reset
        conn.rollback()


@pytest.mark.parametrize(
    "attempt",
    [
        f"SET ROLE {SYSTEM_ROLE}",
        "SET ROLE postgres",
        f"SET SESSION AUTHORIZATION {SYSTEM_LOGIN}",
        f"GRANT {SYSTEM_ROLE} TO CURRENT_USER",
        "ALTER ROLE CURRENT_USER BYPASSRLS",
        "ALTER TABLE messages DISABLE ROW LEVEL SECURITY",
        "DROP POLICY tenant_isolation ON messages",
        "ALTER TABLE processed_events NO FORCE ROW LEVEL SECURITY",
    ],
)
def test_walls__the_app_role_cannot_take_another_role_or_loosen_a_policy(
    seeded: str, attempt: str
) -> None:
    app = engine_for(app_url(seeded))
    with app.connect() as conn:
        with pytest.raises(DBAPIError):
            conn.exec_driver_sql(attempt)
        conn.rollback()
        assert set(_visible(conn).values()) == {0}


def test_walls__system_work_on_a_login_without_the_system_role_is_refused(
    seeded: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No system login configured: work in all_tenants fails loudly, it never runs on the
    application role's view (where it would see nothing and stall)."""
    from memwarden_shared.config import get_settings
    from memwarden_shared.store import db
    from memwarden_shared.store.tenant_scope import all_tenants

    monkeypatch.setenv("MEMWARDEN_SYSTEM_DB_USER", "")
    get_settings.cache_clear()
    try:
        engine = db._postgres_engine(app_url(seeded))
        with (
            all_tenants("test: no system login"),
            pytest.raises(RlsError, match="system"),
            engine.begin() as conn,
        ):
            conn.exec_driver_sql("SELECT 1")
        engine.dispose()
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()


def test_walls__system_scope_routes_to_the_system_login(seeded: str) -> None:
    from memwarden_shared.store.tenant_scope import all_tenants

    app = engine_for(app_url(seeded))
    with all_tenants("test: a system read"), app.connect() as conn:
        assert conn.execute(text("SELECT current_user")).scalar_one() == SYSTEM_LOGIN
        assert set(_visible(conn).values()) == {1}
    with app.connect() as conn:
        assert conn.execute(text("SELECT current_user")).scalar_one() != SYSTEM_LOGIN


def test_walls__migrate_refuses_a_new_table_not_reviewed_as_tenant_free(
    fresh_pg_owner_url: str,
) -> None:
    """A table without tenant_id is tenant data until reviewed: it needs a policy or an
    entry in the allow-list."""
    engine = create_engine(fresh_pg_owner_url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE late_keys (event_key text NOT NULL)")
        with pytest.raises(RlsError, match="late_keys"):
            migrate(engine)
    finally:
        engine.dispose()
