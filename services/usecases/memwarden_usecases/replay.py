"""Replay (SPEC §1.4): historical sessions (JSONL) through an extractor version and the real
gate, in process batch by batch or handed to ``replay`` workers chunk by chunk; resumable,
optionally in shadow mode. The doors reach ``memwarden_replay`` only through here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from memwarden_extractor.rules import EXTRACTOR_VERSION
from memwarden_replay import distributed
from memwarden_replay.distributed import Progress
from memwarden_replay.io import (
    BatchDone,
    ReplayOptions,
    ReplayPlan,
    ReplayRefused,
    plan_replay,
    run_replay,
)
from memwarden_replay.source import expand_paths, run_id_for
from memwarden_replay.tasks import publish_chunk
from memwarden_shared.config import Settings
from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.delivery.queues import redis_busy_queues
from memwarden_usecases.drain import drain

__all__ = [
    "BatchDone",
    "Progress",
    "ReplayOptions",
    "ReplayPlan",
    "ReplayRefused",
    "dispatch",
    "expand_paths",
    "failures",
    "finish",
    "open_distributed",
    "plan",
    "progress",
    "queue_watch",
    "recorded_version",
    "replay",
    "run",
    "run_id_for",
]


def recorded_version(extractor: str, extractor_version: str | None) -> str:
    """The extractor version as a run records it: naming the rules extractor's own version
    changes no run id; other extractors name theirs ("")."""
    return extractor_version or (EXTRACTOR_VERSION if extractor == "rules" else "")


def plan(engine: Engine, paths: list[Path], options: ReplayOptions) -> ReplayPlan:
    """Open the run (or reopen it to resume) and find where each file continues;
    :class:`ReplayRefused` changes nothing."""
    return plan_replay(paths, options, engine=engine)


def run(
    engine: Engine,
    planned: ReplayPlan,
    settings: Settings,
    *,
    on_batch: Callable[[BatchDone], None] | None = None,
) -> dict[str, Any]:
    """Every remaining batch of the plan; returns the run's report. Embedded (no broker) and
    not in shadow mode, each batch's events run in process before the next batch."""
    settle = None
    if settings.embedded and not planned.options.shadow:

        def settle() -> int:
            return drain(engine)

    return run_replay(planned, engine=engine, on_batch=on_batch, drain=settle)


def replay(
    engine: Engine,
    paths: list[Path],
    options: ReplayOptions,
    settings: Settings,
    *,
    on_batch: Callable[[BatchDone], None] | None = None,
) -> dict[str, Any]:
    """:func:`plan` then :func:`run`."""
    return run(engine, plan(engine, paths, options), settings, on_batch=on_batch)


def open_distributed(
    engine: Engine, paths: list[Path], options: ReplayOptions, *, lanes: int
) -> dict[str, Any]:
    """Record the run's plan in the store once (chunks of ``options.batch_size`` turns, at
    most ``lanes`` of a tenant at once); returns the plan row as JSON."""
    return distributed.open_distributed(
        paths, options, engine=engine, chunk_turns=options.batch_size, lanes=lanes
    )


def queue_watch(settings: Settings) -> Callable[[], bool] | None:
    """Is the replay queue holding messages? (None when the broker cannot say.)"""
    busy = redis_busy_queues(settings.broker_url)
    if busy is None:
        return None
    return lambda: Stage.REPLAY.value in busy()


def dispatch(engine: Engine, run_id: str, queue_busy: Callable[[], bool] | None) -> int:
    """Hand the replay workers every chunk that may run now; returns how many."""
    return distributed.dispatch(engine, run_id, publish_chunk, queue_busy=queue_busy)


def progress(engine: Engine, run_id: str) -> Progress:
    """The run's progress as the store has it."""
    return distributed.progress(engine, run_id)


def failures(engine: Engine, run_id: str) -> list[dict[str, Any]]:
    """Chunks that failed: number, attempts and the error recorded."""
    return distributed.failures(engine, run_id)


def finish(engine: Engine, run_id: str) -> dict[str, Any]:
    """The report of a distributed run; marks it finished when every chunk is done."""
    return distributed.finish(engine, run_id)
