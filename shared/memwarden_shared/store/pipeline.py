"""PostgreSQL only: a batch of statements sent through psycopg's pipeline, one round trip.

``store.dialect.send_steps`` chooses this on PostgreSQL. The statements run on the driver
connection under the caller's SQLAlchemy connection (the same transaction). Each one is
compiled once per process for the column keys it is given (and prepared by psycopg once it
repeats); driver errors are raised as SQLAlchemy raises them, so retries and refusals see
the usual ``IntegrityError`` / ``OperationalError`` with the SQLSTATE on ``.orig``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row
from sqlalchemy import Connection
from sqlalchemy import exc as sa_exc

# (step key, column keys) -> (compiled or None, SQL text, bind processors)
_compiled: dict[tuple[str, tuple[str, ...]], tuple[Any, str, dict[str, Any]]] = {}


def _sql(conn: Connection, step: Any, stmt: Any) -> tuple[Any, str, dict[str, Any]]:
    first = step.params[0] if isinstance(step.params, list) else step.params
    columns = tuple(first) if first else ()
    found = _compiled.get((step.key, columns))
    if found is None:
        if getattr(stmt, "is_insert", False):
            compiled = stmt.compile(
                dialect=conn.dialect, column_keys=list(columns), for_executemany=True
            )
        else:
            compiled = stmt.compile(dialect=conn.dialect)
        # a statement whose every bind is a given parameter needs no construct_params per row
        plain = set(compiled.binds) <= set(columns)
        found = (compiled if not plain else None, compiled.string, dict(compiled._bind_processors))
        _compiled[(step.key, columns)] = found
    return found


def _params(compiled: Any, processors: dict[str, Any], params: Mapping[str, Any] | None) -> Any:
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


def send(conn: Connection, steps: Sequence[Any], statements: Sequence[Any]) -> None:
    """Send every step's statement in one pipeline; fill each step's ``rows``/``rowcount``."""
    raw = conn.connection.driver_connection
    assert raw is not None
    cursors = []
    try:
        with raw.pipeline():
            for step, stmt in zip(steps, statements, strict=True):
                compiled, sql, processors = _sql(conn, step, stmt)
                cursor = raw.cursor(row_factory=dict_row)
                if isinstance(step.params, list):
                    params = [_params(compiled, processors, p) for p in step.params]
                    cursor.executemany(sql, params)
                else:
                    cursor.execute(sql, _params(compiled, processors, step.params))
                cursors.append(cursor)
    except psycopg.Error as exc:
        # no parameters in the message: they may hold a value or a message text
        raise sa_exc.DBAPIError.instance(
            "; ".join(step.key for step in steps),
            None,
            exc,
            psycopg.Error,
            hide_parameters=True,
            dialect=conn.dialect,
        ) from exc
    for step, cursor in zip(steps, cursors, strict=True):
        step.rowcount = cursor.rowcount
        if cursor.description is not None:
            step.rows = [_utc_row(r) for r in cursor.fetchall()]
        cursor.close()
