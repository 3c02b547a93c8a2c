"""Transient or permanent: which failures are worth another try, and how long to wait.

Transient means the same work can succeed unchanged a moment later: the connection or the
server went away, a deadlock or serialization failure chose us as the victim, a lock wait
timed out, or the broker was unreachable. Anything else (a bug, bad data, a violated
constraint) fails the same way every time and must be isolated, not retried.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from kombu.exceptions import OperationalError as KombuOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy import exc as sa_exc

# SQLSTATEs PostgreSQL documents as "try again": serialization_failure, deadlock_detected,
# lock_not_available, query_canceled (statement/lock timeout), admin_shutdown,
# crash_shutdown, cannot_connect_now, too_many_connections; class 08 is connection loss.
TRANSIENT_SQLSTATES = frozenset(
    {"40001", "40P01", "55P03", "57014", "57P01", "57P02", "57P03", "53300"}
)
TRANSIENT_SQLSTATE_CLASSES = frozenset({"08"})


def _sqlstate(exc: BaseException) -> str | None:
    for candidate in (exc, getattr(exc, "orig", None)):
        code = getattr(candidate, "sqlstate", None) or getattr(candidate, "pgcode", None)
        if isinstance(code, str):
            return code
    return None


def is_transient(exc: BaseException) -> bool:
    """True when retrying the same work unchanged may succeed (see the module docstring)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _is_transient_one(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def _is_transient_one(exc: BaseException) -> bool:
    code = _sqlstate(exc)
    if code is not None:
        return code in TRANSIENT_SQLSTATES or code[:2] in TRANSIENT_SQLSTATE_CLASSES
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, sa_exc.TimeoutError | sa_exc.DisconnectionError):
        return True  # pool exhausted or a connection dropped while checked out
    if isinstance(exc, sa_exc.OperationalError):
        # psycopg raises OperationalError without a SQLSTATE when the server is unreachable;
        # SQLite raises it for "database is locked".
        return True
    return _is_broker_error(exc)


def _is_broker_error(exc: BaseException) -> bool:
    return isinstance(
        exc,
        KombuOperationalError | RedisConnectionError | RedisTimeoutError | ConnectionError,
    )


def backoff_delays(base: float, cap: float, *, rng: random.Random | None = None) -> Iterator[float]:
    """Endless exponential backoff with full jitter: the n-th delay is uniform in
    [0, min(cap, base * 2**n)], so workers that failed together do not retry together."""
    rng = rng or random.Random()
    attempt = 0
    while True:
        yield rng.uniform(0, min(cap, base * 2**attempt))
        attempt = min(attempt + 1, 30)


def redacted(exc: BaseException) -> str:
    """A description of an error that holds no values: the class, the SQLSTATE and the
    constraint it names, and where it was raised. Never ``str(exc)``: database errors echo
    parameters, and a KeyError echoes the key."""
    parts = [type(exc).__name__]
    code = _sqlstate(exc)
    if code:
        parts.append(f"sqlstate={code}")
    orig = getattr(exc, "orig", exc)
    diag = getattr(orig, "diag", None)
    constraint = getattr(diag, "constraint_name", None)
    if constraint:
        parts.append(f"constraint={constraint}")
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        code_obj = tb.tb_frame.f_code
        where = code_obj.co_filename.rsplit("/", 1)[-1]
        parts.append(f"at={where}:{tb.tb_lineno}:{code_obj.co_name}")
    return " ".join(parts)[:500]


def error_class(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__qualname__}"[:200]
