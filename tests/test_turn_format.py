"""The one turn format (shared.contract.turn_input, issue 26 item 2): every door accepts
the same turn with the same defaults, OpenAI-style messages and mem0's ``user_id``.

Pure units over generated families; tests/test_turn_doors.py stores through each door."""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from memwarden_shared.contract.models import Role, Source, safe_error_fields
from memwarden_shared.contract.turn_input import SOURCE_OF_ROLE, TurnInput

ids = st.text(string.ascii_letters + string.digits, min_size=1, max_size=20)
# prose, not ids: any printable text a conversation might hold
texts = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=80).filter(
    lambda t: t.strip() != ""
)
roles = st.sampled_from([r.value for r in Role])


def _stored(fields: dict[str, Any]) -> dict[str, Any]:
    turn = TurnInput.model_validate(fields).to_turn("t1").model_dump()
    del turn["message_id"], turn["created_at"]  # fresh per call by design
    return turn


@settings(max_examples=60, deadline=None)
@given(subject=ids, text=texts, role=roles)
def test_turn_format__every_spelling_of_a_turn_stores_the_same_turn(
    subject: str, text: str, role: str
) -> None:
    spellings: list[dict[str, Any]] = [
        {"subject_id": subject, "text": text, "role": role},
        {"user_id": subject, "text": text, "role": role},
        {"user_id": subject, "content": text, "role": role},
        {"subject_id": subject, "content": [{"type": "text", "text": text}], "role": role},
    ]
    stored = [_stored(s) for s in spellings]
    assert all(s == stored[0] for s in stored)
    assert stored[0]["session_id"] == "default"
    assert stored[0]["source"] == SOURCE_OF_ROLE[Role(role)]


@settings(max_examples=30, deadline=None)
@given(subject=ids, text=texts)
def test_turn_format__only_subject_and_text_are_required(subject: str, text: str) -> None:
    turn = TurnInput.model_validate({"user_id": subject, "content": text})
    assert turn.role is Role.USER and turn.source is Source.USER_MESSAGE
    assert turn.message_id.startswith("msg-") and turn.created_at.tzinfo is not None
    again = TurnInput.model_validate({"user_id": subject, "content": text})
    assert again.message_id != turn.message_id


@settings(max_examples=30, deadline=None)
@given(subject=ids, text=texts)
def test_turn_format__a_refusal_names_fields_never_the_text(subject: str, text: str) -> None:
    bad = [
        {"user_id": subject, "subject_id": subject + "x", "content": text},  # two subjects
        {"user_id": subject, "content": text, "text": text + "x"},  # two texts
        {"user_id": subject, "content": text, "role": "narrator"},  # no such role
        {"user_id": subject, "content": [{"type": "image_url", "image_url": text}]},
        {"user_id": subject, "content": text, "mood": text},  # unknown key
    ]
    for fields in bad:
        with pytest.raises(ValidationError) as caught:
            TurnInput.model_validate(fields)
        shown = "; ".join(safe_error_fields(caught.value)) + str(caught.value)
        if len(text) > 3:  # a one-letter text may appear inside a field name by chance
            assert text not in shown


def test_turn_format__an_explicit_source_wins_over_the_role() -> None:
    turn = TurnInput.model_validate(
        {"user_id": "u", "content": "page text", "role": "tool", "source": "web_content"}
    )
    assert turn.source is Source.WEB_CONTENT
