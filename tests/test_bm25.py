"""BM25 through fastembed term weights and Qdrant's IDF modifier is Lucene's BM25: the scores equal those of
``bm25s`` (the reference implementation, a test dependency) given the same tokens, for the default constants
and for the ones the SciFact anchor uses, up to the constant factor k1 + 1 (fastembed keeps the classic
``(k1 + 1)`` numerator that Lucene 8 dropped; rankings are the same). Changing the constants re-embeds on the
next ingest."""

from __future__ import annotations

import os
from pathlib import Path

import bm25s
import numpy as np
import pytest
from conftest import REPO, SAMPLE_PDF

from drag_core.config import Bm25Params, Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.loading import LoadedDocument, document_id, load_path
from drag_core.ingest.vector_text import title_of
from drag_core.models.embeddings import Embedder
from drag_core.search import SearchParams
from drag_core.types import Page

MODEL_DIR = Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models"))
QUERIES = [
    "read a CSV file into a data frame",
    "import data from a relational database with ODBC",
    "binary files and connections",
    "spreadsheet Excel export",
]


def _passages() -> list[LoadedDocument]:
    """The sample manual's non-empty pages, each a one-page document named by a number (so: no title)."""
    pages = [p for p in load_path(SAMPLE_PDF).pages if p.text.strip()]
    return [
        LoadedDocument(f"{i}.txt", document_id(p.text.encode()), [Page(f"{i}.txt", 1, p.text)])
        for i, p in enumerate(pages)
    ]


def _engine(embedder: Embedder, store: str) -> Engine:
    settings = Settings.from_env(env={}, store=store, cache_path=None)
    return Engine(settings, summarizer=ExtractiveSummarizer(), embedder=embedder)


@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (0.9, 0.4)])
def test_sparse_scores_equal_lucene_bm25_of_a_reference_implementation(k1: float, b: float) -> None:
    documents = _passages()
    texts = [d.pages[0].text for d in documents]
    lengths = [len(t) for t in Embedder(MODEL_DIR).bm25_tokens(texts)]
    bm25 = Bm25Params(k1=k1, b=b, avg_len=float(np.mean(lengths)))  # the reference averages the corpus
    embedder = Embedder(MODEL_DIR, bm25=bm25)
    tokens = embedder.bm25_tokens(texts)
    reference = bm25s.BM25(k1=k1, b=b, method="lucene")
    reference.index(tokens, show_progress=False)

    engine = _engine(embedder, ":memory:")
    for document in documents:
        assert engine.ingest_document(document).ok
    for query in QUERIES:
        query_terms = list(dict.fromkeys(embedder.bm25_tokens([query])[0]))  # Qdrant weighs each term once
        expected = reference.get_scores(query_terms)
        result = engine.search(query, "flat-sparse", SearchParams(top_k=len(documents)))
        (step,) = result.trace
        got = {int(c.file_name.removesuffix(".txt")): c.sparse_score for c in step.candidates}
        assert len(got) == int(np.count_nonzero(expected)) > 0
        for index, score in got.items():
            assert score == pytest.approx((k1 + 1) * expected[index], rel=1e-4), (query, index)
    engine.close()


def test_other_constants_rebuild_the_vectors_on_the_next_ingest(embedder: Embedder, tmp_path: Path) -> None:
    store, document = str(tmp_path / "qdrant"), _passages()[3]
    words = document.pages[0].text.split()[:12]
    query = SearchParams(top_k=1)

    def score(engine: Engine) -> float | None:
        (step,) = engine.search(" ".join(words), "flat-sparse", query).trace
        return step.candidates[0].sparse_score

    engine = _engine(embedder, store)
    first = engine.ingest_document(document)
    assert first.status == "indexed" and engine.ingest_document(document).status == "unchanged"
    default_score = score(engine)
    engine.close()

    tuned = Embedder(MODEL_DIR, bm25=Bm25Params(k1=0.9, b=0.4, avg_len=100))
    assert tuned.sparse_identity == "Qdrant/bm25(k1=0.9,b=0.4,avg_len=100)" != embedder.sparse_identity
    engine = _engine(tuned, store)
    assert [d.current for d in engine.documents()] == [False]
    assert engine.ingest_document(document).status == "replaced"
    assert [d.current for d in engine.documents()] == [True]
    assert engine.ingest_document(document).status == "unchanged"
    assert engine.store.count() == first.nodes
    assert score(engine) != pytest.approx(default_score)
    engine.close()


def test_bm25_constants_are_checked() -> None:
    for bad in ({"k1": -1.0}, {"b": 1.5}, {"avg_len": 0.0}):
        with pytest.raises(ValueError, match="BM25 needs"):
            Bm25Params(**bad)
    with pytest.raises(ValueError, match="only"):
        Embedder(MODEL_DIR, sparse_model="prithivida/Splade_PP_en_v1", bm25=Bm25Params(k1=0.9))


def test_a_name_without_letters_is_no_title() -> None:
    assert title_of("4983.txt") == "" and title_of("2023-10.md") == ""
    assert title_of("AMCOR_2023_10K.pdf") == "AMCOR 2023 10K"
