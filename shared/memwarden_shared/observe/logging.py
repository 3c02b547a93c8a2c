"""Process logging: every line through structlog, as JSON or for a console, never with content.

Stdlib loggers (ours, Celery's, SQLAlchemy's) are routed through structlog's
``ProcessorFormatter``, so one handler renders everything the same way. Three processors keep
conversation text and memory values out of the logs:

- keys that carry content (``text``, ``value``, ``payload``, ``evidence``) are redacted at any
  depth of an event dict;
- exceptions are rendered as type and frames only; their messages are kept only for
  connection and operational errors, because the others (pydantic's ``ValidationError``,
  SQLAlchemy's statement errors with their parameters, Postgres' "Failing row contains")
  echo the data that caused them;
- Celery's task-trace lines format a context dict whose ``exc`` is the exception's repr; it is
  replaced by the same safe form.
"""

from __future__ import annotations

import logging
import re
import sys
import traceback
from collections.abc import Mapping
from types import TracebackType
from typing import Any, TextIO

import structlog
from celery import signals
from structlog.typing import EventDict, Processor, WrappedLogger

CONTENT_KEYS = frozenset({"text", "value", "payload", "evidence"})
REDACTED = "<redacted>"
WITHHELD = "<message withheld>"
_HANDLER_NAME = "memwarden"

# Exception types whose messages describe a connection or the database's state, never a row.
_SAFE_MESSAGE_TYPES = frozenset({"OSError", "OperationalError", "ConnectionError", "TimeoutError"})
# Celery formats "Retry in 2s: OperationalError(...)"; keep what precedes the parenthesis.
_EXC_REPR_HEAD = re.compile(r"^((?:Retry in \S+: )?[\w.]+)\(")

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def redact_content(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """Replace the value of every content-bearing key, at any depth, by ``<redacted>``."""
    return {key: _redact(key, value) for key, value in event_dict.items()}


def _redact(key: object, value: Any) -> Any:
    if isinstance(key, str) and key in CONTENT_KEYS:
        return REDACTED
    if isinstance(value, Mapping):
        return {k: _redact(k, v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact(None, v) for v in value]
    return value


def safe_message(exc: BaseException) -> str:
    """``Type: message`` for connection and operational errors, ``Type: <message withheld>``
    otherwise. A SQLAlchemy error contributes its driver error only, never its statement or
    parameters."""
    module = type(exc).__module__
    name = type(exc).__qualname__ if module == "builtins" else f"{module}.{type(exc).__qualname__}"
    orig = getattr(exc, "orig", None)
    if isinstance(orig, BaseException) and type(exc).__module__.startswith("sqlalchemy"):
        return f"{name} <- {safe_message(orig)}"
    if {cls.__name__ for cls in type(exc).__mro__} & _SAFE_MESSAGE_TYPES:
        first_line = str(exc).strip().splitlines()[:1]
        return f"{name}: {first_line[0]}" if first_line else name
    return f"{name}: {WITHHELD}"


def format_exception(exc: BaseException) -> str:
    """A traceback (files, lines, code) with every message passed through ``safe_message``."""
    chain: list[tuple[BaseException, str]] = []
    seen: set[int] = set()
    link: BaseException | None = exc
    how = ""
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        chain.append((link, how))
        if link.__cause__ is not None:
            link, how = link.__cause__, "The above exception was the direct cause of:"
        elif link.__context__ is not None and not link.__suppress_context__:
            link, how = link.__context__, "During handling of the above exception:"
        else:
            link = None
    parts: list[str] = []
    for i, (item, _) in enumerate(reversed(chain)):
        if i:
            parts.append(chain[len(chain) - i][1] + "\n")
        frames = traceback.extract_tb(item.__traceback__)
        if frames:
            parts.append("Traceback (most recent call last):\n")
            parts.extend(frames.format())
        parts.append(safe_message(item) + "\n")
    return "".join(parts).rstrip("\n")


def _exc_info(value: Any) -> ExcInfo | None:
    if isinstance(value, BaseException):
        return (type(value), value, value.__traceback__)
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[1], BaseException):
        return value
    if value is True:
        info = sys.exc_info()
        return info if info[1] is not None else None
    return None


def render_exception(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """Turn ``exc_info`` into a safe ``exception`` string (no locals, no raw messages)."""
    info = _exc_info(event_dict.pop("exc_info", None))
    if info is not None:
        event_dict["exception"] = format_exception(info[1])
        # A foreign line may have the raw message baked in ("... raised: ValueError('…')").
        event = event_dict.get("event")
        if isinstance(event, str):
            for raw in {repr(info[1]), str(info[1])}:
                if len(raw) > 3:
                    event = event.replace(raw, safe_message(info[1]))
            event_dict["event"] = event
    return event_dict


def scrub_celery_context(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """Re-render Celery's trace lines (``fmt % context``) with the exception repr made safe."""
    args = event_dict.pop("positional_args", None)
    record = event_dict.get("_record")
    if isinstance(args, Mapping) and "exc" in args and isinstance(record, logging.LogRecord):
        info = _exc_info(event_dict.get("exc_info"))
        context = dict(args)
        if info is not None:
            context["exc"] = safe_message(info[1])
        else:
            head = _EXC_REPR_HEAD.match(str(args["exc"]))
            context["exc"] = f"{head.group(1)}({WITHHELD})" if head else WITHHELD
        try:
            event_dict["event"] = str(record.msg) % context
        except (TypeError, KeyError, ValueError):
            event_dict["event"] = str(record.msg)
    return event_dict


def _chain() -> list[Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp"),
        scrub_celery_context,
        render_exception,
        redact_content,
    ]


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever ``sys.stderr`` is when a record is emitted, not when the handler
    was made: a stream swapped out and closed since (a test's capture, a daemon's redirect)
    must not turn every later log line into a "Logging error" traceback."""

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _value: TextIO) -> None:
        pass  # always the current sys.stderr


def configure_logging(level: str, *, json: bool, stream: TextIO | None = None) -> None:
    """Route all logging to one handler on ``stream`` (stderr) at ``level``.

    Idempotent: a second call replaces the handler the first one installed, so tests and
    commands may call it more than once.
    """
    renderer: Processor = (
        structlog.processors.JSONRenderer()
        if json
        # render_exception already made ``exc_info`` a safe string; the renderer prints it.
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[*_chain(), structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_chain(),
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        pass_foreign_args=True,
    )
    handler = logging.StreamHandler(stream) if stream is not None else _StderrHandler()
    handler.set_name(_HANDLER_NAME)
    # The handler carries the level, so a capture handler added later (the eval's secret
    # scan) can see every record without this one printing them.
    handler.setLevel(level.upper())
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.getLogger("alembic").setLevel(logging.WARNING)  # migrations run on every command
    # httpx logs one INFO line per request: an embedding or LLM call per recall is noise.
    logging.getLogger("httpx").setLevel(max(logging.WARNING, root.level))
    # At DEBUG the pool logs each task's arguments (outbox payloads, i.e. memory values).
    logging.getLogger("celery.pool").setLevel(max(logging.INFO, root.level))


def take_over_celery_logging() -> None:
    """Stop a Celery worker from installing its own handlers: with a receiver connected to
    ``setup_logging``, Celery leaves logging exactly as ``configure_logging`` set it."""
    signals.setup_logging.connect(_keep_logging, weak=False, dispatch_uid="memwarden-logging")
    # Warnings raised while the worker starts (e.g. Celery's privilege check) become records.
    logging.captureWarnings(True)


def _keep_logging(**_kwargs: Any) -> None:
    return None
