"""A user turn for the rules extractor's pure tests, and what it proposes."""

from __future__ import annotations

import datetime as dt

from memwarden_extractor.rules import extract
from memwarden_shared.contract.models import ProposalBody, Role, Source, Turn
from memwarden_shared.contract.registry import default_registry

REGISTRY = default_registry()
ANCHOR = dt.datetime(2026, 4, 1, 9, tzinfo=dt.UTC)


def user_turn(text: str, created_at: dt.datetime = ANCHOR) -> Turn:
    return Turn(
        tenant_id="t1",
        subject_id="u1",
        session_id="s1",
        message_id="m1",
        role=Role.USER,
        source=Source.USER_MESSAGE,
        text=text,
        created_at=created_at,
    )


def proposals(text: str, created_at: dt.datetime = ANCHOR) -> list[ProposalBody]:
    return list(extract(user_turn(text, created_at), REGISTRY))


def proposed(text: str) -> list[tuple[str, str]]:
    """(key, value) of each proposal the rules extractor makes for ``text``."""
    return [(p.normalized_key, p.value) for p in proposals(text)]
