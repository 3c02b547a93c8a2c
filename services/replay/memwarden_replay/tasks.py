"""Celery glue for distributed replay: `memwarden worker replay` serves the ``replay`` queue."""

from __future__ import annotations

import logging

from memwarden_replay.chunk_worker import run_chunk
from memwarden_shared.delivery.celery_app import app
from memwarden_shared.delivery.pipeline import TASK_REPLAY_CHUNK, Stage
from memwarden_shared.store.db import get_engine
from memwarden_shared.store.tenant_scope import all_tenants


def publish_chunk(run_id: str, chunk_no: int) -> None:
    """One message per chunk: its key only, never its lines."""
    app.send_task(TASK_REPLAY_CHUNK, args=[run_id, chunk_no], queue=Stage.REPLAY.value)


@app.task(name=TASK_REPLAY_CHUNK, acks_late=True)
def replay_chunk(run_id: str, chunk_no: int) -> str:
    """Replay one chunk of a distributed run, then publish the next chunk of its lane.

    Safe to deliver twice: the store's lease drops a duplicate, and a chunk commits its
    effects with its done mark. A chunk that fails is recorded and redelivered by the
    coordinator's sweep (the store, not the broker, decides what is left to do)."""
    # As in-process replay: no INFO line per decision (a chunk decides hundreds; the chunk's
    # tally holds the counts). Set per call: the worker configures logging after import.
    logging.getLogger("memwarden.gate").setLevel(logging.WARNING)
    # A chunk is keyed by run and number, not tenant: the worker reads it (and the run's
    # plan) before it knows whose turns it holds, like any consumer of a shared queue.
    with all_tenants("a replay worker runs recorded chunks of any tenant"):
        return run_chunk(get_engine(), run_id, chunk_no, publish_chunk)
