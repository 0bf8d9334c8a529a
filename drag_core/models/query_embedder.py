"""Query vectors for a one-shot search, without importing fastembed.

Importing fastembed costs about 0.6 s per process (it loads huggingface_hub, PIL and every model class), more
than the rest of a CLI search. ``QueryEmbedder`` gives the same two query vectors as ``Embedder.query`` for the
default models from the libraries fastembed itself runs them with: onnxruntime + tokenizers for all-MiniLM-L6-v2
(mean pooling over the attention mask, unit length) and py_rust_stemmers + mmh3 for the BM25 query (fastembed's
``Bm25.query_embed``: the terms of ``drag_core.bm25_terms``, each once with weight 1).
``tests/test_query_embedder.py`` checks both against fastembed on many texts.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from drag_core.models.bm25_terms import bm25_terms
from drag_core.types import SparseVector
from drag_core.models.files import DENSE_MODEL_SUBDIR, MAX_SEQ_LENGTH, ONNX_FILE, is_dense_model_dir

__all__ = ["QueryEmbedder"]


class QueryEmbedder:
    """Dense and BM25 query vectors of the default models (all-MiniLM-L6-v2 and ``Qdrant/bm25``).

    Raises ``FileNotFoundError`` when the model folder is not built (``python -m drag_core.models.setup``).
    """

    def __init__(self, model_dir: Path) -> None:
        import mmh3
        import onnxruntime as ort
        from py_rust_stemmers import SnowballStemmer
        from tokenizers import Tokenizer

        folder = Path(model_dir) / DENSE_MODEL_SUBDIR
        if not is_dense_model_dir(folder):
            raise FileNotFoundError(f"no dense model in {folder}")
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
        options = ort.SessionOptions()
        options.log_severity_level = 3
        # One short query: one thread that sleeps when idle starts faster than a spinning pool per core.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(folder / ONNX_FILE), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._stemmer = SnowballStemmer("english")
        self._hash = mmh3.hash

    def dense(self, text: str) -> np.ndarray:
        """The unit-length mean-pooled MiniLM vector of ``text``."""
        encoded = self._tokenizer.encode(text)
        ids = np.array([encoded.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.array([encoded.attention_mask], dtype=np.int64)}
        feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[:1]
        mask = feeds["attention_mask"][:, :, None].astype(bool)
        pooled = np.sum(hidden, axis=1, where=mask, dtype=np.float64) / max(1, int(mask.sum()))
        return (pooled / max(np.linalg.norm(pooled), 1e-12))[0].astype(np.float32)

    def bm25_terms(self, text: str) -> list[str]:
        """The stemmed terms of ``text`` as fastembed's BM25 sees them (stop words and long tokens dropped)."""
        return bm25_terms(text, self._stemmer.stem_word)

    def sparse(self, text: str) -> SparseVector:
        """The BM25 query vector: each distinct term's hash with weight 1 (Qdrant applies IDF)."""
        ids = sorted({abs(self._hash(term)) for term in self.bm25_terms(text)})
        return SparseVector(ids, [1.0] * len(ids))

    def query(self, text: str) -> tuple[np.ndarray, SparseVector]:
        return self.dense(text), self.sparse(text)
