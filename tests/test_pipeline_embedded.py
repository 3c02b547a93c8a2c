"""The whole pipeline in one process on SQLite: the embedded default."""

from __future__ import annotations

from sqlalchemy import Engine, select

from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_revalidation.commands import forget_message, revoke_message
from memwarden_shared.contract.models import Turn
from memwarden_shared.store.schema import current_memories, vector_index
from memwarden_usecases.pipeline import drain
from tests.conftest import turn_dict


def _ingest(engine: Engine, tenant: str, *texts: str) -> None:
    turns = [
        Turn.model_validate(
            turn_dict(tenant, t, message_id=f"m{i}", created_at=f"2026-05-01T09:{i:02d}:00Z")
        )
        for i, t in enumerate(texts, 1)
    ]
    ingest_turns(turns, engine=engine)
    drain(engine)


def _values(engine: Engine, tenant: str) -> list[str]:
    return sorted(str(m.value) for m in recall(tenant, "u1", engine=engine))


def test_embedded__durable_sentences_commit_and_the_rest_do_not(
    sqlite_engine: Engine, tenant: str
) -> None:
    _ingest(
        sqlite_engine,
        tenant,
        "I prefer pnpm for all my JavaScript projects.",
        "Use npm this time, just for this hotfix.",
        "My colleague lives in Beijing.",
        "我更喜欢深色主题。",
    )
    values = _values(sqlite_engine, tenant)
    assert "pnpm" in values and "dark" in values
    assert not any(v == "npm" or "Beijing" in v for v in values)
    with sqlite_engine.connect() as conn:
        indexed = (
            conn.execute(select(vector_index.c.memory_id).where(vector_index.c.tenant_id == tenant))
            .scalars()
            .all()
        )
        current = (
            conn.execute(
                select(current_memories.c.memory_id).where(current_memories.c.tenant_id == tenant)
            )
            .scalars()
            .all()
        )
    assert sorted(indexed) == sorted(current)


def test_embedded__revocation_empties_recall_before_and_after_the_cascade(
    sqlite_engine: Engine, tenant: str
) -> None:
    _ingest(sqlite_engine, tenant, "I prefer pnpm for all my JavaScript projects.")
    assert _values(sqlite_engine, tenant) == ["pnpm"]
    revoke_message(tenant, "m1", engine=sqlite_engine)
    assert _values(sqlite_engine, tenant) == []  # before any worker ran
    drain(sqlite_engine)
    assert _values(sqlite_engine, tenant) == []
    with sqlite_engine.connect() as conn:
        assert not conn.execute(
            select(vector_index).where(vector_index.c.tenant_id == tenant)
        ).all()


def test_embedded__forget_then_the_same_words_from_a_new_message_are_suppressed(
    sqlite_engine: Engine, tenant: str
) -> None:
    text = "Remember that my favourite test runner is pytest."
    _ingest(sqlite_engine, tenant, text)
    assert any("pytest" in v for v in _values(sqlite_engine, tenant))
    forget_message(tenant, "m1", engine=sqlite_engine)
    drain(sqlite_engine)
    copy = Turn.model_validate(
        turn_dict(tenant, text, message_id="old-session-copy", session="s-old")
    )
    ingest_turns([copy], engine=sqlite_engine)
    drain(sqlite_engine)
    assert not any("pytest" in v for v in _values(sqlite_engine, tenant))


def test_embedded__relative_dates_use_the_writers_calendar_day(store: Engine, tenant: str) -> None:
    # 01:00 in Shanghai is still the previous day in UTC; "yesterday" is the writer's.
    turn = Turn.model_validate(
        turn_dict(
            tenant, "请记住，我昨天开始负责支付服务的值班。", created_at="2026-05-20T01:00:00+08:00"
        )
    )
    ingest_turns([turn], engine=store)
    ingest_turns([turn], engine=store)  # and the offset survives storage: a replay is a no-op
    drain(store)
    assert any("2026-05-19" in v for v in _values(store, tenant))
