"""The stages wired into the pipeline table, and the embedded mode's drain.

This is the one place that imports every stage's Celery glue: each ``tasks.py`` registers
its handler under the task name the table (``memwarden_shared.delivery.pipeline``) routes
to, and a worker, the embedded drain or a test takes the handlers from here. ``shared``
never names a stage module.

In embedded mode the same task functions run here as in the Celery workers; only the
carrier differs (``delivery.publish.in_process_publisher``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from sqlalchemy import Engine

from memwarden_extractor.tasks import extract_turns
from memwarden_gate.tasks import decide_proposals
from memwarden_replay.tasks import replay_chunk
from memwarden_revalidation.tasks import revalidate_evidence
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.delivery.publish import Envelopes, in_process_publisher
from memwarden_shared.delivery.relay import drain_in_process
from memwarden_shared.store.db import engine_scope, get_engine
from memwarden_vector_sink.tasks import sync_memory_versions

# Each stage's Celery task (its handler), by stage: a worker serves its stage's queue with it.
STAGE_TASKS: Mapping[Stage, Any] = MappingProxyType(
    {
        Stage.EXTRACTOR: extract_turns,
        Stage.GATE: decide_proposals,
        Stage.REVALIDATION: revalidate_evidence,
        Stage.VECTOR_SINK: sync_memory_versions,
        Stage.REPLAY: replay_chunk,
    }
)


def _run_here(task: Any) -> Any:
    def run(envelopes: Envelopes) -> None:
        # apply(): the task runs as a worker runs it (signals, request context), in this thread
        task.apply(args=[envelopes], throw=True)

    return run


# The embedded carrier: a publisher that runs the routed task in this process.
run_task_locally = in_process_publisher(
    {task.name: _run_here(task) for task in STAGE_TASKS.values()}
)


def drain(engine: Engine | None = None) -> int:
    """Process every pending event (and the events they cause); returns how many."""
    engine = engine or get_engine()
    with engine_scope(engine):
        return drain_in_process(engine, run_task_locally)
