"""Results of pure sentence checks, remembered per message for one gate batch, then forgotten.

The gate asks the same questions of the same text several times per proposal: the evidence
span is classified by the durability, grounding and negation checks, and the message is
scanned for secrets by two checks; a message with several proposals is asked again for each.
Inside :func:`batch_scope` and :func:`message_scope` a function wrapped with
:func:`per_batch` computes each distinct argument tuple once per message; anywhere else it
simply runs.

The memo is keyed by the message first, so two messages that happen to hold the same text
are still checked once each (the benchmarks repeat six sentences; a memo shared across
messages would measure them, not the gate). It lives in context variables set for the batch
and dropped after it: nothing is kept across batches, processes or threads.

Only pure functions of their arguments belong here (no settings, clock or registry read
inside). A list result is copied on every return, so a caller that edits its list cannot
change what the next caller sees.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from functools import wraps
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

# message key -> that message's memo, for the running batch
_batch: ContextVar[dict[Hashable, dict[tuple[Any, ...], Any]] | None] = ContextVar(
    "batch_memo_batch", default=None
)
# the memo of the message being checked now
_memo: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar("batch_memo", default=None)


@contextmanager
def batch_scope() -> Iterator[None]:
    """Remember :func:`per_batch` results until the block ends (a scope inside a scope
    shares the outer one)."""
    if _batch.get() is not None:
        yield
        return
    token = _batch.set({})
    try:
        yield
    finally:
        _batch.reset(token)


@contextmanager
def message_scope(message: Hashable | None) -> Iterator[None]:
    """Checks of one message (``None``: no message, nothing remembered); a no-op outside
    :func:`batch_scope`."""
    batch = _batch.get()
    memo = None if batch is None or message is None else batch.setdefault(message, {})
    token = _memo.set(memo)
    try:
        yield
    finally:
        _memo.reset(token)


def _exact(arg: Any) -> Any:
    # Equal is not always the same: two aware datetimes at one instant in two zones compare
    # equal but fall on different calendar days, which is what relative dates resolve to.
    # The instant and its offset fix the wall time (what the ISO form showed, cheaper).
    return (arg, arg.utcoffset()) if isinstance(arg, datetime) else arg


def per_batch(fn: _F) -> _F:
    """Wrap a pure function so that inside a message scope it runs once per arguments."""

    @wraps(fn)
    def wrapper(*args: Any) -> Any:
        memo = _memo.get()
        if memo is None:
            return fn(*args)
        key = (fn, *map(_exact, args))
        try:
            found = memo[key]
        except KeyError:
            found = memo[key] = fn(*args)
        return list(found) if isinstance(found, list) else found

    return wrapper  # type: ignore[return-value]
