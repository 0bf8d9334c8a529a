"""``DragRetriever``: DRAG with KNEE as a LlamaIndex retriever (needs ``pip install "drag-with-knee[llamaindex]"``).

Use::

    from drag_core.integrations.llamaindex import DragRetriever

    retriever = DragRetriever(store="data/qdrant", strategy="adaptive", sensitivity=0.4)
    for hit in retriever.retrieve("How do I read a CSV file?"):  # or: await retriever.aretrieve(…)
        print(hit.node.metadata["file_name"], hit.node.metadata["page_start"], hit.score, hit.node.text[:80])

``store`` is an index folder or a Qdrant server URL (``http://…``/``https://…``); any other ``SearchParams`` field
is a keyword. Each kept node becomes one ``NodeWithScore``: a ``TextNode`` holding its pages' text (a parent: the
text of the pages it covers) with metadata ``file_name, page_start, page_end, level, score, strategy, title``
(and ``node_id``) — the LangChain retriever's — and the fused score as its score.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.integrations.passages import KNOBS, Passage, Retrieval
from drag_core.search import SearchParams

__all__ = ["KNOBS", "DragRetriever"]


class DragRetriever(BaseRetriever):
    """Nodes for a query from a DRAG with KNEE index, as many as the strategy's knee cuts keep.

    Takes what the LangChain ``DragRetriever`` takes (``passages.Retrieval`` resolves both): ``store`` (a folder
    or a server URL; None: the environment's), ``strategy``, ``engine=`` or ``settings=``, and every
    ``SearchParams`` knob as a keyword — plus LlamaIndex's ``callback_manager`` and ``verbose``. ``aretrieve``
    runs the search in a worker thread, so an event loop is not held up while it embeds the question.
    """

    def __init__(
        self,
        store: str | None = None,
        strategy: str = "adaptive",
        engine: Engine | None = None,
        settings: Settings | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        **knobs: Any,
    ) -> None:
        self._retrieval = Retrieval(store, strategy, engine, settings, knobs)
        if knobs:
            raise TypeError(f"unknown arguments {sorted(knobs)}; search knobs are {', '.join(sorted(KNOBS))}")
        super().__init__(callback_manager=callback_manager, verbose=verbose)
        self.store = store

    @property
    def strategy(self) -> str:
        return self._retrieval.strategy

    @property
    def params(self) -> SearchParams:
        return self._retrieval.params

    @property
    def engine(self) -> Engine:
        """``Retrieval.engine``: opened on first use, a folder with no index refused."""
        return self._retrieval.engine

    def close(self) -> None:
        """Release the index (``Retrieval.close``)."""
        self._retrieval.close()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        _, found = self._retrieval.search(query_bundle.query_str)
        return [_node(p) for p in found]

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return await asyncio.to_thread(self._retrieve, query_bundle)


def _node(passage: Passage) -> NodeWithScore:
    """A passage as LlamaIndex's node with score (its id: the DRAG node id)."""
    node = TextNode(
        id_=str(passage.metadata["node_id"]),
        text=passage.text,
        metadata=passage.metadata,
        excluded_llm_metadata_keys=["score", "node_id"],  # what an LLM reads: where the text is from
        excluded_embed_metadata_keys=["score", "node_id"],
    )
    return NodeWithScore(node=node, score=passage.metadata["score"])
