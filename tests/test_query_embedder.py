"""The fastembed-free query vectors equal fastembed's (the real models, many kinds of text)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from conftest import FINANCE, REPO

from drag_core.ingest.loading import load_path
from drag_core.models.embeddings import Embedder
from drag_core.models.query_embedder import QueryEmbedder

TEXTS = [
    "How do I read a CSV file?",
    "What were Amcor's net sales in FY2022, in $ millions?",
    "naïve café — résumé_draft ÉTÉ Straße 1,234.5 % ÷ ½ (see §3.2) “quoted” don't",
    "the a an of",  # stop words only: an empty BM25 query
    "",
    "x" * 45 + " short " + "y" * 40,  # a token longer than BM25's limit and one at it
    "running runners ran easily; fairly generous generosity",
    "word " * 400,  # longer than the 256 word pieces MiniLM reads
]


@pytest.fixture(scope="module")
def light() -> QueryEmbedder:
    return QueryEmbedder(Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models")))


def page_texts() -> list[str]:
    document = load_path(FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf")
    return [page.text[:600] for page in document.pages if page.text]


@pytest.mark.parametrize("text", TEXTS + page_texts())
def test_query_vectors_equal_fastembeds(light: QueryEmbedder, embedder: Embedder, text: str) -> None:
    dense, sparse = embedder.query(text)
    my_dense, my_sparse = light.query(text)
    assert my_dense.shape == dense.shape
    assert float(np.dot(my_dense, dense)) == pytest.approx(1.0, abs=1e-5)
    assert np.allclose(my_dense, dense, atol=1e-5)
    assert sorted(zip(my_sparse.indices, my_sparse.values)) == sorted(zip(sparse.indices, sparse.values))


def test_a_missing_model_folder_is_reported(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no dense model"):
        QueryEmbedder(tmp_path)
