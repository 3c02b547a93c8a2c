"""The per-batch memo of the gate's sentence checks: once per message and batch, never more."""

from __future__ import annotations

from memwarden_shared.text.batch_memo import batch_scope, message_scope, per_batch

calls: list[str] = []


@per_batch
def _scan(text: str) -> list[str]:
    calls.append(text)
    return [text.upper()]


def setup_function() -> None:
    calls.clear()


def test_memo__outside_a_batch_every_call_runs() -> None:
    _scan("a")
    with message_scope(("t", "m1", 1)):  # a message scope alone remembers nothing
        _scan("a")
    assert calls == ["a", "a"]


def test_memo__one_message_asks_once_per_batch() -> None:
    with batch_scope():
        for _ in range(3):
            with message_scope(("t", "m1", 1)):
                assert _scan("a") == ["A"]
    assert calls == ["a"]


def test_memo__another_message_with_the_same_text_is_scanned_again() -> None:
    with batch_scope():
        with message_scope(("t", "m1", 1)):
            _scan("a")
        with message_scope(("t", "m2", 1)):
            _scan("a")
        with message_scope(("t", "m1", 2)):  # a new revision is another message
            _scan("a")
        with message_scope(None):  # no message: nothing remembered
            _scan("a")
            _scan("a")
    assert len(calls) == 5


def test_memo__forgotten_after_the_batch() -> None:
    for _ in range(2):
        with batch_scope(), message_scope(("t", "m1", 1)):
            _scan("a")
    assert calls == ["a", "a"]


def test_memo__a_caller_editing_its_list_does_not_change_the_next_answer() -> None:
    with batch_scope(), message_scope(("t", "m1", 1)):
        _scan("a").append("edited")
        assert _scan("a") == ["A"]


def test_memo__the_same_instant_in_another_zone_is_another_question() -> None:
    from datetime import UTC, datetime, timedelta, timezone

    seen: list[datetime] = []

    @per_batch
    def day(anchor: datetime) -> str:
        seen.append(anchor)
        return anchor.date().isoformat()

    utc = datetime(2026, 5, 1, 23, 30, tzinfo=UTC)
    tokyo = utc.astimezone(timezone(timedelta(hours=9)))
    with batch_scope(), message_scope(("t", "m1", 1)):
        assert (day(utc), day(tokyo), day(utc)) == ("2026-05-01", "2026-05-02", "2026-05-01")
    assert len(seen) == 2
