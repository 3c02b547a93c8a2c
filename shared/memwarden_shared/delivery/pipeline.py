"""The pipeline table (SPEC §8): which stage consumes each topic, and the Celery task and queue
that carry it there. One table; the relay, the direct handoff, the embedded drain and the
Celery app all read it, and nothing else names a route.

The table names tasks, not the modules that define them: a stage registers its handler
under its task name (``@app.task(name=...)`` in the stage's ``tasks.py``), and the use-case
layer (``memwarden_usecases.pipeline``) imports the stages. ``memwarden_shared`` never names
a stage module. The task names are on the wire (messages in flight carry them): never
rename one.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import NamedTuple

from memwarden_shared.contract.models import Topic


class Stage(StrEnum):
    """A stage, which is also the name of its Celery queue."""

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

# Each stage's one task: the handler its stage module registers under this name.
STAGE_TASKS: Mapping[Stage, str] = MappingProxyType(
    {
        Stage.EXTRACTOR: TASK_EXTRACT,
        Stage.GATE: TASK_DECIDE,
        Stage.REVALIDATION: TASK_REVALIDATE,
        Stage.VECTOR_SINK: TASK_SYNC_INDEX,
        Stage.REPLAY: TASK_REPLAY_CHUNK,  # no topic: the replay coordinator sends its chunks
    }
)


class Route(NamedTuple):
    """Where an event of a topic goes: the task that handles it, on its stage's queue."""

    task: str
    stage: Stage

    @property
    def queue(self) -> str:
        return self.stage.value


def _to(stage: Stage) -> Route:
    return Route(STAGE_TASKS[stage], stage)


ROUTES: Mapping[str, Route] = MappingProxyType(
    {
        Topic.TURN_RECEIVED: _to(Stage.EXTRACTOR),
        Topic.PROPOSAL_SUBMITTED: _to(Stage.GATE),
        Topic.EVIDENCE_REVOKED: _to(Stage.REVALIDATION),
        Topic.EVIDENCE_SUPERSEDED: _to(Stage.REVALIDATION),
        Topic.MEMORY_COMMITTED: _to(Stage.VECTOR_SINK),
        Topic.MEMORY_REVOKED: _to(Stage.VECTOR_SINK),
    }
)


def queues() -> list[str]:
    """Every stage queue, in a fixed order."""
    return [stage.value for stage in Stage]


def idle_topics(busy: set[str]) -> set[str]:
    """Topics whose destination queue is not in ``busy`` (holds no message): an event of
    one can go now; an overdue row of one was lost or is held by a dead or slow worker, not
    waiting in line."""
    return {topic for topic, route in ROUTES.items() if route.queue not in busy}


def busy_topics(busy: set[str]) -> set[str]:
    """Topics whose destination queue is in ``busy``: holds a message no worker took yet."""
    return {topic for topic, route in ROUTES.items() if route.queue in busy}
