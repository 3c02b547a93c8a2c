"""The embedder this process is configured with: above every kind (``text.embedding``'s
hashed one, ``text.embedding_model``'s multilingual model and the remote one), so none
imports another."""

from __future__ import annotations

from functools import lru_cache

from memwarden_shared.config import Settings, get_settings
from memwarden_shared.remote.embedding_remote import OpenAIEmbedder
from memwarden_shared.text.embedding import Embedder, EmbedderNotConfigured, default_embedder
from memwarden_shared.text.embedding_model import (
    MODEL_PACKAGE,
    MultilingualModelEmbedder,
    model_available,
)


def configured_embedder(settings: Settings) -> Embedder:
    """The embedder ``MEMWARDEN_EMBEDDER`` names: ``auto`` (the default) is the multilingual
    model when its package is installed and the hashed n-grams otherwise; ``model`` insists
    on the model; ``hashed``; ``openai``."""
    if settings.embedder == "openai":
        return OpenAIEmbedder.from_settings(settings)
    if settings.embedder == "model" and not model_available():
        raise EmbedderNotConfigured(
            f"MEMWARDEN_EMBEDDER=model needs the {MODEL_PACKAGE} package: "
            f"pip install {MODEL_PACKAGE}"
        )
    if settings.embedder in ("auto", "model") and model_available():
        return MultilingualModelEmbedder()
    return default_embedder(settings.embedding_dim)


@lru_cache(maxsize=1)
def current_embedder() -> Embedder:
    """The process's configured embedder (one HTTP client for the remote one, one loaded
    model for the local one)."""
    return configured_embedder(get_settings())
