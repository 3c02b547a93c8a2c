"""The Celery app: one queue per stage, at-least-once settings, JSON only, no result backend.

Queues and task routes come from the pipeline table (``delivery.pipeline``); the stages
register their tasks on this app (``@app.task`` in their ``tasks.py``), and the layer that
starts a worker imports them (``memwarden_usecases.pipeline``).
"""

from __future__ import annotations

from celery import Celery
from kombu import Queue

from memwarden_shared.config import get_settings
from memwarden_shared.delivery.pipeline import STAGE_TASKS, Stage


def make_app() -> Celery:
    settings = get_settings()
    app = Celery("memwarden")
    app.conf.update(
        broker_url=settings.broker_url or "memory://",
        broker_connection_retry_on_startup=True,
        # At-least-once: ack after the task ran; a killed worker's message goes back.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # Redis redelivers unacked messages after this; it must exceed the task time limit
        # or a slow task would run twice concurrently.
        broker_transport_options={"visibility_timeout": settings.visibility_timeout},
        task_time_limit=settings.task_time_limit,
        task_soft_time_limit=max(settings.task_time_limit - 30, 10),
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        result_backend=None,
        task_queues=[Queue(stage.value) for stage in Stage],
        task_default_queue=Stage.GATE.value,
        task_routes={task: {"queue": stage.value} for stage, task in STAGE_TASKS.items()},
        worker_hijack_root_logger=False,
    )
    if settings.visibility_timeout <= settings.task_time_limit:
        raise ValueError("MEMWARDEN_VISIBILITY_TIMEOUT must exceed MEMWARDEN_TASK_TIME_LIMIT")
    return app


app = make_app()
