"""How recall orders one subject's memories for a query: one deterministic score per memory.

    score = cosine(query vector, memory vector)             the embedder's similarity
          + VALUE_WEIGHT * value_overlap                    shared words/characters
          + KEY_WEIGHT * key_match(query, memory's key)     services.recall.keymatch
          + DATE_WEIGHT * date_match(query, dated value)    services.recall.datematch

``value_overlap`` is the share of the query's hashed-embedder features (words, trigrams, CJK
characters and bigrams) that the memory's value also has. ``key_match`` is in [0, 1]. When
no vector can be had (a remote embedder failed), the cosine term is 0 for every memory, so
the order still comes from the two lexical terms and vectors of two embedders never meet.
Ties: most recently updated first, then memory id (the caller sorts).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from memwarden_recall.datematch import date_matches
from memwarden_recall.keymatch import KeyVocabulary
from memwarden_shared.text.embedding import (
    Embedder,
    EmbeddingError,
    Vector,
    features,
    from_bytes,
    memory_text,
    shared_features,
)

VALUE_WEIGHT = 0.5
KEY_WEIGHT = 1.0
# As strong as naming the key: a date the question names is as specific as a key.
DATE_WEIGHT = 1.0

log = logging.getLogger("memwarden.recall")


class EmbedderMismatch(Exception):
    """The index holds vectors of another embedder than the configured one."""

    def __init__(self, indexed: str, configured: str) -> None:
        super().__init__(
            f"the vector index holds {indexed} vectors but the configured embedder is "
            f"{configured}: run `memwarden reindex` (vectors of two embedders are never mixed)"
        )


def score_rows(
    query: str,
    rows: Sequence[Any],
    embedder: Embedder,
    vocabulary: KeyVocabulary,
    asked_at: dt.datetime | None = None,
) -> list[float]:
    """The score of each row (``normalized_key``, ``value_json``, and the indexed
    ``embedding`` bytes with its ``embedder`` name, either may be None) for ``query``, asked
    at ``asked_at`` (now when None: relative dates in the query resolve from it)."""
    try:
        cosine = similarities(query, rows, embedder)
    except EmbeddingError as exc:
        # A read degrades rather than fails: the lexical terms still order the memories.
        log.warning("recall ranks without vectors: embedder %s failed (%s)", embedder.name, exc)
        cosine = np.zeros(len(rows), dtype=np.float32)
    by_key = vocabulary.match(query)
    q_features = frozenset(features(query))
    by_date = date_matches(query, rows, asked_at or dt.datetime.now(dt.UTC))
    out = []
    for row, cos, on_date in zip(rows, cosine, by_date, strict=True):
        overlap = shared_features(q_features, row.value_json) / max(len(q_features), 1)
        key = by_key.get(row.normalized_key, 0.0)
        out.append(float(cos) + VALUE_WEIGHT * overlap + KEY_WEIGHT * key + DATE_WEIGHT * on_date)
    return out


def similarities(query: str, rows: Sequence[Any], embedder: Embedder) -> Vector:
    """Cosine of the query with each row, using a stored vector only when ``embedder``
    made it; rows never indexed are embedded now (one batch). A row indexed by another
    embedder is re-embedded when the configured one is local (cheap, deterministic), and
    refused (:class:`EmbedderMismatch`) when it is remote: that needs a reindex."""
    vectors: list[Vector | None] = []
    missing: list[int] = []
    for i, row in enumerate(rows):
        blob = getattr(row, "embedding", None)
        made_by = getattr(row, "embedder", None)
        if blob is not None and made_by == embedder.name and len(blob) == 4 * embedder.dim:
            vectors.append(from_bytes(blob))
            continue
        if blob is not None and made_by != embedder.name and not embedder.local:
            raise EmbedderMismatch(str(made_by), embedder.name)
        vectors.append(None)
        missing.append(i)
    texts = [query] + [memory_text(rows[i].normalized_key, rows[i].value_json) for i in missing]
    embedded = embedder.embed(texts)
    for i, vec in zip(missing, embedded[1:], strict=True):
        vectors[i] = vec
    if not rows:
        return np.zeros(0, dtype=np.float32)
    matrix = np.stack(cast(list[Vector], vectors))  # every None was filled in above
    query_vector: Vector = embedded[0]
    # float32 @ float32 stays float32 (numpy's stubs widen it); copy=False makes no copy
    return (matrix @ query_vector).astype(np.float32, copy=False)
