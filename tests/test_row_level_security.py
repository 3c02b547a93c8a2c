"""Row-level security (issue 13 item 7), on a real PostgreSQL server as the application role
(not the owner, not a superuser: a superuser bypasses row-level security)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from sqlalchemy import Engine, create_engine, insert, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ProgrammingError

from memwarden_shared.store.db import engine_for, migrate, unit_of_work, utcnow
from memwarden_shared.store.rls import (
    RlsError,
    enable_tenant_rls,
    grant_app_role,
    tenant_tables,
    unguarded_tenant_tables,
)
from memwarden_shared.store.schema import suppressions
from memwarden_shared.store.tenant_scope import all_tenants, current_scope, tenant_scope
from tests.conftest import APP_ROLE


def app_role_url(owner_url: str, role: str, password: str) -> str:
    return (
        make_url(owner_url)
        .set(username=role, password=password)
        .render_as_string(hide_password=False)
    )


pytestmark = pytest.mark.no_test_scope


def _suppression(tenant: str) -> dict[str, object]:
    return {
        "tenant_id": tenant,
        "subject_id": "u1",
        "content_hash": uuid.uuid4().hex,
        "created_at": utcnow(),
    }


@pytest.fixture
def two_tenants(pg_engine: Engine) -> tuple[str, str]:
    """Two tenants with one suppression row each, written under their own scope."""
    a, b = "t-" + uuid.uuid4().hex[:10], "t-" + uuid.uuid4().hex[:10]
    for tenant in (a, b):
        with tenant_scope(tenant), unit_of_work(pg_engine) as uow:
            uow.conn.execute(insert(suppressions).values(_suppression(tenant)))
            uow.commit()
    return a, b


def _tenants_seen(engine: Engine, tenants: tuple[str, str]) -> set[str]:
    """A query that forgets its tenant filter: which of ``tenants`` does it see?"""
    with unit_of_work(engine) as uow:
        seen = uow.conn.execute(select(suppressions.c.tenant_id)).scalars().all()
    return set(seen) & set(tenants)


def test_rls__the_test_role_is_not_the_owner_nor_a_superuser(pg_engine: Engine) -> None:
    with pg_engine.connect() as conn:
        row = conn.execute(
            text("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        ).one()
        owners = conn.execute(
            text("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'")
        ).scalars()
        assert conn.execute(text("SELECT current_user")).scalar_one() == APP_ROLE
        assert set(owners).isdisjoint({APP_ROLE})
    assert (row.rolsuper, row.rolbypassrls) == (False, False)


def test_rls__a_query_without_tenant_filter_sees_only_its_own_tenant(
    pg_engine: Engine, two_tenants: tuple[str, str]
) -> None:
    a, b = two_tenants
    with tenant_scope(a):
        assert _tenants_seen(pg_engine, two_tenants) == {a}
    with tenant_scope(b):
        assert _tenants_seen(pg_engine, two_tenants) == {b}


def test_rls__no_scope_sees_nothing_of_any_tenant(
    pg_engine: Engine, two_tenants: tuple[str, str]
) -> None:
    assert current_scope() is None
    assert _tenants_seen(pg_engine, two_tenants) == set()
    # Nor after an earlier scoped transaction on the same pooled connection: the setting
    # was transaction-local ('' now, not the old tenant).
    with tenant_scope(two_tenants[0]):
        assert _tenants_seen(pg_engine, two_tenants) == {two_tenants[0]}
    with pg_engine.connect() as conn:
        assert (
            set(conn.execute(select(suppressions.c.tenant_id)).scalars()) & set(two_tenants)
            == set()
        )


def test_rls__every_tenant_table_answers_nothing_without_a_scope(
    pg_engine: Engine, two_tenants: tuple[str, str]
) -> None:
    with all_tenants("test: list the tables"), pg_engine.connect() as conn:
        tables = tenant_tables(conn)
        assert conn.execute(text("SELECT count(*) FROM suppressions")).scalar_one() >= 2
    with pg_engine.connect() as conn:
        for table in tables:
            assert conn.execute(text(f'SELECT count(*) FROM "{table}"')).scalar_one() == 0, table


def test_rls__the_all_tenants_marker_sees_every_tenant_only_where_used(
    pg_engine: Engine, two_tenants: tuple[str, str]
) -> None:
    with tenant_scope(two_tenants[0]):
        with all_tenants("test: a system read"):
            assert _tenants_seen(pg_engine, two_tenants) == set(two_tenants)
        assert _tenants_seen(pg_engine, two_tenants) == {two_tenants[0]}  # restored
    assert _tenants_seen(pg_engine, two_tenants) == set()


def test_rls__cross_tenant_insert_is_refused_by_with_check(
    pg_engine: Engine, two_tenants: tuple[str, str]
) -> None:
    a, b = two_tenants
    with (
        tenant_scope(a),
        unit_of_work(pg_engine) as uow,
        pytest.raises(ProgrammingError, match="row-level security"),
    ):
        uow.conn.execute(insert(suppressions).values(_suppression(b)))


def test_rls__insert_without_a_scope_is_refused(pg_engine: Engine) -> None:
    with (
        unit_of_work(pg_engine) as uow,
        pytest.raises(ProgrammingError, match="row-level security"),
    ):
        uow.conn.execute(insert(suppressions).values(_suppression("t-" + uuid.uuid4().hex)))


def test_rls__moving_a_row_to_another_tenant_is_refused_and_others_rows_are_untouched(
    pg_engine: Engine, two_tenants: tuple[str, str]
) -> None:
    a, b = two_tenants
    with (
        tenant_scope(a),
        unit_of_work(pg_engine) as uow,
        pytest.raises(ProgrammingError, match="row-level security"),
    ):
        uow.conn.execute(
            update(suppressions).where(suppressions.c.tenant_id == a).values(tenant_id=b)
        )
    with tenant_scope(a), unit_of_work(pg_engine) as uow:
        # An UPDATE aimed at the other tenant's row matches nothing (its rows are invisible).
        touched = uow.conn.execute(
            update(suppressions).where(suppressions.c.tenant_id == b).values(subject_id="x")
        ).rowcount
        uow.commit()
    assert touched == 0
    with tenant_scope(b), unit_of_work(pg_engine) as uow:
        subjects = uow.conn.execute(
            select(suppressions.c.subject_id).where(suppressions.c.tenant_id == b)
        ).scalars()
        assert set(subjects) == {"u1"}


def test_rls__every_tenant_table_of_the_migrated_schema_has_an_enabled_forced_policy(
    pg_owner_url: str,
) -> None:
    """Guards future tables: a migration that adds a tenant_id table without calling
    enable_tenant_rls fails here (and `memwarden migrate` refuses it)."""
    engine = create_engine(pg_owner_url)
    try:
        with engine.connect() as conn:
            tables = tenant_tables(conn)
            assert "messages" in tables and "principals" in tables
            assert unguarded_tenant_tables(conn) == []
    finally:
        engine.dispose()


def test_rls__migrate_refuses_a_tenant_table_without_a_policy(fresh_pg_owner_url: str) -> None:
    engine = create_engine(fresh_pg_owner_url)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE late_table (tenant_id text NOT NULL, v int)")
        with pytest.raises(RlsError, match="late_table"):
            migrate(engine)
        with engine.begin() as conn:
            enable_tenant_rls(conn, "late_table")
        migrate(engine)  # now guarded: no refusal
    finally:
        engine.dispose()


def test_rls__grant_refuses_a_superuser_or_the_owner(fresh_pg_owner_url: str) -> None:
    engine = create_engine(fresh_pg_owner_url)
    try:
        with engine.begin() as conn:
            owner = conn.execute(text("SELECT current_user")).scalar_one()
            with pytest.raises(RlsError, match=r"bypasses|owns"):
                grant_app_role(conn, owner)
        with engine.begin() as conn, pytest.raises(RlsError, match="does not exist"):
            grant_app_role(conn, "memwarden_no_such_role_" + uuid.uuid4().hex[:6])
    finally:
        engine.dispose()


def test_rls__the_app_role_cannot_change_the_schema_or_its_version(fresh_pg_url: str) -> None:
    engine = engine_for(fresh_pg_url)
    try:
        with engine.connect() as conn, pytest.raises(ProgrammingError):
            conn.exec_driver_sql("ALTER TABLE messages DISABLE ROW LEVEL SECURITY")
        with engine.connect() as conn, pytest.raises(ProgrammingError):
            conn.exec_driver_sql("UPDATE alembic_version SET version_num = 'x'")
    finally:
        engine.dispose()


def _migrate_cli(owner_url: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden.cli", "migrate"],
        env={**os.environ, "MEMWARDEN_DATABASE_URL": owner_url, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_rls__memwarden_migrate_creates_the_app_role_which_then_sees_nothing_unscoped(
    fresh_pg_owner_url: str,
) -> None:
    role = "mw_app_" + uuid.uuid4().hex[:8]
    owner = create_engine(fresh_pg_owner_url)
    try:
        missing = _migrate_cli(fresh_pg_owner_url, MEMWARDEN_APP_ROLE=role)
        assert missing.returncode == 2 and "does not exist" in missing.stderr
        assert "Traceback" not in missing.stderr
        done = _migrate_cli(
            fresh_pg_owner_url, MEMWARDEN_APP_ROLE=role, MEMWARDEN_APP_ROLE_PASSWORD="pw-1"
        )
        assert done.returncode == 0, done.stderr
        with owner.begin() as conn:
            conn.execute(insert(suppressions).values(_suppression("t-owner-wrote")))
        app = engine_for(app_role_url(fresh_pg_owner_url, role, "pw-1"))
        try:
            with app.connect() as conn:
                assert conn.execute(text("SELECT count(*) FROM suppressions")).scalar_one() == 0
            with tenant_scope("t-owner-wrote"), app.connect() as conn:
                assert conn.execute(text("SELECT count(*) FROM suppressions")).scalar_one() == 1
        finally:
            app.dispose()
        again = _migrate_cli(fresh_pg_owner_url, MEMWARDEN_APP_ROLE=role)  # idempotent
        assert again.returncode == 0, again.stderr
    finally:
        with owner.begin() as conn:
            conn.exec_driver_sql(f"DROP OWNED BY {role}")
            conn.exec_driver_sql(f"DROP ROLE IF EXISTS {role}")
        owner.dispose()
