"""Dense and sparse embeddings through fastembed, loaded offline.

Dense: all-MiniLM-L6-v2 from the local model folder (see ``drag_core.models.files``); any other fastembed model name is
loaded the normal (online) way. Sparse: BM25 term weights (``Qdrant/bm25``) with the stop-word list kept in
the project, so nothing is downloaded; Qdrant applies IDF at query time. The Snowball stemmer (the
``py_rust_stemmers`` one fastembed uses) is ours and handed to fastembed, so ``bm25_tokens`` counts exactly
the terms the vectors weigh, through public APIs only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from drag_core.config import (
    DEFAULT_BM25,
    DEFAULT_DENSE_MODEL,
    DEFAULT_SPARSE_MODEL,
    Bm25Params,
    sparse_identity,
)
from drag_core.models.bm25_terms import TOKEN_MAX_LENGTH, bm25_terms
from drag_core.text import ENGLISH_STOPWORDS
from drag_core.types import SparseVector

__all__ = ["BATCH_SIZE", "Embedder"]

#: Texts per model call: the embedder's lock is held and progress reported once per batch.
BATCH_SIZE = 32




class Embedder:
    """Turns texts into dense vectors and BM25 sparse vectors. Thread-safe; load once per process.

    Attributes:
        dense_model: the dense model name.
        sparse_model: the sparse model name.
        bm25: BM25 constants of the default sparse model.
        dim: dense vector size.
        embedded: texts embedded so far (dense and sparse counted apart; queries not counted).
    """

    def __init__(
        self,
        model_dir: Path,
        dense_model: str = DEFAULT_DENSE_MODEL,
        sparse_model: str = DEFAULT_SPARSE_MODEL,
        threads: int | None = None,
        bm25: Bm25Params = DEFAULT_BM25,
    ) -> None:
        from fastembed import SparseTextEmbedding, TextEmbedding
        from py_rust_stemmers import SnowballStemmer

        self.dense_model = dense_model
        self.sparse_model = sparse_model
        self.bm25 = bm25
        self._lock = threading.Lock()
        self._stemmer = SnowballStemmer("english")
        self.embedded = 0
        if dense_model == DEFAULT_DENSE_MODEL:
            from drag_core.models.files import (
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
                sparse_model,
                specific_model_path=str(bm25_dir),
                stopwords=set(ENGLISH_STOPWORDS),
                stemmer=self._stemmer,
                token_max_length=TOKEN_MAX_LENGTH,
                k=bm25.k1,
                b=bm25.b,
                avg_len=bm25.avg_len,
            )
        elif bm25 != DEFAULT_BM25:
            raise ValueError(f"BM25 constants apply to {DEFAULT_SPARSE_MODEL} only, not to {sparse_model}")
        else:
            self._sparse = SparseTextEmbedding(sparse_model)
        self.dim = int(self.dense(["dimension probe"]).shape[1])
        self.embedded = 0  # the probe is not a document
        self._pieces: Any = None

    def _tokenizer(self) -> Any:
        """The dense model's own tokenizer, without its truncation and padding (loaded on first use)."""
        if self._pieces is None:
            from tokenizers import Tokenizer

            model = self._dense.model
            if getattr(model, "tokenizer", None) is None:  # fastembed loads it with the model, lazily
                model._ensure_tokenizer()
            own = model.tokenizer
            self._max_pieces = int((own.truncation or {}).get("max_length", 512))
            tokenizer = Tokenizer.from_str(own.to_str())
            tokenizer.no_truncation()
            tokenizer.no_padding()
            self._specials = len(tokenizer.encode("").ids)
            self._pieces = tokenizer
        return self._pieces

    @property
    def max_pieces(self) -> int:
        """How many word pieces the dense model reads of a text, special tokens included (MiniLM: 256)."""
        self._tokenizer()
        return self._max_pieces

    @property
    def special_pieces(self) -> int:
        """The special tokens the dense model adds to every text ([CLS] and [SEP]: 2)."""
        self._tokenizer()
        return self._specials

    def piece_starts(self, text: str) -> list[int]:
        """Where each word piece of ``text`` begins (character offsets, special tokens left out)."""
        encoding = self._tokenizer().encode(text, add_special_tokens=False)
        return [start for start, _ in encoding.offsets]

    def pieces(self, text: str) -> int:
        """How many word pieces the dense model sees in ``text``, special tokens included, untruncated."""
        return len(self._tokenizer().encode(text).ids)

    @property
    def sparse_identity(self) -> str:
        """What builds the sparse vectors (``config.sparse_identity``)."""
        return sparse_identity(self.sparse_model, self.bm25)

    def bm25_tokens(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text as the BM25 model sees it (stemmed terms, stop words dropped): the terms weighted, and the
        length ``Bm25Params.avg_len`` averages (``drag_core.bm25_terms``: fastembed's steps, with the same
        stemmer, stop words and length limit)."""
        if self.sparse_model != DEFAULT_SPARSE_MODEL:
            raise ValueError(f"BM25 tokens need {DEFAULT_SPARSE_MODEL}, not {self.sparse_model}")
        return [bm25_terms(text, self._stemmer.stem_word) for text in texts]

    def dense(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        """Unit-length dense vectors, one row per text; ``progress(done, total)`` after each batch."""
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        return np.asarray(self._embed(self._dense, texts, progress), dtype=np.float32)

    def sparse(self, texts: Sequence[str]) -> list[SparseVector]:
        """BM25 document vectors (term frequencies saturated and length-normalised; IDF comes from Qdrant)."""
        rows = self._embed(self._sparse, texts)
        return [SparseVector(r.indices.tolist(), r.values.astype(float).tolist()) for r in rows]

    def _embed(
        self, model: Any, texts: Sequence[str], progress: Callable[[int, int], None] | None = None
    ) -> list[Any]:
        """``model.embed`` batch by batch, holding the lock per batch: a query embedded meanwhile (another
        session's search) waits for one batch, not for a whole document."""
        rows: list[Any] = []
        for start in range(0, len(texts), BATCH_SIZE):
            with self._lock:
                rows.extend(model.embed(list(texts[start : start + BATCH_SIZE]), batch_size=BATCH_SIZE))
                self.embedded += len(texts[start : start + BATCH_SIZE])
            if progress:
                progress(len(rows), len(texts))
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
