"""An OpenAI-compatible ``POST {base_url}/embeddings`` endpoint as an embedder (OpenAI,
vLLM, Ollama, text-embeddings-inference, LiteLLM).

Batched (``embedding_batch`` texts per request), every vector checked for the configured
dimension and finiteness, then L2-normalised. Any failure is one :class:`EmbeddingError`
whose message is a reason code (and an HTTP status), never text from either side.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from typing import Any, Self

import httpx
import numpy as np
import numpy.typing as npt

from memwarden_shared.config import Settings
from memwarden_shared.text.embedding import (
    EmbedderNotConfigured,
    EmbeddingError,
    EmbeddingUnavailable,
)

MAX_RESPONSE_BYTES = 64 << 20  # 2048 texts x 3072 floats as JSON fit well under this
NAME_LIMIT = 60  # vector_index.embedder


def embedder_name(model: str, dim: int) -> str:
    """``openai:<model>:<dim>``; a long model name is shortened with a hash of it, so the
    name still fits the column and still changes when the model does."""
    name = f"openai:{model}:{dim}"
    if len(name) <= NAME_LIMIT:
        return name
    digest = hashlib.sha256(model.encode()).hexdigest()[:10]
    return f"openai:{model[: NAME_LIMIT - 20 - len(str(dim))]}~{digest}:{dim}"


class OpenAIEmbedder:
    local = False

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dim: int,
        api_key: str = "",
        timeout_seconds: float = 10.0,
        batch: int = 64,
        http: httpx.Client | None = None,
    ) -> None:
        if not base_url or not model:
            raise EmbedderNotConfigured(
                "the openai embedder needs MEMWARDEN_EMBEDDING_BASE_URL and "
                "MEMWARDEN_EMBEDDING_MODEL"
            )
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        self.dim = dim
        self.name = embedder_name(model, dim)
        self.timeout_seconds = timeout_seconds
        self.batch = batch
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = http or httpx.Client()

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        return cls(
            base_url=settings.embedding_base_url,
            model=settings.embedding_model,
            dim=settings.embedding_dim,
            api_key=settings.embedding_api_key.get_secret_value(),
            timeout_seconds=settings.embedding_timeout_seconds,
            batch=settings.embedding_batch,
        )

    def close(self) -> None:
        self._http.close()

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._embed_batch(texts[i : i + self.batch]) for i in range(0, len(texts), self.batch)
        ]
        return np.concatenate(parts)

    def _embed_batch(self, texts: list[str]) -> npt.NDArray[np.float32]:
        raw = self._post({"model": self.model, "input": texts, "encoding_format": "float"})
        try:
            data = json.loads(raw)["data"]
            # the API may answer out of order; ``index`` says which input each row is
            rows = sorted(data, key=lambda d: d["index"])
            indexes = [d["index"] for d in rows]
            vectors = [d["embedding"] for d in rows]
        except (ValueError, RecursionError, KeyError, TypeError):
            raise EmbeddingError("malformed_response") from None
        if indexes != list(range(len(texts))):
            raise EmbeddingError(f"wrong_count: sent {len(texts)}, got {len(indexes)}")
        return np.stack([self._checked(v) for v in vectors])

    def _checked(self, vector: Any) -> npt.NDArray[np.float32]:
        if not isinstance(vector, list) or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in vector
        ):
            raise EmbeddingError("malformed_vector")
        if len(vector) != self.dim:
            raise EmbeddingError(
                f"wrong_dimension: got {len(vector)}, MEMWARDEN_EMBEDDING_DIM is {self.dim}"
            )
        arr = np.asarray(vector, dtype=np.float64)
        norm = float(np.linalg.norm(arr))
        if not math.isfinite(norm) or norm == 0.0:
            raise EmbeddingError("degenerate_vector")
        return (arr / norm).astype(np.float32)

    def _post(self, request: dict[str, Any]) -> bytes:
        # httpx's timeout is per read; the deadline also cuts off a trickling server
        deadline = time.monotonic() + self.timeout_seconds
        chunks: list[bytes] = []
        size = 0
        try:
            with self._http.stream(
                "POST",
                self.url,
                json=request,
                headers=self._headers,
                timeout=self.timeout_seconds,
            ) as resp:
                if resp.status_code != httpx.codes.OK:
                    passing = resp.status_code == 429 or resp.status_code >= 500
                    failure = EmbeddingUnavailable if passing else EmbeddingError
                    raise failure(f"http_error {resp.status_code}")
                for chunk in resp.iter_bytes():
                    size += len(chunk)
                    if size > MAX_RESPONSE_BYTES:
                        raise EmbeddingError("response_too_large")
                    if time.monotonic() > deadline:
                        raise EmbeddingUnavailable("timeout")
                    chunks.append(chunk)
        except httpx.TimeoutException:
            raise EmbeddingUnavailable("timeout") from None
        except httpx.HTTPError:
            # httpx errors can name the request; the cause is dropped so nothing echoes it.
            raise EmbeddingUnavailable("unreachable") from None
        return b"".join(chunks)
