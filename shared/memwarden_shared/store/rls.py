"""Row-level security DDL (PostgreSQL): the tenant and system policies, the two roles' grants,
and the check that no table that can hold tenant data is left without a policy.

Every table of the schema is in exactly one class:

- a **tenant table** has a ``tenant_id`` column and two policies: ``tenant_isolation`` (every
  role: the rows of the transaction's tenant only) and ``system_scope`` (the role
  :data:`SYSTEM_ROLE` only: every row). A migration that creates one calls
  :func:`enable_tenant_rls`;
- a **system table** (:data:`SYSTEM_TABLES`) holds tenant data that only system processes
  read and write (consumers' inbox keys, replay plans): the system policy alone, so the
  application role sees none of it, whatever it sets;
- a **tenant-free table** (:data:`TENANT_FREE_TABLES`, a reviewed allow-list) holds no tenant
  data at all and has no policy.

``memwarden migrate`` refuses to finish (and rolls back) while any table is outside these
classes or lacks its policies, and reports the tenant-free ones. The system scope is a role,
not a setting: the policies name :data:`SYSTEM_ROLE`, the application role is never a
member, so nothing it sets (``set_config``, ``RESET``, ``SET ROLE``) widens what it sees.
On SQLite every function here is a no-op.
"""

from __future__ import annotations

import re

from sqlalchemy import Connection, text

from memwarden_shared.store.dialect import has_row_security
from memwarden_shared.store.tenant_scope import KEY_HASH_SETTING, SETTING

POLICY = "tenant_isolation"
SYSTEM_POLICY = "system_scope"
KEY_LOOKUP_POLICY = "key_lookup"
# The group role the system policies name. NOLOGIN: logins of system processes are members
# of it (``grant_system_login``); the application role never is (``grant_app_role``).
SYSTEM_ROLE = "memwarden_system"

# Tenant data written and read by system processes only (no tenant request touches them).
SYSTEM_TABLES = frozenset({"processed_events", "replay_runs", "replay_checkpoints", "replay_plans"})
# Reviewed: no tenant data at all. A table added here needs a reason in docs/decisions.md.
TENANT_FREE_TABLES = frozenset({"alembic_version"})

# ``(SELECT current_setting(...))`` is evaluated once per statement (an InitPlan), not per
# row. ``missing_ok => true`` gives NULL (or '' after an earlier transaction) when no scope
# is set: ``tenant_id = NULL`` is never true, so a forgotten scope sees and writes nothing.
# No value widens it: every value names one tenant id at most.
_SCOPE = f"(SELECT current_setting('{SETTING}', true))"
TENANT_PREDICATE = f"(tenant_id = {_SCOPE})"
# The API learns a key's tenant from the key: a principal row is readable by the hash of
# its key alone (a 256-bit value only the key's holder can compute), nothing else.
KEY_LOOKUP_PREDICATE = f"(key_hash = (SELECT current_setting('{KEY_HASH_SETTING}', true)))"

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class RlsError(RuntimeError):
    """The schema or the roles would leave tenant rows unguarded."""


def _ident(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise RlsError(f"not a plain identifier: {name!r}")
    return f'"{name}"'


def ensure_system_role(conn: Connection) -> None:
    """Create :data:`SYSTEM_ROLE` (NOLOGIN, NOBYPASSRLS) if missing; race-free across
    concurrent migrations (CREATE ROLE has no IF NOT EXISTS). A migrating owner that is not
    a superuser becomes a member, so its data migrations see every tenant."""
    if not has_row_security(conn):
        return
    conn.exec_driver_sql(
        "DO $$ BEGIN "
        f"CREATE ROLE {_ident(SYSTEM_ROLE)} NOLOGIN NOSUPERUSER NOBYPASSRLS; "
        "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
    )
    superuser = conn.execute(
        text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
    ).scalar_one()
    if not superuser and not _is_member(conn):
        conn.exec_driver_sql(f"GRANT {_ident(SYSTEM_ROLE)} TO current_user")


def _is_member(conn: Connection, role: str | None = None) -> bool:
    """Whether ``role`` (default: the connected login) has the system role's rights."""
    who = "current_user" if role is None else ":who"
    return bool(
        conn.execute(
            text(
                "SELECT EXISTS (SELECT 1 FROM pg_roles s WHERE s.rolname = :system "
                f"AND pg_has_role({who}, s.oid, 'USAGE'))"
            ),
            {"system": SYSTEM_ROLE, **({"who": role} if role is not None else {})},
        ).scalar_one()
    )


def _force(conn: Connection, name: str) -> None:
    conn.exec_driver_sql(f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY")
    conn.exec_driver_sql(f"ALTER TABLE {name} FORCE ROW LEVEL SECURITY")
    conn.exec_driver_sql(f"DROP POLICY IF EXISTS {SYSTEM_POLICY} ON {name}")
    conn.exec_driver_sql(
        f"CREATE POLICY {SYSTEM_POLICY} ON {name} TO {_ident(SYSTEM_ROLE)} "
        "USING (true) WITH CHECK (true)"
    )


def enable_tenant_rls(conn: Connection, table: str) -> None:
    """ENABLE + FORCE row-level security on ``table`` with the tenant and system policies
    (idempotent).

    FORCE makes the policies apply to the table owner too; only superusers and BYPASSRLS
    roles are exempt, which is why the processes must not connect as either."""
    if not has_row_security(conn):
        return
    ensure_system_role(conn)
    name = _ident(table)
    _force(conn, name)
    conn.exec_driver_sql(f"DROP POLICY IF EXISTS {POLICY} ON {name}")
    conn.exec_driver_sql(
        f"CREATE POLICY {POLICY} ON {name} USING {TENANT_PREDICATE} WITH CHECK {TENANT_PREDICATE}"
    )
    if table == "principals":
        conn.exec_driver_sql(f"DROP POLICY IF EXISTS {KEY_LOOKUP_POLICY} ON {name}")
        conn.exec_driver_sql(
            f"CREATE POLICY {KEY_LOOKUP_POLICY} ON {name} FOR SELECT USING {KEY_LOOKUP_PREDICATE}"
        )


def enable_system_rls(conn: Connection, table: str) -> None:
    """ENABLE + FORCE row-level security on a system table: the system policy only."""
    if not has_row_security(conn):
        return
    ensure_system_role(conn)
    name = _ident(table)
    _force(conn, name)
    conn.exec_driver_sql(f"DROP POLICY IF EXISTS {POLICY} ON {name}")


def disable_tenant_rls(conn: Connection, table: str) -> None:
    """The downgrade of :func:`enable_tenant_rls` and :func:`enable_system_rls`."""
    if not has_row_security(conn):
        return
    name = _ident(table)
    for policy in (POLICY, SYSTEM_POLICY, KEY_LOOKUP_POLICY):
        conn.exec_driver_sql(f"DROP POLICY IF EXISTS {policy} ON {name}")
    conn.exec_driver_sql(f"ALTER TABLE {name} NO FORCE ROW LEVEL SECURITY")
    conn.exec_driver_sql(f"ALTER TABLE {name} DISABLE ROW LEVEL SECURITY")


def all_tables(conn: Connection) -> list[str]:
    """Every base table of the current schema."""
    rows = conn.execute(
        text(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' "
            "ORDER BY table_name"
        )
    )
    return [row[0] for row in rows]


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


def _with_policy(conn: Connection, policy: str) -> set[str]:
    """Tables with ENABLE + FORCE row-level security and ``policy`` for every command."""
    rows = conn.execute(
        text(
            "SELECT c.relname FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r' "
            "  AND c.relrowsecurity AND c.relforcerowsecurity "
            "  AND EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid "
            "              AND p.polname = :policy AND p.polcmd = '*')"
        ),
        {"policy": policy},
    )
    return {row[0] for row in rows}


def unguarded_tenant_tables(conn: Connection) -> list[str]:
    """Tables that can hold tenant data and lack their policies: tenant tables without the
    tenant and system policies, system tables without the system policy, and any other
    table not on the tenant-free allow-list (a new table is tenant data until reviewed)."""
    tenant = set(tenant_tables(conn))
    isolated, system = _with_policy(conn, POLICY), _with_policy(conn, SYSTEM_POLICY)
    missing = []
    for table in all_tables(conn):
        if table in tenant:
            ok = table in isolated and table in system and table not in TENANT_FREE_TABLES
        elif table in SYSTEM_TABLES:
            ok = table in system
        else:
            ok = table in TENANT_FREE_TABLES
        if not ok:
            missing.append(table)
    return missing


def require_guarded(conn: Connection) -> list[str]:
    """Raise :class:`RlsError` naming every table that can hold tenant data without its
    policies; else return the tables judged tenant-free (for ``migrate`` to report)."""
    if not has_row_security(conn):
        return []
    missing = unguarded_tenant_tables(conn)
    if missing:
        raise RlsError(
            "tables that can hold tenant data without row-level security: "
            + ", ".join(missing)
            + "; their migration must call memwarden_shared.store.rls.enable_tenant_rls "
            "(or enable_system_rls), or a reviewed entry in rls.TENANT_FREE_TABLES"
        )
    return sorted(set(all_tables(conn)) & TENANT_FREE_TABLES)


def allow_key_lookup(conn: Connection, key_hash: str) -> None:
    """Let this transaction read the principal whose key hashes to ``key_hash`` (only it)."""
    if has_row_security(conn):
        conn.execute(
            text("SELECT set_config(:name, :value, true)"),
            {"name": KEY_HASH_SETTING, "value": key_hash},
        )


def has_system_scope(conn: Connection) -> bool:
    """Whether the connected login sees every tenant: a member of :data:`SYSTEM_ROLE`, a
    superuser or BYPASSRLS (True on SQLite, which has no row-level security)."""
    if not has_row_security(conn):
        return True
    bypass = conn.execute(
        text("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user")
    ).scalar_one()
    return bool(bypass) or _is_member(conn)


def _table_grants(conn: Connection, name: str) -> None:
    schema = _ident(_schema(conn))
    conn.exec_driver_sql(f"GRANT USAGE ON SCHEMA {schema} TO {name}")
    conn.exec_driver_sql(
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {name}"
    )
    conn.exec_driver_sql(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {name}")
    # The schema version is read at start (shared.schema_version), written only by migrate.
    conn.exec_driver_sql(f"REVOKE INSERT, UPDATE, DELETE ON alembic_version FROM {name}")


def _login(conn: Connection, role: str, password: str, what: str, extra: str = "") -> bool:
    """Create the LOGIN ``role`` when missing and ``password`` is given; True if it exists
    (now). The password is a bound literal of a utility statement: quoted as PostgreSQL does."""
    found = conn.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first()
    if found is not None:
        return True
    if not password:
        raise RlsError(
            f"{what} {role} does not exist; create it (LOGIN, no BYPASSRLS{extra}) "
            "or set its password setting so migrate creates it"
        )
    quoted = conn.execute(text("SELECT quote_literal(:p)"), {"p": password}).scalar_one()
    conn.exec_driver_sql(
        f"CREATE ROLE {_ident(role)} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE "
        f"PASSWORD {quoted}"
    )
    return True


def _refuse_owner(conn: Connection, role: str, what: str) -> None:
    owns = conn.execute(
        text(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tableowner = :r"
        ),
        {"r": role},
    ).scalar_one()
    if role == conn.execute(text("SELECT current_user")).scalar_one() or owns:
        raise RlsError(f"{what} {role} owns the tables; it must be a separate role")


def grant_app_role(conn: Connection, role: str, password: str = "") -> None:
    """Let ``role`` (the application processes' login) read and write rows, nothing more.

    Creates the role when it does not exist and ``password`` is given (this needs CREATEROLE);
    otherwise the role must exist. Refuses a role that would see beyond its tenant (a
    superuser, BYPASSRLS, a member of the system role, or the tables' owner — the connecting
    role). Idempotent: run by every ``memwarden migrate``, so later tables are granted too.
    """
    if not has_row_security(conn):
        return
    _login(conn, role, password, "application role", ", not a member of " + SYSTEM_ROLE)
    found = conn.execute(
        text("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = :r"), {"r": role}
    ).one()
    if found.rolsuper or found.rolbypassrls:
        raise RlsError(
            f"application role {role} bypasses row-level security (superuser or BYPASSRLS)"
        )
    _refuse_owner(conn, role, "application role")
    if _is_member(conn, role):
        raise RlsError(f"application role {role} is a member of {SYSTEM_ROLE}; revoke it")
    _table_grants(conn, _ident(role))


def grant_system_login(conn: Connection, login: str, password: str = "") -> None:
    """Make ``login`` (the system processes' login) a member of :data:`SYSTEM_ROLE` with row
    access to every table; created when missing and ``password`` is given. Idempotent."""
    if not has_row_security(conn):
        return
    ensure_system_role(conn)
    _login(conn, login, password, "system login")
    _refuse_owner(conn, login, "system login")
    system = _ident(SYSTEM_ROLE)
    _table_grants(conn, system)
    if not _is_member(conn, login):
        conn.exec_driver_sql(f"GRANT {system} TO {_ident(login)}")


def _schema(conn: Connection) -> str:
    return str(conn.execute(text("SELECT current_schema()")).scalar_one())
