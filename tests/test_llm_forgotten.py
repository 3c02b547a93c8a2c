"""Forgetting reaches the extractor (seed 004): the LLM extractor's prompt carries the
subject's forgotten keys and content hashes, never the forgotten text, with the instruction
not to propose them; when the fake model re-proposes the fact anyway, suppression in the
gate stays the backstop."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from memwarden_extractor import llm
from memwarden_gate.io import decide_batch
from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_shared.config import get_settings
from memwarden_shared.contract.canonical import normalized_content_hash
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.state.forgotten import ForgottenTopics, forgotten_topics
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.text.segmenter import split_sentences
from memwarden_usecases import drain, extract, inspect, retract
from tests.conftest import turn_dict
from tests.test_llm_extractor import MODEL, ChatServer, answer, cand

EDITORS = ("helix", "helix", "micro", "emacs", "nano")


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.close()


@pytest.fixture
def llm_stage(chat: ChatServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("MEMWARDEN_EXTRACTOR", "llm")
    monkeypatch.setenv("MEMWARDEN_LLM_BASE_URL", chat.url)
    monkeypatch.setenv("MEMWARDEN_LLM_MODEL", MODEL)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def _store(engine: Engine, tenant: str, text: str) -> str:
    message_id = "m-" + uuid.uuid4().hex[:8]
    turn = Turn.model_validate(turn_dict(tenant, text, message_id=message_id))
    ingest_turns([turn], engine=engine, extract=False)
    return message_id


@settings(deadline=None)  # the first call builds the registry
@given(
    st.lists(st.sampled_from(["preference.editor", "profile.name", "decision.note"]), max_size=3),
    st.lists(st.text("0123456789abcdef", min_size=64, max_size=64), max_size=3),
)
def test_prompt__forgotten_topics_are_keys_and_hashes_never_text(
    categories: list[str], hashes: list[str]
) -> None:
    forgotten = ForgottenTopics(tuple(sorted(set(categories))), tuple(sorted(set(hashes))))
    keys = llm.offered_keys(default_registry())
    [system, _user] = llm.chat_messages(split_sentences("I prefer pnpm."), set(), keys, forgotten)
    content = system["content"]
    if not forgotten:
        assert "forget" not in content
        return
    assert "Do not propose them again" in content
    for c in forgotten.categories:
        assert f"forgotten key: {c}" in content
    for h in forgotten.hashes:
        assert f"forgotten content sha256: {h}" in content


def test_llm_stage__the_prompt_names_what_was_forgotten_and_the_gate_still_refuses_it(
    sqlite_engine: Engine,
    tenant: str,
    chat: ChatServer,
    llm_stage: None,
    make_proposal: Callable[..., dict[str, Any]],
) -> None:
    first_text = "I use helix as my editor."
    first = _store(sqlite_engine, tenant, first_text)
    [receipt] = decide_batch(
        [
            make_proposal(
                tenant, first, first_text, normalized_key="preference.editor", value="helix"
            )
        ],
        engine=sqlite_engine,
    )
    assert receipt.decision == "COMMIT"
    retract.forget(sqlite_engine, tenant, first)
    drain.drain(sqlite_engine)

    again = _store(sqlite_engine, tenant, "My editor is helix.")
    # the fake model ignores the instruction and re-proposes the forgotten fact
    chat.script(answer([cand(0, "preference.editor", "helix")]))
    assert extract.reextract(sqlite_engine, tenant, [again]) == 1
    drain.drain(sqlite_engine)

    system = chat.requests[-1].json["messages"][0]["content"]
    assert "forgotten key: preference.editor" in system
    assert f"forgotten content sha256: {normalized_content_hash('helix')}" in system
    assert "helix" not in system and first_text not in system  # hashes, never the text
    [proposal] = [
        p for p in inspect.list_proposals(sqlite_engine, tenant, "u1") if p["message_id"] == again
    ]
    assert (proposal["decision"], proposal["reasons"]) == ("REJECT", ["suppressed"])
    assert recall(tenant, "u1", engine=sqlite_engine) == []


def test_forgotten_topics__one_subject_never_sees_anothers(
    sqlite_engine: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    text = "I use helix as my editor."
    message_id = _store(sqlite_engine, tenant, text)
    decide_batch(
        [
            make_proposal(
                tenant, message_id, text, normalized_key="preference.editor", value="helix"
            )
        ],
        engine=sqlite_engine,
    )
    retract.forget(sqlite_engine, tenant, message_id)
    with unit_of_work(sqlite_engine) as uow:
        topics = forgotten_topics(uow.conn, {(tenant, "u1"), (tenant, "u2"), ("other", "u1")})
    assert set(topics) == {(tenant, "u1")}
    assert topics[(tenant, "u1")].categories == ("preference.editor",)
    assert normalized_content_hash("helix") in topics[(tenant, "u1")].hashes
