"""The embedder this process is configured with: above both kinds (``text.embedding``'s
hashed one and the remote one), so neither imports the other."""

from __future__ import annotations

from functools import lru_cache

from memwarden_shared.config import Settings, get_settings
from memwarden_shared.remote.embedding_remote import OpenAIEmbedder
from memwarden_shared.text.embedding import Embedder, default_embedder


def configured_embedder(settings: Settings) -> Embedder:
    """The embedder ``MEMWARDEN_EMBEDDER`` names (``hashed``, the default, or ``openai``)."""
    if settings.embedder == "openai":
        return OpenAIEmbedder.from_settings(settings)
    return default_embedder(settings.embedding_dim)


@lru_cache(maxsize=1)
def current_embedder() -> Embedder:
    """The process's configured embedder (one HTTP client for the remote one)."""
    return configured_embedder(get_settings())
