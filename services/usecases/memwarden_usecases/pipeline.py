"""Embedded mode: run the stages' tasks in this process, draining the outbox until it is empty.

The same task functions run here as in the Celery workers; only the transport differs.
"""

from __future__ import annotations

import importlib
from typing import Any

from sqlalchemy import Engine

from memwarden_shared.delivery.celery_app import STAGE_TASK_MODULES, app
from memwarden_shared.delivery.relay import drain_in_process
from memwarden_shared.store.db import engine_scope, get_engine

for _module in STAGE_TASK_MODULES.values():
    importlib.import_module(_module)


def run_task_locally(task: str, _queue: str, envelopes: list[dict[str, Any]]) -> None:
    app.tasks[task].apply(args=(envelopes,), throw=True)


def drain(engine: Engine | None = None) -> int:
    """Process every pending event (and the events they cause); returns how many."""
    engine = engine or get_engine()
    with engine_scope(engine):
        return drain_in_process(engine, run_task_locally)
