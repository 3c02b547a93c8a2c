"""Retraction hooks (state.retraction): the state owner announces, the actions domain listens."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Engine

from memwarden_shared.state import action_repair, retraction
from memwarden_shared.store.db import unit_of_work

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def test_retraction__action_repair_is_subscribed_on_import_and_only_once() -> None:
    assert action_repair.cancel_actions_using in retraction._hooks
    retraction.subscribe(action_repair.cancel_actions_using)
    assert retraction._hooks.count(action_repair.cancel_actions_using) == 1


def test_retraction__every_hook_sees_the_versions_in_the_callers_transaction(
    monkeypatch: pytest.MonkeyPatch, sqlite_engine: Engine
) -> None:
    seen: list[tuple[Any, ...]] = []
    monkeypatch.setattr(retraction, "_hooks", [])
    retraction.subscribe(lambda conn, *args: seen.append((conn, *args)))
    with unit_of_work(sqlite_engine) as uow:
        retraction.retracted(uow.conn, "t1", [("m1", 2)], NOW, "revoked")
        assert seen == [(uow.conn, "t1", [("m1", 2)], NOW, "revoked")]


def test_retraction__with_no_listener_it_is_refused(
    monkeypatch: pytest.MonkeyPatch, sqlite_engine: Engine
) -> None:
    monkeypatch.setattr(retraction, "_hooks", [])
    with unit_of_work(sqlite_engine) as uow, pytest.raises(retraction.NoRetractionHook):
        retraction.retracted(uow.conn, "t1", [("m1", 1)], NOW, "revoked")
