"""The one place where PostgreSQL and SQLite differ (SQLAlchemy's dialect modules).

Everything else in memwarden asks here and never compares dialect names. Two kinds of
answer:

- **statement shapes**: the same intent, built per dialect (insert-ignore, upsert, row
  locks, list parameters, sending a batch of statements);
- **what the store can do**, named by what it means rather than by product, so a call
  site reads as its reason (``has_notify``, ``binds_arrays``, ``is_embedded_store``).

SQLite is the embedded store: one file of one machine, one writer at a time. Every
transaction begins with ``BEGIN IMMEDIATE`` (``store.db``), which holds the database write
lock until commit; that lock is SQLite's stand-in for PostgreSQL's row locks, so a row-lock
request is simply not needed there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from sqlalchemy import (
    JSON,
    Connection,
    Engine,
    Table,
    and_,
    any_,
    bindparam,
    func,
    or_,
    select,
    text,
    union,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Dialect, make_url

from memwarden_shared.store import pipeline

Bind = Connection | Engine | Dialect


def _postgres(bind: Bind) -> bool:
    dialect = bind if isinstance(bind, Dialect) else bind.dialect
    return dialect.name == "postgresql"


# --- what the store can do ------------------------------------------------------------------


def is_embedded_store(bind: Bind) -> bool:
    """The store is an embedded SQLite file: this machine's own (the process that opens it
    migrates it), one writer at a time (ids commit in the order they were given), and no
    other process shares it. PostgreSQL is the shared, distributed store."""
    return not _postgres(bind)


class UnsupportedStore(ValueError):
    """A database URL naming a store memwarden does not run on (its message names only the
    scheme, never the URL: it may hold a password)."""


# The schemes memwarden accepts, and the SQLAlchemy driver each means here: Heroku-style
# ``postgres://`` and a bare ``postgresql://`` (SQLAlchemy would pick psycopg2, which is not
# installed) both mean psycopg 3.
_DRIVER_OF_SCHEME = {
    "postgres": "postgresql+psycopg",
    "postgresql": "postgresql+psycopg",
    "postgresql+psycopg": "postgresql+psycopg",
    "sqlite": "sqlite",
    "sqlite+pysqlite": "sqlite+pysqlite",
}


def store_url(url: str) -> str:
    """``url`` with the driver memwarden uses for its scheme; :class:`UnsupportedStore` for
    any other scheme (MySQL, a misspelling), before a driver import can fail obscurely."""
    scheme, sep, rest = url.partition("://")
    driver = _DRIVER_OF_SCHEME.get(scheme.lower()) if sep else None
    if driver is None:
        shown = scheme if sep and len(scheme) <= 30 and scheme.isascii() else "(none)"
        raise UnsupportedStore(
            f"unsupported database URL scheme {shown!r}: memwarden runs on PostgreSQL "
            "(postgresql://, postgres://) or SQLite (sqlite:///path)"
        )
    return f"{driver}://{rest}"


def is_embedded_url(url: str) -> bool:
    """``is_embedded_store`` for a database URL, before any engine exists."""
    return make_url(url).get_backend_name() == "sqlite"


def has_row_security(bind: Bind) -> bool:
    """Row-level security policies exist (PostgreSQL); on SQLite the RLS DDL is a no-op."""
    return _postgres(bind)


def has_notify(bind: Bind) -> bool:
    """LISTEN/NOTIFY exists: a commit can wake a waiting relay (PostgreSQL)."""
    return _postgres(bind)


def binds_arrays(bind: Bind) -> bool:
    """A Python list binds as one array parameter (``unnest``, ``= ANY``), so a statement of
    fixed text can take a whole batch: the PostgreSQL fast paths are written for that."""
    return _postgres(bind)


def keeps_utc_offset(dialect: Dialect) -> bool:
    """The timestamp column keeps its offset (``timestamptz``); SQLite stores naive text."""
    return _postgres(dialect)


def alters_in_batches(bind: Bind) -> bool:
    """ALTER TABLE is done by copying the table (SQLite): Alembic's batch mode."""
    return not _postgres(bind)


# --- statement shapes -----------------------------------------------------------------------


def insert(bind: Bind, table: Table) -> Any:
    """The dialect's INSERT construct, which knows ``ON CONFLICT`` (both dialects spell it
    the same: ``on_conflict_do_nothing``, ``on_conflict_do_update``, ``excluded``)."""
    return (postgresql.insert if _postgres(bind) else sqlite.insert)(table)


def insert_ignore_stmt(
    bind: Bind, table: Table, conflict_columns: Sequence[str] | None = None
) -> Any:
    """``INSERT … ON CONFLICT (conflict_columns) DO NOTHING``. No columns: any unique
    constraint skips the row (the target must then be left open, or PostgreSQL raises on a
    conflict with a constraint it does not name)."""
    stmt = insert(bind, table)
    if conflict_columns is None:
        return stmt.on_conflict_do_nothing()
    return stmt.on_conflict_do_nothing(index_elements=list(conflict_columns))


def insert_ignore(
    conn: Connection,
    table: Table,
    values: Mapping[str, Any] | list[dict[str, Any]],
    conflict_columns: Sequence[str],
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


def upsert(
    bind: Bind,
    table: Table,
    conflict_columns: Sequence[str],
    set_: Callable[[Any], Mapping[str, Any]],
    where: Any = None,
) -> Any:
    """``INSERT … ON CONFLICT (conflict_columns) DO UPDATE SET set_(excluded) [WHERE where]``;
    ``set_`` gets the proposed row (``excluded``) to build the new values from."""
    stmt = insert(bind, table)
    return stmt.on_conflict_do_update(
        index_elements=list(conflict_columns), set_=dict(set_(stmt.excluded)), where=where
    )


def lock_rows(
    bind: Bind, stmt: Any, *, read: bool = False, skip_locked: bool = False, of: Any = None
) -> Any:
    """``stmt`` taking row locks until commit: ``FOR UPDATE`` (``read``: ``FOR SHARE``;
    ``skip_locked``: rows another transaction holds are left out) on PostgreSQL. SQLite
    returns ``stmt`` as it is: the transaction already holds the database write lock."""
    if not _postgres(bind):
        return stmt
    return stmt.with_for_update(read=read, skip_locked=skip_locked, of=of)


def relax_commit_durability(conn: Connection) -> None:
    """This transaction's commit does not wait for its WAL flush (PostgreSQL
    ``synchronous_commit = off``, for this transaction only): a crash may lose its last
    fraction of a second of rows, never corrupt them. For append-only audit rows written on a
    read path, where waiting for the disk would cost the read more than the row is worth.
    SQLite: nothing to change."""
    if _postgres(conn):
        conn.exec_driver_sql("SET LOCAL synchronous_commit TO OFF")


def hold_rows(conn: Connection, stmt: Any, *, read: bool = False) -> None:
    """Lock the rows ``stmt`` selects until commit, for their lock alone (``read``: shared
    locks, so only writers are waited for). Nothing to run on SQLite (see ``lock_rows``)."""
    if _postgres(conn):
        conn.execute(stmt.with_for_update(read=read)).all()


# The advisory-lock class of per-subject order locks (``lock_names``): the two-key form
# lives in a key space apart from the one-key locks (the migration lock in ``store.db``).
ORDER_LOCK_CLASS = 7210532
# The class of fact keys locked before their row exists (``memory_state.queue_lock``).
FACT_LOCK_CLASS = 7210533
# The class of evidence messages: a gate reading a message holds it shared, a command that
# takes the message back (revoke, forget, supersede) holds it alone (``state.message_locks``).
MESSAGE_LOCK_CLASS = 7210534

_LOCK_NAMES_SQL = (
    "SELECT pg_advisory_xact_lock{mode}(:cls, h) FROM (SELECT DISTINCT hashtext(k) AS h "
    "FROM unnest(CAST(:keys AS text[])) AS k ORDER BY h) AS ordered"
)


def _lock_names_sql(shared: bool) -> str:
    return _LOCK_NAMES_SQL.format(mode="_shared" if shared else "")


class QueuesSteps(Protocol):
    """A batch of statements (``store.db.Batch``) as the queued lock needs it."""

    conn: Connection

    def add(self, key: str, build: Any, params: Any = None, /) -> Any: ...


def lock_names(
    conn: Connection,
    names: Iterable[str],
    lock_class: int = ORDER_LOCK_CLASS,
    *,
    shared: bool = False,
) -> None:
    """Hold a lock per name until commit (PostgreSQL: transaction advisory locks in one
    sorted order, so two holders of overlapping sets cannot deadlock; distinct names that
    hash alike only wait for each other; ``shared`` holders wait only for an exclusive one).
    SQLite: the write lock already serializes."""
    keys = sorted(set(names))
    if not keys or not _postgres(conn):
        return
    conn.execute(text(_lock_names_sql(shared)), {"cls": lock_class, "keys": keys}).all()


def queue_lock_names(
    batch: QueuesSteps,
    key: str,
    names: Iterable[str],
    lock_class: int = ORDER_LOCK_CLASS,
    *,
    shared: bool = False,
) -> None:
    """``lock_names`` queued on the caller's batch (its statements after it run once the
    locks are held). Nothing is queued on SQLite."""
    keys = sorted(set(names))
    if keys and _postgres(batch.conn):
        sql = _lock_names_sql(shared)
        batch.add(key, lambda _conn: text(sql), {"cls": lock_class, "keys": keys})


def in_list(bind: Bind, column: Any, values: Iterable[Any]) -> Any:
    """``column IN values`` that stays fast on PostgreSQL for long lists.

    SQLAlchemy sends ``IN (...)`` as one parameter per value, which PostgreSQL turns into a
    non-constant array: no hashing, every row compared with every value. One array
    parameter (``= ANY(%s)``) is a constant at execution, hashed and index-usable.
    """
    values = list(values)
    if _postgres(bind):
        return column == any_(bindparam(None, values, type_=ARRAY(column.type)))
    return column.in_(values)


def pairs_in(bind: Bind, a: Any, b: Any, pairs: Iterable[tuple[Any, Any]]) -> Any:
    """A condition matching at least the given (a, b) pairs: ``a IN (...) AND b IN (...)``.

    A superset: callers keep only the pairs they asked for. PostgreSQL cannot use an index
    for a row-value ``(a, b) IN ((..), ..)`` list and compares every row against every
    pair, which grows with the table; two scalar lists use the indexes.
    """
    pairs = list(pairs)
    return and_(in_list(bind, a, {x for x, _ in pairs}), in_list(bind, b, {y for _, y in pairs}))


def in_param(bind: Bind, column: Any, name: str) -> Any:
    """``column IN :name`` with the list given at execution, so the statement is built and
    compiled once: one array parameter on PostgreSQL (see ``in_list``), an expanding list on
    SQLite."""
    if _postgres(bind):
        return column == any_(bindparam(name, type_=ARRAY(column.type)))
    return column.in_(bindparam(name, expanding=True))


def in_param_or_select(bind: Bind, column: Any, name: str, subquery: Any) -> Any:
    """``column`` is in the list given at execution as ``name`` or among ``subquery``'s rows.
    On PostgreSQL one semi-join over a UNION, so an index on ``column`` serves both; an OR
    of the two would scan the table. SQLite plans the OR of two IN lists well."""
    if _postgres(bind):
        given = select(func.unnest(bindparam(name, type_=ARRAY(column.type))))
        return column.in_(union(given, subquery))
    return or_(in_param(bind, column, name), column.in_(subquery))


def json_list_agg(bind: Bind, column: Any) -> Any:
    """An aggregate of ``column`` into a JSON array, read back as a Python list (None or
    ``[]`` when no row matched): ``json_agg`` on PostgreSQL, ``json_group_array`` on SQLite."""
    if _postgres(bind):
        return func.json_agg(column, type_=JSON)
    return func.json_group_array(column, type_=JSON)


class Queued(Protocol):
    """A statement queued on ``store.db.Batch``: sent by :func:`send_steps`, which fills
    ``rows`` and ``rowcount``."""

    key: str
    params: Any
    rows: list[dict[str, Any]]
    rowcount: int


def send_steps(conn: Connection, steps: Sequence[Queued], statements: Sequence[Any]) -> None:
    """Run ``statements`` (one per step, in order) in the caller's transaction.

    PostgreSQL: psycopg's pipeline, one round trip for the lot (``store.pipeline``).
    SQLite: one after another through ``conn`` (a local file: no round trips to save).
    """
    if _postgres(conn):
        pipeline.send(conn, steps, statements)
        return
    for step, stmt in zip(steps, statements, strict=True):
        result = conn.execute(stmt, step.params)
        if result.returns_rows:
            step.rows = [dict(r._mapping) for r in result]
        step.rowcount = result.rowcount
