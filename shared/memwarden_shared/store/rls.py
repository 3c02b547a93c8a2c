"""Row-level security DDL (PostgreSQL): tenant policies, the application role's grants, and
the check that no tenant table is left without a policy.

A later migration that creates a table with a ``tenant_id`` column calls
``enable_tenant_rls(op.get_bind(), "the_table")`` after creating it. ``memwarden migrate``
refuses to finish (and rolls back) while any such table lacks an enabled, forced policy, so
a forgotten call cannot reach a deployment. On SQLite every function here is a no-op.
"""

from __future__ import annotations

import re

from sqlalchemy import Connection, text

from memwarden_shared.store.dialect import has_row_security
from memwarden_shared.store.tenant_scope import ALL_TENANTS, SETTING

POLICY = "tenant_isolation"
# ``(SELECT current_setting(...))`` is evaluated once per statement (an InitPlan), not per
# row. ``missing_ok => true`` gives NULL (or '' after an earlier transaction) when no scope
# is set: ``tenant_id = NULL`` is never true, so a forgotten scope sees and writes nothing.
_SCOPE = f"(SELECT current_setting('{SETTING}', true))"
TENANT_PREDICATE = f"(tenant_id = {_SCOPE} OR {_SCOPE} = '{ALL_TENANTS}')"

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class RlsError(RuntimeError):
    """The schema or the roles would leave tenant rows unguarded."""


def _ident(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise RlsError(f"not a plain identifier: {name!r}")
    return f'"{name}"'


def enable_tenant_rls(conn: Connection, table: str) -> None:
    """ENABLE + FORCE row-level security on ``table`` with the tenant policy (idempotent).

    FORCE makes the policy apply to the table owner too; only superusers and BYPASSRLS roles
    are exempt, which is why the processes must not connect as either."""
    if not has_row_security(conn):
        return
    name = _ident(table)
    conn.exec_driver_sql(f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY")
    conn.exec_driver_sql(f"ALTER TABLE {name} FORCE ROW LEVEL SECURITY")
    conn.exec_driver_sql(f"DROP POLICY IF EXISTS {POLICY} ON {name}")
    conn.exec_driver_sql(
        f"CREATE POLICY {POLICY} ON {name} USING {TENANT_PREDICATE} WITH CHECK {TENANT_PREDICATE}"
    )


def disable_tenant_rls(conn: Connection, table: str) -> None:
    """The downgrade of :func:`enable_tenant_rls`."""
    if not has_row_security(conn):
        return
    name = _ident(table)
    conn.exec_driver_sql(f"DROP POLICY IF EXISTS {POLICY} ON {name}")
    conn.exec_driver_sql(f"ALTER TABLE {name} NO FORCE ROW LEVEL SECURITY")
    conn.exec_driver_sql(f"ALTER TABLE {name} DISABLE ROW LEVEL SECURITY")


def tenant_tables(conn: Connection) -> list[str]:
    """Every table of the current schema with a ``tenant_id`` column."""
    rows = conn.execute(
        text(
            "SELECT c.table_name FROM information_schema.columns c "
            "JOIN information_schema.tables t "
            "  ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
            "WHERE c.table_schema = current_schema() AND c.column_name = 'tenant_id' "
            "  AND t.table_type = 'BASE TABLE' ORDER BY c.table_name"
        )
    )
    return [row[0] for row in rows]


def unguarded_tenant_tables(conn: Connection) -> list[str]:
    """Tenant tables without ENABLE + FORCE row-level security and the tenant policy."""
    rows = conn.execute(
        text(
            "SELECT c.relname FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r' "
            "  AND c.relrowsecurity AND c.relforcerowsecurity "
            "  AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid "
            "              AND p.polname = :policy AND p.polcmd = '*')"
        ),
        {"policy": POLICY},
    )
    guarded = {row[0] for row in rows}
    return [table for table in tenant_tables(conn) if table not in guarded]


def require_guarded(conn: Connection) -> None:
    """Raise :class:`RlsError` naming every tenant table without its policy."""
    if not has_row_security(conn):
        return
    missing = unguarded_tenant_tables(conn)
    if missing:
        raise RlsError(
            "tenant tables without row-level security: "
            + ", ".join(missing)
            + "; their migration must call memwarden_shared.store.rls.enable_tenant_rls"
        )


def grant_app_role(conn: Connection, role: str, password: str = "") -> None:
    """Let ``role`` (the processes' login) read and write rows, nothing more.

    Creates the role when it does not exist and ``password`` is given (this needs CREATEROLE);
    otherwise the role must exist. Refuses a role that would bypass row-level security (a
    superuser, BYPASSRLS, or the tables' owner — the connecting role). Idempotent: run by
    every ``memwarden migrate``, so tables added by later migrations are granted too.
    """
    if not has_row_security(conn):
        return
    name = _ident(role)
    found = conn.execute(
        text("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = :r"), {"r": role}
    ).first()
    if found is None:
        if not password:
            raise RlsError(
                f"application role {role} does not exist; create it (LOGIN, no BYPASSRLS) "
                "or set MEMWARDEN_APP_ROLE_PASSWORD so migrate creates it"
            )
        # The password is a bound literal of a utility statement: quote it as PostgreSQL does.
        quoted = conn.execute(text("SELECT quote_literal(:p)"), {"p": password}).scalar_one()
        conn.exec_driver_sql(
            f"CREATE ROLE {name} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE "
            f"PASSWORD {quoted}"
        )
    elif found.rolsuper or found.rolbypassrls:
        raise RlsError(
            f"application role {role} bypasses row-level security (superuser or BYPASSRLS)"
        )
    owns = conn.execute(
        text(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tableowner = :r"
        ),
        {"r": role},
    ).scalar_one()
    if role == conn.execute(text("SELECT current_user")).scalar_one() or owns:
        raise RlsError(f"application role {role} owns the tables; it must be a separate role")
    conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA {_ident(_schema(conn))} TO {name}")
    conn.exec_driver_sql(
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "
        f"{_ident(_schema(conn))} TO {name}"
    )
    conn.exec_driver_sql(
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {_ident(_schema(conn))} TO {name}"
    )
    # The schema version is read at start (shared.schema_version), written only by migrate.
    conn.exec_driver_sql(f"REVOKE INSERT, UPDATE, DELETE ON alembic_version FROM {name}")


def _schema(conn: Connection) -> str:
    return str(conn.execute(text("SELECT current_schema()")).scalar_one())
