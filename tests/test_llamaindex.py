"""``DragRetriever`` with the real llama-index-core against a real index of the bundled sample PDF: the pages
``Engine.search`` keeps, sync and async, with the LangChain retriever's metadata."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
import test_langchain
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from drag_core.engine import Engine
from drag_core.integrations import langchain
from drag_core.integrations.llamaindex import DragRetriever
from drag_core.search import STRATEGIES, SearchParams

QUERY = "How do I read a CSV file into a data frame?"
# the sample's index, built once a module by the LangChain tests' fixtures
sample_index, indexed = test_langchain.sample_index, test_langchain.indexed


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_retrieve_and_aretrieve_return_the_pages_of_engine_search(indexed: Path, strategy: str) -> None:
    retriever = DragRetriever(store=str(indexed), strategy=strategy, sensitivity=0.4, top_k=3, beam_width=3)
    assert isinstance(retriever, BaseRetriever)
    knobs = SearchParams(sensitivity=0.4, top_k=3, beam_width=3)
    assert retriever.params == knobs and retriever.strategy == strategy
    try:
        hits = retriever.retrieve(QUERY)
        again = asyncio.run(retriever.aretrieve(QUERY))
        expected = retriever.engine.search(QUERY, strategy, knobs)
        leaves = {
            n.page_start: n.text for n in retriever.engine.tree("R-data.pdf", with_text=True) if n.level == 0
        }
    finally:
        retriever.close()
    assert hits and all(isinstance(h, NodeWithScore) and isinstance(h.node, TextNode) for h in hits)
    for found in (hits, again):
        assert [h.node.node_id for h in found] == [str(n.id) for n in expected.nodes]
    for hit, node in zip(hits, expected.nodes):
        assert hit.score == pytest.approx(expected.scores[node.id])
        assert hit.node.metadata == {
            "file_name": "R-data.pdf",
            "page_start": node.page_start,
            "page_end": node.page_end,
            "level": node.level,
            "score": pytest.approx(expected.scores[node.id]),
            "strategy": strategy,
            "title": node.title,
            "node_id": node.id,
        }
        pages = range(node.page_start, node.page_end + 1)
        assert hit.node.text == "\n\n".join(leaves[p] for p in pages if leaves[p])
        assert "node_id" not in hit.node.get_content(MetadataMode.LLM)


def test_the_metadata_is_the_langchain_retrievers(indexed: Path) -> None:
    llama = DragRetriever(store=str(indexed), knee_method="kneedle")
    try:
        hits = llama.retrieve(QUERY)
    finally:
        llama.close()
    chain = langchain.DragRetriever(store=str(indexed), knee_method="kneedle")
    try:
        docs = chain.invoke(QUERY)
    finally:
        chain.close()
    assert [h.node.metadata for h in hits] == [d.metadata for d in docs]
    assert [h.node.text for h in hits] == [d.page_content for d in docs]


def test_a_shared_engine_serves_the_retriever(indexed: Path, make_engine: Callable[..., Engine]) -> None:
    engine = make_engine(store=str(indexed))
    retriever = DragRetriever(engine=engine, strategy="flat", top_k=2)
    assert [h.node.metadata["page_start"] for h in retriever.retrieve(QUERY)] == [
        n.page_start for n in engine.search(QUERY, "flat", SearchParams(top_k=2)).nodes
    ]


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown strategy"):
        DragRetriever(store=str(tmp_path), strategy="nope")
    with pytest.raises(ValueError, match="unknown knee method"):
        DragRetriever(store=str(tmp_path), knee_method="nope")
    with pytest.raises(TypeError, match=r"unknown arguments \['top_kk'\]"):
        DragRetriever(store=str(tmp_path), top_kk=3)
    retriever = DragRetriever(store=str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="no index at"):
        retriever.retrieve(QUERY)
    with pytest.raises(ValueError, match="no index at"):
        asyncio.run(retriever.aretrieve(QUERY))
    assert not (tmp_path / "missing").exists()
