"""A Celery app with one no-op task, configured like memwarden's (JSON, acks late, prefetch 1),
to measure what the broker itself moves on this machine."""

from __future__ import annotations

import os

import redis
from celery import Celery

BROKER = os.environ.get("MEMWARDEN_BROKER_URL", "redis://127.0.0.1:6379/14")
app = Celery("noop", broker=BROKER)
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    broker_connection_retry_on_startup=True,
)
_counter = redis.Redis.from_url(BROKER)


@app.task(name="bench.noop")
def noop(payload: list[dict[str, str]]) -> None:
    _counter.incr("bench:noop:done")
