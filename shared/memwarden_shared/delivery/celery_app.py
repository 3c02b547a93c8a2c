"""The Celery app: one queue per stage, at-least-once settings, JSON only, no result backend.

Routes live here (not in the services) so the relay can publish to a stage without
importing it.
"""

from __future__ import annotations

from enum import StrEnum

from celery import Celery
from kombu import Queue

from memwarden_shared.config import get_settings
from memwarden_shared.contract.models import Topic


class Stage(StrEnum):
    EXTRACTOR = "extractor"
    GATE = "gate"
    REVALIDATION = "revalidation"
    VECTOR_SINK = "vector_sink"
    REPLAY = "replay"  # distributed replay chunks: fed by `memwarden replay --distributed`


TASK_EXTRACT = "memwarden.extractor.extract_turns"
TASK_DECIDE = "memwarden.gate.decide_proposals"
TASK_REVALIDATE = "memwarden.revalidation.revalidate_evidence"
TASK_SYNC_INDEX = "memwarden.vector_sink.sync_memory_versions"
TASK_REPLAY_CHUNK = "memwarden.replay.replay_chunk"

ROUTES: dict[str, tuple[str, Stage]] = {
    Topic.TURN_RECEIVED: (TASK_EXTRACT, Stage.EXTRACTOR),
    Topic.PROPOSAL_SUBMITTED: (TASK_DECIDE, Stage.GATE),
    Topic.EVIDENCE_REVOKED: (TASK_REVALIDATE, Stage.REVALIDATION),
    Topic.EVIDENCE_SUPERSEDED: (TASK_REVALIDATE, Stage.REVALIDATION),
    Topic.MEMORY_COMMITTED: (TASK_SYNC_INDEX, Stage.VECTOR_SINK),
    Topic.MEMORY_REVOKED: (TASK_SYNC_INDEX, Stage.VECTOR_SINK),
}

STAGE_TASK_MODULES = {
    Stage.EXTRACTOR: "memwarden_extractor.tasks",
    Stage.GATE: "memwarden_gate.tasks",
    Stage.REVALIDATION: "memwarden_revalidation.tasks",
    Stage.VECTOR_SINK: "memwarden_vector_sink.tasks",
    Stage.REPLAY: "memwarden_replay.tasks",
}


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
        task_routes={
            **{task: {"queue": stage.value} for task, stage in ROUTES.values()},
            TASK_REPLAY_CHUNK: {"queue": Stage.REPLAY.value},  # no topic: the coordinator sends
        },
        worker_hijack_root_logger=False,
    )
    if settings.visibility_timeout <= settings.task_time_limit:
        raise ValueError("MEMWARDEN_VISIBILITY_TIMEOUT must exceed MEMWARDEN_TASK_TIME_LIMIT")
    return app


app = make_app()
