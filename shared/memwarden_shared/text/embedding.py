"""Embedders behind one small interface. The default is deterministic and needs no model:
hashed features (Latin words and character trigrams, CJK characters and bigrams), signed,
L2-normalised, float32. Good enough to rank one subject's few hundred memories.

``MEMWARDEN_EMBEDDER=openai`` swaps in an OpenAI-compatible ``/v1/embeddings`` endpoint
(``remote.embedding_remote``; ``remote.embedders`` picks the configured one). Every vector
is stored with its embedder's ``name``, which names the dimension too, so vectors of two
embedders are never compared."""

from __future__ import annotations

import hashlib
import re
from typing import Protocol

import numpy as np
import numpy.typing as npt

from memwarden_shared.text.fold import Level, fold_text

Vector = npt.NDArray[np.float32]

_LATIN_WORD = re.compile(r"[a-z0-9][a-z0-9_+#.\-]*")
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


class Embedder(Protocol):
    name: str  # stored with each vector; at most 60 characters
    dim: int
    local: bool  # cheap and offline: recall may embed memories on the fly with it

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """One L2-normalised float32 row per text; raises :class:`EmbeddingError`."""
        ...


class EmbeddingError(Exception):
    """An embedder could not embed (the message is one line, with no text from either side).
    As such it is permanent (a wrong dimension, a malformed answer): retrying will not help."""


class EmbedderNotConfigured(ValueError):
    """``MEMWARDEN_EMBEDDER=openai`` without a base URL or a model."""


class EmbeddingUnavailable(EmbeddingError, ConnectionError):
    """A failure that may pass (timeout, unreachable, HTTP 429/5xx). A ConnectionError, so
    consumers (shared.retry) retry the batch and the outbox redelivers it."""


def features(text: str) -> list[str]:
    folded = fold_text(text, Level.SPACE)
    out: list[str] = []
    for word in _LATIN_WORD.findall(folded):
        word = word.strip(".-")
        if not word:
            continue
        out.append("w:" + word)
        padded = f"#{word}#"
        out.extend("t:" + padded[i : i + 3] for i in range(len(padded) - 2))
    for run in _CJK_RUN.findall(folded):
        out.extend("c:" + ch for ch in run)
        out.extend("b:" + run[i : i + 2] for i in range(len(run) - 1))
    return out


def shared_features(query_features: frozenset[str], text: str) -> int:
    """``len(query_features & set(features(text)))`` without listing ``text``'s features
    (recall scores about a hundred memories per query): a word is looked up among the text's
    words, a trigram of a padded word is a substring of the text's padded words joined by
    spaces (a trigram holds no space, so it cannot straddle two words), and a CJK character
    or bigram is a substring of its CJK runs joined the same way."""
    folded = fold_text(text, Level.SPACE)
    words = {w.strip(".-") for w in _LATIN_WORD.findall(folded)}
    words.discard("")
    padded = " ".join(f"#{w}#" for w in words)
    runs = " ".join(_CJK_RUN.findall(folded))
    shared = 0
    for feature in query_features:
        kind, body = feature[0], feature[2:]
        if kind == "w":
            shared += body in words
        elif kind == "t":
            shared += body in padded
        else:  # "c" (a character) or "b" (a bigram) of a CJK run
            shared += body in runs
    return shared


class HashedNgramEmbedder:
    """The default embedder: deterministic across processes and machines."""

    local = True

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        # v2: features read the one fold (issue 20), so traditional Chinese, homoglyphs and
        # invisible characters embed like their plain spelling; a v1 vector is re-embedded
        self.name = f"hashed-ngram-v2-{dim}"

    def embed_one(self, text: str) -> Vector:
        vec = np.zeros(self.dim, dtype=np.float32)
        for feature in features(text):
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.dim
            vec[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm else vec

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.embed_one(t) for t in texts])


def to_bytes(vec: Vector) -> bytes:
    return np.asarray(vec, dtype=np.float32).tobytes()


def from_bytes(blob: bytes) -> Vector:
    return np.frombuffer(blob, dtype=np.float32)


def memory_text(normalized_key: str, value_json: str) -> str:
    """What gets embedded for a memory: its key and its value."""
    return f"{normalized_key.replace('.', ' ').replace('_', ' ')} {value_json}"


def default_embedder(dim: int = 256) -> HashedNgramEmbedder:
    return HashedNgramEmbedder(dim)
