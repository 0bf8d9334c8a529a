"""Dense and sparse embeddings through fastembed, loaded offline.

Dense: all-MiniLM-L6-v2 from the local model folder (see ``model_files``); any other fastembed model name is
loaded the normal (online) way. Sparse: BM25 term weights (``Qdrant/bm25``) with the stop-word list kept in
the project, so nothing is downloaded; Qdrant applies IDF at query time.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from drag_core.config import DEFAULT_DENSE_MODEL, DEFAULT_SPARSE_MODEL
from drag_core.text import ENGLISH_STOPWORDS

BATCH_SIZE = 32


@dataclass(frozen=True)
class SparseVector:
    """BM25 term weights: hashed term ids and their weights."""

    indices: list[int]
    values: list[float]


class Embedder:
    """Turns texts into dense vectors and BM25 sparse vectors. Thread-safe; load once per process.

    Attributes:
        dense_model: the dense model name.
        sparse_model: the sparse model name.
        dim: dense vector size.
    """

    def __init__(
        self,
        model_dir: Path,
        dense_model: str = DEFAULT_DENSE_MODEL,
        sparse_model: str = DEFAULT_SPARSE_MODEL,
        threads: int | None = None,
    ) -> None:
        from fastembed import SparseTextEmbedding, TextEmbedding

        self.dense_model = dense_model
        self.sparse_model = sparse_model
        self._lock = threading.Lock()
        if dense_model == DEFAULT_DENSE_MODEL:
            from drag_core.model_files import (
                DENSE_MODEL_NAME,
                DENSE_MODEL_SUBDIR,
                prepare_dense_model,
                register_dense_model,
            )

            folder = prepare_dense_model(Path(model_dir) / DENSE_MODEL_SUBDIR)
            register_dense_model()
            self._dense = TextEmbedding(DENSE_MODEL_NAME, specific_model_path=str(folder), threads=threads)
        else:
            self._dense = TextEmbedding(dense_model, threads=threads)
        if sparse_model == DEFAULT_SPARSE_MODEL:
            bm25_dir = Path(model_dir) / "bm25"
            bm25_dir.mkdir(parents=True, exist_ok=True)
            self._sparse = SparseTextEmbedding(
                sparse_model, specific_model_path=str(bm25_dir), stopwords=set(ENGLISH_STOPWORDS)
            )
        else:
            self._sparse = SparseTextEmbedding(sparse_model)
        self.dim = int(self.dense(["dimension probe"]).shape[1])

    def dense(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length dense vectors, one row per text."""
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        return np.asarray(self._embed(self._dense, texts), dtype=np.float32)

    def sparse(self, texts: Sequence[str]) -> list[SparseVector]:
        """BM25 document vectors (term frequencies saturated and length-normalised; IDF comes from Qdrant)."""
        rows = self._embed(self._sparse, texts)
        return [SparseVector(r.indices.tolist(), r.values.astype(float).tolist()) for r in rows]

    def _embed(self, model: Any, texts: Sequence[str]) -> list[Any]:
        """``model.embed`` batch by batch, holding the lock per batch: a query embedded meanwhile (another
        session's search) waits for one batch, not for a whole document."""
        rows: list[Any] = []
        for start in range(0, len(texts), BATCH_SIZE):
            with self._lock:
                rows.extend(model.embed(list(texts[start : start + BATCH_SIZE]), batch_size=BATCH_SIZE))
        return rows

    def query(self, text: str) -> tuple[np.ndarray, SparseVector]:
        """The dense vector and the BM25 query vector (each term once) of a query."""
        with self._lock:
            dense = next(iter(self._dense.query_embed(text)))
            sparse = next(iter(self._sparse.query_embed(text)))
        return (
            np.asarray(dense, dtype=np.float32),
            SparseVector(sparse.indices.tolist(), sparse.values.astype(float).tolist()),
        )
