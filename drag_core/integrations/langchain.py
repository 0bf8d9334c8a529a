"""``DragRetriever``: DRAG with KNEE as a LangChain retriever (needs ``pip install "drag-with-knee[langchain]"``).

Use::

    from drag_core.integrations.langchain import DragRetriever

    retriever = DragRetriever(store="data/qdrant", strategy="adaptive", sensitivity=2.0)
    for doc in retriever.invoke("How do I read a CSV file?"):
        print(doc.metadata["file_name"], doc.metadata["page_start"], doc.page_content[:80])

``store`` is an index folder or a Qdrant server URL (``http://…``/``https://…``); any other ``SearchParams`` field
is a keyword. Each result node becomes one ``Document`` holding its pages' text (a parent node: the text of the
pages it covers) with metadata ``file_name, page_start, page_end, level, score, strategy, title`` (and ``node_id``),
the same as the LlamaIndex retriever's (``drag_core.integrations.passages``).
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.integrations.passages import KNOBS, Retrieval
from drag_core.search import SearchParams

__all__ = ["KNOBS", "DragRetriever"]


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
    _retrieval: Retrieval = PrivateAttr()

    def __init__(
        self,
        store: str | None = None,
        strategy: str = "adaptive",
        engine: Engine | None = None,
        settings: Settings | None = None,
        **knobs: Any,
    ) -> None:
        retrieval = Retrieval(store, strategy, engine, settings, knobs)  # takes the knobs out of ``knobs``
        super().__init__(store=store, strategy=strategy, params=retrieval.params, **knobs)
        self._retrieval = retrieval

    @property
    def engine(self) -> Engine:
        """The engine of ``store``, opened on first use; a folder with no index is refused, not created."""
        return self._retrieval.engine

    def close(self) -> None:
        """Release the index (an embedded folder can be opened by one process at a time)."""
        self._retrieval.close()

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        _, found = self._retrieval.search(query)
        return [Document(page_content=p.text, metadata=p.metadata) for p in found]
