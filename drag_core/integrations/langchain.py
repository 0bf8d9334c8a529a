"""``DragRetriever``: DRAG with KNEE as a LangChain retriever (needs ``pip install "drag-with-knee[langchain]"``).

Use::

    from drag_core.integrations.langchain import DragRetriever

    retriever = DragRetriever(store="data/qdrant", strategy="adaptive", sensitivity=2.0)
    for doc in retriever.invoke("How do I read a CSV file?"):
        print(doc.metadata["file_name"], doc.metadata["page_start"], doc.page_content[:80])

``store`` is an index folder or a Qdrant server URL (``http://…``/``https://…``); any other ``SearchParams`` field
is a keyword. Each result node becomes one ``Document`` holding its pages' text (a parent node: the text of the
pages it covers) with metadata ``file_name, page_start, page_end, level, score, strategy`` (and ``node_id``).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.search import SearchParams
from drag_core.search import strategy as strategy_named
from drag_core.search.base import SearchResult
from drag_core.store import index_exists
from drag_core.types import Node

__all__ = ["KNOBS", "DragRetriever"]

KNOBS = frozenset(f.name for f in fields(SearchParams))


class DragRetriever(BaseRetriever):
    """Documents for a query from a DRAG with KNEE index, as many as the strategy's knee cuts keep.

    Attributes:
        store: index folder or Qdrant server URL (None: DRAG_STORE / QDRANT_URL / ./data/qdrant).
        strategy: a name of ``drag_core.search.STRATEGIES`` (default ``adaptive``).
        params: the search knobs (given as keywords: ``DragRetriever(store=…, sensitivity=2.0)``).

    ``engine=`` shares an open ``Engine`` (e.g. the app's) instead of opening ``store``; ``settings=`` gives
    settings resolved elsewhere. Otherwise the settings are read from the environment once, here: knobs not
    given take their defaults from them (``Settings.search``, e.g. ``DRAG_RRF_K``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: str | None = None
    strategy: str = "adaptive"
    params: SearchParams = Field(default_factory=SearchParams)
    _engine: Engine | None = PrivateAttr(default=None)
    _settings: Settings = PrivateAttr()

    def __init__(
        self,
        store: str | None = None,
        strategy: str = "adaptive",
        engine: Engine | None = None,
        settings: Settings | None = None,
        **knobs: Any,
    ) -> None:
        strategy_named(strategy)  # ValueError naming the choices for an unknown one
        if engine is not None:
            settings = engine.settings
        elif settings is None:
            is_url = (store or "").startswith(("http://", "https://"))
            settings = Settings.from_env(**{"qdrant_url" if is_url else "store": store})
        given = {k: knobs.pop(k) for k in KNOBS & set(knobs)}
        params = knobs.pop("params", None) or settings.search.with_(**given)
        super().__init__(store=store, strategy=strategy, params=params, **knobs)
        self._engine = engine
        self._settings = settings

    @property
    def engine(self) -> Engine:
        """The engine of ``store``, opened on first use; a folder with no index is refused, not created."""
        if self._engine is None:
            if not index_exists(self._settings):
                raise ValueError(f"no index at {self._settings.store}: ingest documents first")
            self._engine = Engine(self._settings)
        return self._engine

    def close(self) -> None:
        """Release the index (an embedded folder can be opened by one process at a time)."""
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        result = self.engine.search(query, self.strategy, self.params)
        return [self._document(node, result, self._page_texts(result)) for node in result.nodes]

    def _page_texts(self, result: SearchResult) -> dict[tuple[str, int], str]:
        """Page texts of every file a parent node of the result covers (leaves carry their own)."""
        texts = {(n.file_name, n.page_start): n.text for n in result.nodes if n.level == 0}
        for file_name in sorted({n.file_name for n in result.nodes if n.level > 0}):
            for leaf in self.engine.tree(file_name, with_text=True):
                if leaf.level == 0:
                    texts[(file_name, leaf.page_start)] = leaf.text
        return texts

    def _document(self, node: Node, result: SearchResult, texts: dict[tuple[str, int], str]) -> Document:
        pages = [texts.get((node.file_name, p), "") for p in node.pages]
        return Document(
            page_content="\n\n".join(p for p in pages if p) or node.summary,
            metadata={
                "file_name": node.file_name,
                "page_start": node.page_start,
                "page_end": node.page_end,
                "level": node.level,
                "score": result.scores.get(node.id),
                "strategy": result.strategy,
                "node_id": node.id,
            },
        )
