"""The OpenAI-compatible embedder against a real local HTTP server: batching, order, the
dimension check, failures as one-line errors (transient ones retryable), and the vector
index never mixing two embedders' vectors."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from sqlalchemy import Engine, select

from memwarden_recall.query import recall
from memwarden_recall.ranking import EmbedderMismatch
from memwarden_shared.config import get_settings
from memwarden_shared.delivery.dead_letters import count_dead_letters
from memwarden_shared.delivery.retry import is_transient
from memwarden_shared.remote.embedders import current_embedder
from memwarden_shared.remote.embedding_remote import OpenAIEmbedder, embedder_name
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import vector_index
from memwarden_shared.text.embedding import (
    EmbedderNotConfigured,
    EmbeddingError,
    EmbeddingUnavailable,
    HashedNgramEmbedder,
)
from memwarden_vector_sink.io import reindex
from tests.actions_helpers import say
from tests.fake_embeddings import FakeEmbeddings, fake_embedding_server
from tests.test_api import api_client, auth, make_keys

DIM = 32


@pytest.fixture
def fake() -> Iterator[FakeEmbeddings]:
    with fake_embedding_server(DIM) as server:
        yield server


def adapter(fake: FakeEmbeddings, **kw: object) -> OpenAIEmbedder:
    options: dict[str, object] = {"base_url": fake.url, "model": "fake-embed", "dim": DIM}
    options.update(kw)
    return OpenAIEmbedder(**options)  # type: ignore[arg-type]


def test_adapter__batches_inputs_and_returns_normalised_rows_in_input_order(
    fake: FakeEmbeddings,
) -> None:
    fake.mode = "reversed"  # the API may answer out of order; ``index`` decides
    texts = ["I use pnpm", "时区是上海", "dark mode", "vim", "Berlin"]
    got = adapter(fake, batch=2, api_key="sk-test").embed(texts)
    assert [len(r["input"]) for r in fake.requests] == [2, 2, 1]
    assert fake.auth_headers == ["Bearer sk-test"] * 3
    assert got.shape == (5, DIM) and got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(got, HashedNgramEmbedder(DIM).embed(texts), atol=1e-6)


def test_adapter__a_vector_of_another_dimension_is_refused(fake: FakeEmbeddings) -> None:
    fake.mode = "wrong_dim"
    with pytest.raises(EmbeddingError, match=f"wrong_dimension: got {DIM + 1}") as caught:
        adapter(fake).embed(["vim"])
    assert not is_transient(caught.value)  # a config error: retrying cannot help


@pytest.mark.parametrize(
    ("mode", "failure", "transient"),
    [
        ("status_500", "http_error 500", True),
        ("status_400", "http_error 400", False),
        ("garbage", "malformed_response", False),
        ("slow", "timeout", True),
    ],
)
def test_adapter__failures_are_one_line_codes(
    fake: FakeEmbeddings, mode: str, failure: str, transient: bool
) -> None:
    fake.mode = mode
    with pytest.raises(EmbeddingError) as caught:
        adapter(fake, timeout_seconds=0.5).embed(["a secret-free text"])
    assert str(caught.value) == failure
    assert isinstance(caught.value, EmbeddingUnavailable) is transient
    assert is_transient(caught.value) is transient


def test_adapter__unreachable_server_is_transient() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    embedder = OpenAIEmbedder(base_url=f"http://127.0.0.1:{port}/v1", model="m", dim=DIM)
    with pytest.raises(EmbeddingUnavailable, match=r"^unreachable$"):
        embedder.embed(["x"])


def test_adapter__needs_a_base_url_and_a_model() -> None:
    with pytest.raises(EmbedderNotConfigured, match="MEMWARDEN_EMBEDDING_BASE_URL"):
        OpenAIEmbedder(base_url="", model="m", dim=DIM)


def test_embedder_name__names_model_and_dimension_within_the_column() -> None:
    assert embedder_name("text-embedding-3-small", 1536) == "openai:text-embedding-3-small:1536"
    long_a, long_b = embedder_name("x" * 100 + "a", 768), embedder_name("x" * 100 + "b", 768)
    assert len(long_a) <= 60 and long_a != long_b and long_a.endswith(":768")


def _indexed_by(engine: Engine, tenant: str) -> set[str]:
    with unit_of_work(engine) as uow:
        return set(
            uow.conn.execute(
                select(vector_index.c.embedder).where(vector_index.c.tenant_id == tenant)
            ).scalars()
        )


def test_recall__a_remote_embedder_over_another_embedders_index_refuses_until_reindexed(
    store: Engine, tenant: str, fake: FakeEmbeddings
) -> None:
    say(store, tenant, "I use yarn for every project.")
    say(store, tenant, "My timezone is Europe/Berlin.")
    assert _indexed_by(store, tenant) == {"hashed-ngram-v2-256"}
    remote = adapter(fake)
    with pytest.raises(EmbedderMismatch, match="run `memwarden reindex`"):
        recall(tenant, "u1", "JS tooling", engine=store, embedder=remote)
    counts = reindex(tenant, engine=store, embedder=remote)
    assert counts["indexed"] == 2 and counts["embedder"] == "openai:fake-embed:32"
    assert _indexed_by(store, tenant) == {"openai:fake-embed:32"}
    found = recall(tenant, "u1", "JS tooling", engine=store, embedder=remote)
    assert found[0].normalized_key == "preference.package_manager"
    # only the query went to the server: the memories' vectors came from the index
    assert fake.requests[-1]["input"] == ["JS tooling"]


def test_recall__a_failing_remote_embedder_still_recalls_in_lexical_order(
    store: Engine, tenant: str, fake: FakeEmbeddings
) -> None:
    # the timezone is said first, so newest-first alone would put the yarn memory on top
    say(store, tenant, "My timezone is Europe/Berlin.")
    say(store, tenant, "I use yarn for every project.")
    remote = adapter(fake)
    reindex(tenant, engine=store, embedder=remote)
    fake.mode = "status_500"
    found = recall(tenant, "u1", "时区", engine=store, embedder=remote)
    assert [r.normalized_key for r in found] == ["profile.timezone", "preference.package_manager"]


def test_api_recall__a_mixed_index_is_a_503_naming_reindex(
    store: Engine, tenant: str, fake: FakeEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    say(store, tenant, "I use yarn for every project.")  # indexed by the hashed default
    keys = make_keys(store, tenant)
    with configured_for(fake, monkeypatch), api_client(store) as client:
        r = client.get("/v1/subjects/u1/recall", params={"query": "JS"}, headers=auth(keys.reader))
    assert r.status_code == 503, r.text
    assert r.json()["code"] == "embedder_mismatch"
    assert "memwarden reindex" in r.json()["detail"]


@contextmanager
def configured_for(fake: FakeEmbeddings, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process configured for the fake server, as ``MEMWARDEN_EMBEDDER=openai`` would."""
    monkeypatch.setenv("MEMWARDEN_EMBEDDER", "openai")
    monkeypatch.setenv("MEMWARDEN_EMBEDDING_BASE_URL", fake.url)
    monkeypatch.setenv("MEMWARDEN_EMBEDDING_MODEL", "fake-embed")
    monkeypatch.setenv("MEMWARDEN_EMBEDDING_DIM", str(DIM))
    get_settings.cache_clear()
    current_embedder.cache_clear()
    try:
        yield
    finally:
        get_settings.cache_clear()
        current_embedder.cache_clear()


@pytest.fixture
def remote_configured(fake: FakeEmbeddings, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with configured_for(fake, monkeypatch):
        yield


def test_vector_sink__indexes_with_the_configured_remote_embedder(
    store: Engine, tenant: str, remote_configured: None
) -> None:
    say(store, tenant, "I use yarn for every project.")
    assert _indexed_by(store, tenant) == {"openai:fake-embed:32"}


def test_vector_sink__a_wrong_dimension_dead_letters_and_writes_no_vector(
    store: Engine, tenant: str, fake: FakeEmbeddings, remote_configured: None
) -> None:
    fake.mode = "wrong_dim"
    say(store, tenant, "I use yarn for every project.")
    assert _indexed_by(store, tenant) == set()
    with unit_of_work(store) as uow:
        assert count_dead_letters(uow.conn, tenant) == 1
    # still recalled (it is committed and its evidence active), ranked without vectors
    [found] = recall(tenant, "u1", "JS tooling", engine=store)
    assert found.normalized_key == "preference.package_manager"
