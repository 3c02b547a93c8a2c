"""Engine, unit of work, and the dialect split (SPEC §7): Postgres row locks, SQLite BEGIN
IMMEDIATE."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from pathlib import Path
from typing import Any, overload

import psycopg
from alembic import command
from alembic.config import Config
from psycopg.rows import dict_row
from sqlalchemy import (
    Connection,
    Engine,
    Table,
    and_,
    any_,
    bindparam,
    create_engine,
    event,
    select,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError

from memwarden_shared.config import get_settings
from memwarden_shared.store.rls import grant_app_role, require_guarded
from memwarden_shared.store.schema import FACT_KEY_COLUMNS, fact_keys
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
        if scope is not None:
            conn.exec_driver_sql("SELECT set_config(%s, %s, true)", (SETTING, scope))

    return engine


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


@cache
def engine_for(url: str) -> Engine:
    """One engine per URL per process. Never evicted: an engine dropped from a bounded cache
    is garbage-collected with its pooled connections still open (a process uses one or two
    URLs; a test session many)."""
    if url.startswith("sqlite"):
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

    @property
    def dialect(self) -> str:
        return self.conn.dialect.name


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
            conn.info.pop(AFTER_COMMIT, None)
            conn.info.pop(_SAVEPOINT_MARKS, None)
            if not uow.committed and conn.in_transaction():
                conn.rollback()


def in_list(conn: Connection, column: Any, values: Iterable[Any]) -> Any:
    """``column IN values`` that stays fast on PostgreSQL for long lists.

    SQLAlchemy sends ``IN (...)`` as one parameter per value, which PostgreSQL turns into a
    non-constant array: no hashing, every row compared with every value. One array
    parameter (``= ANY(%s)``) is a constant at execution, hashed and index-usable.
    """
    values = list(values)
    if conn.dialect.name == "postgresql":
        return column == any_(bindparam(None, values, type_=ARRAY(column.type)))
    return column.in_(values)


def pairs_in(conn: Connection, a: Any, b: Any, pairs: Iterable[tuple[Any, Any]]) -> Any:
    """A condition matching at least the given (a, b) pairs: ``a IN (...) AND b IN (...)``.

    A superset: callers keep only the pairs they asked for. PostgreSQL cannot use an index
    for a row-value ``(a, b) IN ((..), ..)`` list and compares every row against every
    pair, which grows with the table; two scalar lists use the indexes.
    """
    pairs = list(pairs)
    return and_(in_list(conn, a, {x for x, _ in pairs}), in_list(conn, b, {y for _, y in pairs}))


def insert_ignore(
    conn: Connection,
    table: Table,
    values: Mapping[str, Any] | list[dict[str, Any]],
    conflict_columns: list[str],
) -> None:
    """``INSERT … ON CONFLICT DO NOTHING`` of one row or many.

    Many rows go as executemany parameters, not as one ``.values([...])`` construct: the
    statement is then compiled once and cached, whatever the batch size.
    """
    stmt = insert_ignore_stmt(conn, table, conflict_columns)
    if isinstance(values, list):
        if values:
            conn.execute(stmt, values)
    else:
        conn.execute(stmt.values(values))


def insert_ignore_stmt(conn: Connection, table: Table, conflict_columns: list[str]) -> Any:
    """``INSERT … ON CONFLICT (conflict_columns) DO NOTHING`` in the connection's dialect."""
    dialect_insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    return dialect_insert(table).on_conflict_do_nothing(index_elements=conflict_columns)


def lock_fact_key(conn: Connection, key: Mapping[str, str], memory_id: str) -> dict[str, Any]:
    """Create the fact-key row if absent, then lock it; returns the locked row.

    INSERT … ON CONFLICT DO NOTHING first, so even a fact that does not exist yet has a row
    to lock and concurrent first writers serialise on it. On Postgres ``FOR UPDATE`` holds
    the row until commit; on SQLite the transaction already holds the database write lock
    (BEGIN IMMEDIATE), which serialises all writers.
    """
    insert_ignore(
        conn,
        fact_keys,
        {**key, "memory_id": memory_id, "current_version": 0, "updated_at": utcnow()},
        list(FACT_KEY_COLUMNS),
    )
    stmt = select(fact_keys).where(*(fact_keys.c[name] == value for name, value in key.items()))
    if conn.dialect.name == "postgresql":
        stmt = stmt.with_for_update()
    row = conn.execute(stmt).mappings().one()
    return dict(row)


def migrate(
    engine: Engine | None = None, *, app_role: str = "", app_role_password: str = ""
) -> None:
    """Bring the schema to Alembic head (idempotent), in one transaction.

    On PostgreSQL it then checks that every tenant table has its row-level security policy
    (shared.rls; a table without one rolls everything back) and, when ``app_role`` is
    given, grants that role row access to every table (so later tables are granted too).
    """
    engine = engine or get_engine()
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # Several workers may start at once; one migrates, the others wait and find head.
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(7210531)")
            # A data migration run by the owner sees every tenant (FORCE applies to owners).
            conn.exec_driver_sql("SELECT set_config(%s, %s, true)", (SETTING, ALL_TENANTS))
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
        require_guarded(conn)
        if app_role:
            grant_app_role(conn, app_role, app_role_password)


def in_param(conn: Connection, column: Any, name: str) -> Any:
    """``column IN :name`` with the list given at execution, so the statement is built and
    compiled once: one array parameter on PostgreSQL (see ``in_list``), an expanding list on
    SQLite."""
    if conn.dialect.name == "postgresql":
        return column == any_(bindparam(name, type_=ARRAY(column.type)))
    return column.in_(bindparam(name, expanding=True))


Params = Mapping[str, Any] | list[dict[str, Any]] | None


class Step:
    """One queued statement; ``rows`` (dicts) and ``rowcount`` are there after ``send()``.
    For executemany, ``rowcount`` is the total over all parameter sets."""

    __slots__ = ("_cursor", "build", "key", "params", "rowcount", "rows")

    def __init__(self, key: str, build: Any, params: Params) -> None:
        self.key = key
        self.build = build
        self.params = params
        self.rows: list[dict[str, Any]] = []
        self.rowcount = 0
        self._cursor: Any = None


# (dialect, key) -> the Core statement; (key, column keys) -> psycopg SQL + bind processors.
_statements: dict[tuple[str, str], Any] = {}
_pg_compiled: dict[tuple[str, tuple[str, ...]], tuple[Any, str, dict[str, Any]]] = {}


class Batch:
    """Statements of one transaction sent together, in the order queued.

    On PostgreSQL they go through psycopg's pipeline on the connection under ``conn`` (the
    same transaction): one round trip for the lot instead of one each, every statement
    compiled once per process (and prepared by psycopg once it repeats). On SQLite they run
    one after another through ``conn``. Each statement is a Core construct built once per
    dialect by ``build(conn)`` under a fixed ``key``, so both backends run the same SQL.
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
        if not steps:
            return
        if self.conn.dialect.name == "postgresql":
            _send_pg(self.conn, steps)
            return
        for step in steps:
            result = self.conn.execute(_statement(self.conn, step), step.params)
            if result.returns_rows:
                step.rows = [dict(r._mapping) for r in result]
            step.rowcount = result.rowcount


def _statement(conn: Connection, step: Step) -> Any:
    key = (conn.dialect.name, step.key)
    stmt = _statements.get(key)
    if stmt is None:
        stmt = _statements[key] = step.build(conn)
    return stmt


def _pg_sql(conn: Connection, step: Step) -> tuple[Any, str, dict[str, Any]]:
    first = step.params[0] if isinstance(step.params, list) else step.params
    columns = tuple(first) if first else ()
    found = _pg_compiled.get((step.key, columns))
    if found is None:
        stmt = _statement(conn, step)
        if getattr(stmt, "is_insert", False):
            compiled = stmt.compile(
                dialect=conn.dialect, column_keys=list(columns), for_executemany=True
            )
        else:
            compiled = stmt.compile(dialect=conn.dialect)
        # a statement whose every bind is a given parameter needs no construct_params per row
        plain = set(compiled.binds) <= set(columns)
        found = (compiled if not plain else None, compiled.string, dict(compiled._bind_processors))
        _pg_compiled[(step.key, columns)] = found
    return found


def _pg_params(compiled: Any, processors: dict[str, Any], params: Mapping[str, Any] | None) -> Any:
    """The parameters as SQLAlchemy would send them: literal binds filled in, bind
    processors (``UtcDateTime``) applied. No Python-side column defaults: none exist."""
    values = compiled.construct_params(params or {}) if compiled is not None else dict(params or {})
    for name, process in processors.items():
        if name in values:
            values[name] = process(values[name])
    return values


def _utc_row(row: dict[str, Any]) -> dict[str, Any]:
    # what ``UtcDateTime`` does to a value read through SQLAlchemy
    for name, value in row.items():
        if isinstance(value, datetime):
            row[name] = value.astimezone(UTC)
    return row


def _send_pg(conn: Connection, steps: list[Step]) -> None:
    raw = conn.connection.driver_connection
    assert raw is not None
    try:
        with raw.pipeline():
            for step in steps:
                compiled, sql, processors = _pg_sql(conn, step)
                cursor = raw.cursor(row_factory=dict_row)
                if isinstance(step.params, list):
                    params = [_pg_params(compiled, processors, p) for p in step.params]
                    cursor.executemany(sql, params)
                else:
                    cursor.execute(sql, _pg_params(compiled, processors, step.params))
                step._cursor = cursor
    except psycopg.Error as exc:
        # Raised as SQLAlchemy raises driver errors (IntegrityError, OperationalError, ...,
        # the SQLSTATE on .orig), so retries and refusals treat it as before; no parameters.
        raise sa_exc.DBAPIError.instance(
            "; ".join(step.key for step in steps),
            None,
            exc,
            psycopg.Error,
            hide_parameters=True,
            dialect=conn.dialect,
        ) from exc
    for step in steps:
        cursor, step._cursor = step._cursor, None
        step.rowcount = cursor.rowcount
        if cursor.description is not None:
            step.rows = [_utc_row(r) for r in cursor.fetchall()]
        cursor.close()
