"""What every route needs from the app: the engine, the settings, and the embedded drain."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import Engine

from memwarden_shared.config import Settings

log = logging.getLogger("memwarden.api")


@dataclass
class ApiState:
    engine: Engine
    settings: Settings
    # PostgreSQL hands out outbox ids before commit, so a row with a smaller id can become
    # visible after a larger one; the event feed serves rows only once they are this old.
    event_settle_seconds: float
    _drain_lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def embedded(self) -> bool:
        return self.settings.embedded

    def after_write(self) -> None:
        """Embedded mode: run the pipeline in-process, as the CLI does, so the response
        reflects the finished cascade. A failing task leaves its rows unsent for the next
        drain; the write itself is committed, so the request still succeeds."""
        if not self.embedded:
            return
        from memwarden_usecases.drain import drain

        # One drain at a time: a second would only re-run the same rows (harmless, wasted).
        with self._drain_lock:
            try:
                drain(self.engine)
            except Exception as exc:
                log.error("embedded drain failed (%s); events stay queued", type(exc).__name__)


def get_state(request: Request) -> ApiState:
    state: ApiState = request.app.state.memwarden
    return state


StateDep = Annotated[ApiState, Depends(get_state)]
