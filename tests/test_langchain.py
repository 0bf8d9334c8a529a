"""``DragRetriever`` with the real langchain-core against a real index of the bundled sample PDF."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import SAMPLE_PDF
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from drag_core.engine import Engine
from drag_core.integrations.langchain import DragRetriever
from drag_core.search import STRATEGIES, SearchParams

QUERY = "How do I read a CSV file into a data frame?"


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("langchain") / "qdrant"


@pytest.fixture
def indexed(sample_index: Path, make_engine: Callable[..., Engine]) -> Path:
    if not (sample_index / "edge").exists():
        engine = make_engine(store=str(sample_index))
        (report,) = engine.ingest_paths([SAMPLE_PDF])
        assert report.ok, report.line()
        engine.close()
    return sample_index


def test_invoke_returns_the_pages_of_the_search_as_documents(indexed: Path, make_engine) -> None:
    retriever = DragRetriever(store=str(indexed), strategy="adaptive", sensitivity=2.0)
    assert isinstance(retriever, BaseRetriever)
    assert retriever.params == SearchParams(sensitivity=2.0)
    try:
        docs = retriever.invoke(QUERY)
        expected = retriever.engine.search(QUERY, "adaptive", SearchParams(sensitivity=2.0))
        leaves = {
            n.page_start: n.text for n in retriever.engine.tree("R-data.pdf", with_text=True) if n.level == 0
        }
    finally:
        retriever.close()
    assert docs and all(isinstance(d, Document) for d in docs)
    assert [(d.metadata["page_start"], d.metadata["page_end"]) for d in docs] == [
        (n.page_start, n.page_end) for n in expected.nodes
    ]
    for doc, node in zip(docs, expected.nodes):
        assert doc.metadata == {
            "file_name": "R-data.pdf",
            "page_start": node.page_start,
            "page_end": node.page_end,
            "level": node.level,
            "score": pytest.approx(expected.scores[node.id]),
            "strategy": "adaptive",
            "title": node.title,
            "node_id": node.id,
        }
        assert doc.page_content == leaves[node.page_start]
    assert any("read.csv" in d.page_content or "read.table" in d.page_content for d in docs)


@pytest.mark.parametrize("strategy", sorted(set(STRATEGIES) - {"adaptive"}))
def test_every_strategy_and_parent_nodes_carry_their_pages_text(indexed: Path, strategy: str) -> None:
    retriever = DragRetriever(store=str(indexed), strategy=strategy, top_k=3, beam_width=3)
    try:
        docs = retriever.invoke(QUERY)
        leaves = {
            n.page_start: n.text for n in retriever.engine.tree("R-data.pdf", with_text=True) if n.level == 0
        }
    finally:
        retriever.close()
    assert docs and {d.metadata["strategy"] for d in docs} == {strategy}
    for doc in docs:
        pages = range(doc.metadata["page_start"], doc.metadata["page_end"] + 1)
        assert doc.page_content == "\n\n".join(leaves[p] for p in pages if leaves[p])


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown strategy"):
        DragRetriever(store=str(tmp_path), strategy="nope")
    with pytest.raises(ValueError, match="sensitivity|score_source"):
        DragRetriever(store=str(tmp_path), score_source="nope")
    retriever = DragRetriever(store=str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="no index at"):
        retriever.invoke(QUERY)
    assert not (tmp_path / "missing").exists()
