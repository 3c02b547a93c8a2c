"""Ingest masks a secret announced in the session's previous stored turn ("my PIN is" …
"4921"), reading each session's latest turn for a whole batch at once; both stores."""

from __future__ import annotations

from sqlalchemy import Engine, select

from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import messages
from tests.conftest import turn_dict


def _text(engine: Engine, tenant: str, message_id: str) -> str:
    with unit_of_work(engine) as uow:
        return str(
            uow.conn.execute(
                select(messages.c.text).where(
                    messages.c.tenant_id == tenant, messages.c.message_id == message_id
                )
            ).scalar_one()
        )


def _turn(tenant: str, text: str, message_id: str, session: str, minute: int) -> Turn:
    return Turn.model_validate(
        turn_dict(
            tenant,
            text,
            message_id=message_id,
            session=session,
            created_at=f"2026-05-01T09:{minute:02d}:00Z",
        )
    )


def test_a_secret_announced_in_the_stored_turn_before__is_masked_per_session(
    store: Engine, tenant: str
) -> None:
    ingest_turns(
        [
            _turn(tenant, "My bank PIN is", "a1", "sa", 0),
            _turn(tenant, "I prefer yarn.", "b1", "sb", 0),
        ],
        engine=store,
        extract=False,
    )
    # one later batch, two sessions: only the session whose last turn announced a PIN masks
    ingest_turns(
        [
            _turn(tenant, "4921 is fine by me", "a2", "sa", 1),
            _turn(tenant, "4921 is fine by me", "b2", "sb", 1),
        ],
        engine=store,
        extract=False,
    )
    assert "4921" not in _text(store, tenant, "a2")
    assert _text(store, tenant, "b2") == "4921 is fine by me"


def test_a_resent_turn__is_not_its_own_context(store: Engine, tenant: str) -> None:
    first = [_turn(tenant, "My bank PIN is", "c1", "sc", 0), _turn(tenant, "4921", "c2", "sc", 1)]
    ingest_turns(first, engine=store, extract=False)
    again = ingest_turns([first[1]], engine=store, extract=False)  # the same turn, re-sent
    assert again.duplicates == 1 and "4921" not in _text(store, tenant, "c2")
