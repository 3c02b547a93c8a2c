"""A worker warms its stage before its first message: pure work, no store (issue 23)."""

from __future__ import annotations

import jieba
import pytest
from sqlalchemy import Engine, create_engine

from memwarden_shared.delivery.pipeline import Stage
from memwarden_shared.store import db
from memwarden_usecases.pipeline import warm


@pytest.mark.parametrize("stage", list(Stage))
def test_warm__needs_no_store(stage: Stage, monkeypatch: pytest.MonkeyPatch) -> None:
    # every engine the warm-up could reach points at a port nothing listens on
    def unreachable(*_args: object, **_kwargs: object) -> Engine:
        return create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")

    monkeypatch.setattr(db, "engine_for", unreachable)
    monkeypatch.setattr(jieba.dt, "initialized", False)  # whatever an earlier test loaded
    warm(stage)
    if stage == Stage.GATE:  # the gate's lexicon is read, not left for the first batch
        assert jieba.dt.initialized
