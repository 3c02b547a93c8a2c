"""Engine, unit of work, and batches of statements (SPEC §7). What differs between
PostgreSQL and SQLite (row locks, list parameters, insert-ignore, …) is ``store.dialect``."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Any, overload

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError

from memwarden_shared.config import get_settings
from memwarden_shared.store.dialect import (
    is_embedded_store,
    is_embedded_url,
    send_steps,
    store_url,
)
from memwarden_shared.store.rls import (
    RlsError,
    grant_app_role,
    grant_system_login,
    has_system_scope,
    require_guarded,
)
from memwarden_shared.store.tenant_scope import ALL_TENANTS, SETTING, current_scope

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_log = logging.getLogger("memwarden.db")


def utcnow() -> datetime:
    return datetime.now(UTC)


@overload
def as_utc(moment: datetime) -> datetime: ...
@overload
def as_utc(moment: None) -> None: ...
def as_utc(moment: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes; everything stored is UTC, so re-attach it."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def offset_minutes(moment: datetime) -> int:
    """The UTC offset a timestamp was written in, in minutes (stored beside the UTC value)."""
    offset = moment.utcoffset()
    return int(offset.total_seconds() // 60) if offset is not None else 0


def in_offset(moment: datetime, minutes: int) -> datetime:
    """A stored UTC timestamp shown again in the offset it was written in."""
    return moment.astimezone(timezone(timedelta(minutes=minutes)))


def dumps(value: Any) -> str:
    """JSON text as stored in ``*_json`` columns (UTF-8, no ASCII escaping, stable keys)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _sqlite_engine(url: str) -> Engine:
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url, hide_parameters=True, connect_args={"timeout": 30, "check_same_thread": False}
    )

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        # Take over transaction control from pysqlite so BEGIN IMMEDIATE is ours to issue.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the single writer
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # The database-level write lock is SQLite's stand-in for fact-key row locks:
        # taking it at BEGIN means two writers can never interleave read-then-write.
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


_scoped_engine: ContextVar[Engine | None] = ContextVar("memwarden_engine", default=None)


class SystemRoutedEngine(Engine):
    """A PostgreSQL engine of the application role whose system-scope work connects as the
    system login instead (shared.tenant_scope.all_tenants).

    The application role can never widen its own view (the policies name the system role,
    which it is not a member of), so work that spans tenants needs another login. Routing
    in ``connect`` (which ``begin`` and ``unit_of_work`` use) keeps every caller's engine
    argument as it is: the scope, not the caller, picks the login."""

    system: Engine | None = None

    def connect(self) -> Connection:
        if self.system is not None and current_scope() == ALL_TENANTS:
            return self.system.connect()
        return super().connect()

    def dispose(self, close: bool = True) -> None:
        super().dispose(close)
        if self.system is not None:
            self.system.dispose(close)


def system_url_for(url: str) -> str | None:
    """``url`` with the system login's credentials (``MEMWARDEN_SYSTEM_DB_USER``), or None
    when none is configured or ``url`` already is that login."""
    settings = get_settings()
    if not settings.system_db_user:
        return None
    parsed = make_url(url)
    if parsed.username == settings.system_db_user:
        return None
    return parsed.set(
        username=settings.system_db_user,
        password=settings.system_db_password.get_secret_value() or None,
    ).render_as_string(hide_password=False)


def _postgres_engine(url: str) -> Engine:
    engine = create_engine(
        url,
        hide_parameters=True,  # no error message ever quotes a value (a secret, a message)
        pool_size=10,
        max_overflow=20,
        # psycopg prepares statements it sees often; PostgreSQL would then reuse a generic
        # plan in which a list parameter is unknown (no hashing, no index on the list).
        # Custom plans keep batch lookups proportional to the batch, not to the table.
        connect_args={"options": "-c plan_cache_mode=force_custom_plan"},
    )
    _ping_after_idle(engine, PING_AFTER_IDLE_SECONDS)

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        # Row-level security: the transaction sees the tenant of the current scope only
        # (shared.tenant_scope). is_local => the setting ends with the transaction, so a
        # pooled connection never hands it on. No scope: nothing is set, every tenant
        # table answers nothing.
        scope = current_scope()
        if scope == ALL_TENANTS:
            _require_system_login(conn)
        elif scope is not None:
            conn.exec_driver_sql("SELECT set_config(%s, %s, true)", (SETTING, scope))

    system_url = system_url_for(url)
    if system_url is not None:
        # Same class layout, one more method: SQLAlchemy builds the engine, we route it.
        engine.__class__ = SystemRoutedEngine
        engine.system = engine_for(system_url)  # type: ignore[attr-defined]
    return engine


# conn.info of a DBAPI connection: whether its login holds the system scope (asked once).
_SYSTEM_LOGIN = "memwarden_system_login"


def _require_system_login(conn: Connection) -> None:
    """System-scope work on a login without the system role would see nothing and stall:
    refuse it loudly instead (fail closed, with the fix in the message)."""
    info = conn.connection.info
    if _SYSTEM_LOGIN not in info:
        info[_SYSTEM_LOGIN] = has_system_scope(conn)
    if not info[_SYSTEM_LOGIN]:
        raise RlsError(
            "work that spans tenants needs the system login: set MEMWARDEN_SYSTEM_DB_USER "
            "(and MEMWARDEN_SYSTEM_DB_PASSWORD) to a member of the memwarden_system role; "
            "see docs/operations.md"
        )


# A pooled connection used this recently is not pinged when it is checked out again.
PING_AFTER_IDLE_SECONDS = 2.0


def _ping_after_idle(engine: Engine, idle_seconds: float) -> None:
    """``pool_pre_ping``, but only for connections idle longer than ``idle_seconds``.

    A ping on every checkout is one more round trip per transaction, and a busy worker
    checks out one per batch. A connection that dies within seconds of its last use (a
    database restart) fails its next statement instead; SQLAlchemy then invalidates the
    pool, and callers retry transient errors (``shared.retry``)."""

    @event.listens_for(engine.pool, "checkin")
    def _checked_in(_dbapi_conn: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine.pool, "checkout")
    def _checked_out(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is not None and time.monotonic() - since < idle_seconds:
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
            dbapi_conn.rollback()  # the ping opened a transaction; start clean
        except Exception as exc:  # the pool replaces the connection and tries again
            raise DisconnectionError("stale pooled connection") from exc


def engine_for(url: str) -> Engine:
    """One engine per URL per process (``postgres://`` and ``postgresql://`` mean psycopg 3;
    another scheme raises ``dialect.UnsupportedStore``)."""
    return _engine_for(store_url(url))


@cache
def _engine_for(url: str) -> Engine:
    """Never evicted: an engine dropped from a bounded cache is garbage-collected with its
    pooled connections still open (a process uses one or two URLs; a test session many)."""
    if is_embedded_url(url):
        return _sqlite_engine(url)
    return _postgres_engine(url)


def get_engine() -> Engine:
    """The engine of the current scope (see ``engine_scope``), else the configured one."""
    return _scoped_engine.get() or engine_for(get_settings().resolved_database_url)


@contextmanager
def engine_scope(engine: Engine) -> Iterator[Engine]:
    """Run in-process tasks (embedded mode, eval, tests) against ``engine``."""
    token = _scoped_engine.set(engine)
    try:
        yield engine
    finally:
        _scoped_engine.reset(token)


# conn.info key: callables a unit of work runs once its transaction has committed (see
# ``after_commit``), and the marks of open savepoints into that list.
AFTER_COMMIT = "memwarden_after_commit"
_SAVEPOINT_MARKS = "memwarden_after_commit_marks"


def after_commit(conn: Connection, callback: Any) -> bool:
    """Run ``callback()`` after the caller's unit of work commits; dropped if it rolls back
    (or the savepoint it was registered in does). False when ``conn`` is not in a unit of
    work, so nothing will run: the caller must not rely on it."""
    callbacks = conn.info.get(AFTER_COMMIT)
    if callbacks is None:
        return False
    callbacks.append(callback)
    return True


@event.listens_for(Engine, "savepoint")
def _mark_savepoint(conn: Connection, name: str) -> None:
    if AFTER_COMMIT in conn.info:
        conn.info.setdefault(_SAVEPOINT_MARKS, []).append(len(conn.info[AFTER_COMMIT]))


@event.listens_for(Engine, "rollback_savepoint")
def _undo_savepoint(conn: Connection, name: str, context: Any) -> None:
    marks = conn.info.get(_SAVEPOINT_MARKS)
    if marks:
        del conn.info[AFTER_COMMIT][marks.pop() :]


@event.listens_for(Engine, "release_savepoint")
def _release_savepoint(conn: Connection, name: str, context: Any) -> None:
    marks = conn.info.get(_SAVEPOINT_MARKS)
    if marks:
        marks.pop()


class UnitOfWork:
    """One transaction. It rolls back unless ``commit()`` is called."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._committed = False

    def commit(self) -> None:
        self.conn.commit()
        self._committed = True
        callbacks = self.conn.info.pop(AFTER_COMMIT, None) or []
        self.conn.info.pop(_SAVEPOINT_MARKS, None)
        for callback in callbacks:
            try:
                callback()
            except Exception:  # committed already; what a callback hands on is redelivered
                _log.warning("an after-commit step failed; the outbox redelivers", exc_info=True)

    @property
    def committed(self) -> bool:
        return self._committed


@contextmanager
def unit_of_work(engine: Engine | None = None) -> Iterator[UnitOfWork]:
    """``with unit_of_work() as uow: ...; uow.commit()`` — anything else rolls back."""
    engine = engine or get_engine()
    with engine.connect() as conn:
        conn.begin()
        conn.info[AFTER_COMMIT] = []
        uow = UnitOfWork(conn)
        try:
            yield uow
        finally:
            # A connection the server dropped is invalidated: touching it again raises
            # PendingRollbackError, which would hide the OperationalError callers retry on.
            # Closing it (the ``with``) discards it and its transaction.
            if not conn.invalidated:
                conn.info.pop(AFTER_COMMIT, None)
                conn.info.pop(_SAVEPOINT_MARKS, None)
                if not uow.committed and conn.in_transaction():
                    conn.rollback()


def migrate(
    engine: Engine | None = None,
    *,
    app_role: str = "",
    app_role_password: str = "",
    system_login: str = "",
    system_login_password: str = "",
) -> list[str]:
    """Bring the schema to Alembic head (idempotent), in one transaction.

    On PostgreSQL it then checks that every table that can hold tenant data has its
    row-level security policies (shared.rls; one without rolls everything back), makes
    ``system_login`` a member of the system role, and grants ``app_role`` row access to
    every table (so later tables are granted too). Returns the tables judged tenant-free.
    The migrating owner sees every tenant as a member of the system role (shared.rls).
    """
    engine = engine or get_engine()
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        if not is_embedded_store(conn):
            # Several workers may start at once; one migrates, the others wait and find head.
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(7210531)")
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
        tenant_free = require_guarded(conn)
        if system_login:
            if system_login == app_role:
                raise RlsError("the system login and the application role must differ")
            grant_system_login(conn, system_login, system_login_password)
        if app_role:
            grant_app_role(conn, app_role, app_role_password)
    return tenant_free


Params = Mapping[str, Any] | list[dict[str, Any]] | None


class Step:
    """One queued statement; ``rows`` (dicts) and ``rowcount`` are there after ``send()``.
    For executemany, ``rowcount`` is the total over all parameter sets."""

    __slots__ = ("build", "key", "params", "rowcount", "rows")

    def __init__(self, key: str, build: Any, params: Params) -> None:
        self.key = key
        self.build = build
        self.params = params
        self.rows: list[dict[str, Any]] = []
        self.rowcount = 0


# (dialect, key) -> the Core statement, built once per process
_statements: dict[tuple[str, str], Any] = {}


class Batch:
    """Statements of one transaction sent together, in the order queued.

    On PostgreSQL they go through psycopg's pipeline on the connection under ``conn`` (the
    same transaction): one round trip for the lot instead of one each, every statement
    compiled once per process (and prepared by psycopg once it repeats). On SQLite they run
    one after another through ``conn`` (``store.dialect.send_steps``). Each statement is a
    Core construct built once per dialect by ``build(conn)`` under a fixed ``key``, so both
    backends run the same SQL.
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._queued: list[Step] = []

    def add(self, key: str, build: Any, params: Params = None) -> Step:
        """Queue ``build(conn)`` with one parameter set, a list (executemany; an empty list
        runs nothing) or none."""
        step = Step(key, build, params)
        if not (isinstance(params, list) and not params):
            self._queued.append(step)
        return step

    def send(self) -> None:
        steps, self._queued = self._queued, []
        if steps:
            send_steps(self.conn, steps, [_statement(self.conn, step) for step in steps])


def _statement(conn: Connection, step: Step) -> Any:
    key = (conn.dialect.name, step.key)
    stmt = _statements.get(key)
    if stmt is None:
        stmt = _statements[key] = step.build(conn)
    return stmt
