"""Logs are one JSON object per line and never carry a message's text or a memory's value."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
import redis
import structlog
from celery import Celery
from sqlalchemy import Engine

from memwarden_ingest.io import ingest_turns
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.contract.models import Turn
from memwarden_shared.delivery.pipeline import TASK_DECIDE
from memwarden_shared.delivery.publish import celery_publisher
from memwarden_shared.observe.logging import configure_logging, format_exception
from memwarden_usecases.pipeline import drain
from tests.conftest import REDIS_URL, turn_dict

CANARY = "zebra-quartz-lantern"


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """JSON logs at DEBUG into a buffer; the root logger is restored afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {name: logging.getLogger(name).level for name in ("alembic", "celery.pool")}
    stream = io.StringIO()
    configure_logging("DEBUG", json=True, stream=stream)
    yield stream
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, old in levels.items():
        logging.getLogger(name).setLevel(old)
    structlog.reset_defaults()


def records(stream: io.StringIO) -> list[dict[str, object]]:
    lines = stream.getvalue().splitlines()
    assert lines, "nothing was logged"
    return [json.loads(line) for line in lines]  # every line must be one JSON object


def test_logging__a_canary_through_the_pipeline_never_reaches_the_logs(
    sqlite_engine: Engine, tenant: str, log_stream: io.StringIO
) -> None:
    turns = [
        turn_dict(tenant, f"Remember that our canary phrase is {CANARY}.", message_id="c1"),
        turn_dict(tenant, "I prefer pnpm for all my JavaScript projects.", message_id="c2"),
    ]
    ingest_turns([Turn.model_validate(t) for t in turns], engine=sqlite_engine)
    drain(sqlite_engine)
    revoke_message(tenant, "c1", engine=sqlite_engine)
    drain(sqlite_engine)

    logged = records(log_stream)
    assert any(r["logger"] == "memwarden.gate" and "decided" in str(r["event"]) for r in logged)
    assert all({"timestamp", "level", "logger", "event"} <= r.keys() for r in logged)
    text = log_stream.getvalue()
    assert CANARY not in text
    assert "pnpm" not in text
    assert "canary phrase" not in text


def test_logging__content_keys_are_redacted_at_any_depth(log_stream: io.StringIO) -> None:
    structlog.get_logger("memwarden.test").info(
        "turn stored",
        text=CANARY,
        message_id="m1",
        nested={"payload": {"value": CANARY}, "items": [{"evidence": CANARY, "start": 3}]},
    )
    logging.getLogger("memwarden.test").info("stdlib %s", "works")
    native, stdlib = records(log_stream)
    assert CANARY not in log_stream.getvalue()
    assert native["text"] == "<redacted>"
    assert native["message_id"] == "m1"
    assert native["nested"] == {
        "payload": "<redacted>",
        "items": [{"evidence": "<redacted>", "start": 3}],
    }
    assert stdlib["event"] == "stdlib works"


def test_logging__an_exception_keeps_its_frames_and_type_but_not_its_message(
    log_stream: io.StringIO,
) -> None:
    log = logging.getLogger("memwarden.test")
    try:
        raise ValueError(f"bad value {CANARY}")
    except ValueError:
        log.exception("stage failed")
    try:
        raise ConnectionRefusedError("connection refused by 127.0.0.1:6379")
    except ConnectionRefusedError:
        log.warning("broker down", exc_info=True)
    failed, down = records(log_stream)
    assert CANARY not in log_stream.getvalue()
    assert "ValueError: <message withheld>" in str(failed["exception"])
    assert "test_logging.py" in str(failed["exception"])  # frames stay: they carry no data
    assert "connection refused by 127.0.0.1:6379" in str(down["exception"])


def test_logging__a_sqlalchemy_error_shows_the_driver_error_without_its_parameters() -> None:
    import sqlite3

    from sqlalchemy.exc import IntegrityError, OperationalError

    locked = OperationalError(
        "UPDATE outbox SET x=?", (CANARY,), sqlite3.OperationalError("locked")
    )
    shown = format_exception(locked)
    assert CANARY not in shown and "UPDATE" not in shown
    assert "sqlite3.OperationalError: locked" in shown
    failing_row = IntegrityError(
        "INSERT", (CANARY,), sqlite3.IntegrityError(f"Failing row contains ({CANARY})")
    )
    assert CANARY not in format_exception(failing_row)


def test_logging__celery_task_failures_withhold_the_exception_repr(
    log_stream: io.StringIO,
) -> None:
    probe = Celery("probe", broker="memory://")

    @probe.task(name="probe.fail")
    def fail() -> None:
        raise ValueError(CANARY)

    fail.apply()
    probe.close()
    failure = [r for r in records(log_stream) if r["logger"] == "celery.app.trace"]
    assert failure, "Celery logged no failure line"
    assert "ValueError" in str(failure[-1]["event"])
    assert CANARY not in log_stream.getvalue()


def test_logging__console_format_is_redacted_too(sqlite_engine: Engine, tenant: str) -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    stream = io.StringIO()
    try:
        configure_logging("INFO", json=False, stream=stream)
        structlog.get_logger("memwarden.test").info("stored", value=CANARY)
        logging.getLogger("memwarden.test").info("plain line")
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        structlog.reset_defaults()
    out = stream.getvalue()
    assert "plain line" in out and "value=<redacted>" in out
    assert CANARY not in out
    with pytest.raises(json.JSONDecodeError):
        json.loads(out.splitlines()[0])


def test_logging__configuring_twice_keeps_one_handler() -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        configure_logging("INFO", json=True, stream=io.StringIO())
        configure_logging("WARNING", json=True, stream=io.StringIO())
        mine = [h for h in root.handlers if h.get_name() == "memwarden"]
        assert len(mine) == 1 and mine[0].level == logging.WARNING
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        structlog.reset_defaults()


@pytest.mark.redis
def test_logging__published_tasks_show_monitoring_a_count_not_the_payloads() -> None:
    """Flower, task events and ``celery inspect`` print a task's ``argsrepr``."""
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    app = Celery("probe", broker=REDIS_URL)
    try:
        envelope = {"id": 1, "topic": "proposal.submitted", "payload": {"value": CANARY}}
        celery_publisher(app)(TASK_DECIDE, "gate", [envelope])
    finally:
        app.close()
    [raw] = client.lrange("gate", 0, -1)
    client.flushdb()
    headers = json.loads(raw)["headers"]
    assert headers["argsrepr"] == "[<1 outbox events>]"
    assert CANARY not in json.dumps(headers)
