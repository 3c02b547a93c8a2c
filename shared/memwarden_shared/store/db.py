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
    has_row_security,
    is_embedded_store,
    is_embedded_url,
    send_steps,
)
from memwarden_shared.store.rls import grant_app_role, require_guarded
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
            conn.info.pop(AFTER_COMMIT, None)
            conn.info.pop(_SAVEPOINT_MARKS, None)
            if not uow.committed and conn.in_transaction():
                conn.rollback()


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
        if not is_embedded_store(conn):
            # Several workers may start at once; one migrates, the others wait and find head.
            conn.exec_driver_sql("SELECT pg_advisory_xact_lock(7210531)")
        if has_row_security(conn):
            # A data migration run by the owner sees every tenant (FORCE applies to owners).
            conn.exec_driver_sql("SELECT set_config(%s, %s, true)", (SETTING, ALL_TENANTS))
        config.attributes["connection"] = conn
        command.upgrade(config, "head")
        require_guarded(conn)
        if app_role:
            grant_app_role(conn, app_role, app_role_password)


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
