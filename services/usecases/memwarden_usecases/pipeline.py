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
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any

from sqlalchemy import Engine

from memwarden_extractor.rules import extract
from memwarden_extractor.tasks import extract_turns
from memwarden_gate import lexicon
from memwarden_gate.tasks import decide_proposals
from memwarden_replay.tasks import replay_chunk
from memwarden_revalidation.tasks import revalidate_evidence
from memwarden_shared.contract.models import Role, Source, Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.delivery.publish import Envelopes, in_process_publisher
from memwarden_shared.delivery.relay import drain_in_process
from memwarden_shared.store.db import engine_scope, get_engine
from memwarden_usecases.explain import explain
from memwarden_vector_sink.io import warm as sink_warm
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


# Sentences that take the extractor and the gate through their checks: English and Chinese,
# named and free-text values, a date, a secret-shaped token, a passing remark.
WARM_TEXTS = (
    "I prefer pnpm for all my projects. Remember that I review pull requests only in the "
    "afternoon. Use npm this time. My token is ghp_0123456789abcdefghijABCDEFGHIJ012345.",
    "我更喜欢深色主题。请记住，我每周二上午十点开周会。我写代码一直用 Vim。",
)


def warm(stage: Stage) -> None:
    """Load what a stage's first task would load lazily (patterns, word lists, jieba, the
    embedding model) before the worker takes a message, so that the first messages after a
    start wait in the queue for a ready worker instead of inside its first batch. Pure
    work on built-in sentences: nothing is read from or written to the store."""
    if stage == Stage.EXTRACTOR:
        # the extractor's own pass only: the gate's checks and ingest's masking would load
        # word lists and detector catalogues (about 250 MB) the extractor never consults
        registry = default_registry()
        for text in WARM_TEXTS:
            extract(_warm_turn(text), registry)
    if stage in (Stage.GATE, Stage.REPLAY):
        for text in WARM_TEXTS:
            explain(text)  # the extractor's pass, then the gate's checks on what it proposed
        lexicon.warm()
    if stage == Stage.VECTOR_SINK:
        sink_warm()


def _warm_turn(text: str) -> Turn:
    return Turn(
        tenant_id="warm",
        subject_id="warm",
        session_id="warm",
        message_id="warm",
        role=Role.USER,
        source=Source.USER_MESSAGE,
        text=text,
        created_at=datetime.now(UTC),
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
