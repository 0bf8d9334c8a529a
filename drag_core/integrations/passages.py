"""What every framework adapter shares: a store, a strategy and its knobs resolved once (``Retrieval``), and a
search result turned into passages — each kept node's pages' text with the same metadata in every framework
(``Passage``: ``file_name, page_start, page_end, level, score, strategy, title, node_id``).

The LangChain and LlamaIndex retrievers wrap it; it imports no framework. Its ``Retrieval`` reads the
environment when it is given neither an engine nor settings (an entry point, like ``Engine.from_env``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.search import SearchParams, SearchResult
from drag_core.search import strategy as strategy_named
from drag_core.store import index_exists
from drag_core.types import Node

__all__ = ["KNOBS", "Passage", "Retrieval", "node_metadata", "passages"]

#: The keyword arguments a retriever takes as search knobs: the fields of ``SearchParams``.
KNOBS = frozenset(f.name for f in fields(SearchParams))


@dataclass(frozen=True)
class Passage:
    """One kept node as a framework document.

    Attributes:
        text: the text of the pages it covers, joined by blank lines (its summary if they have none).
        metadata: ``file_name, page_start, page_end, level, score, strategy, title, node_id``.
    """

    text: str
    metadata: dict[str, Any]


def node_metadata(node: Node, result: SearchResult) -> dict[str, Any]:
    """The metadata of a kept node: where it is, its level, its fused score, the strategy, its section."""
    return {
        "file_name": node.file_name,
        "page_start": node.page_start,
        "page_end": node.page_end,
        "level": node.level,
        "score": result.scores.get(node.id),
        "strategy": result.strategy,
        "title": node.title,
        "node_id": node.id,
    }


def passages(engine: Engine, result: SearchResult) -> list[Passage]:
    """Each node of ``result`` (best first) with its pages' text: a page its own, a parent the pages under it."""
    texts = {(n.file_name, n.page_start): n.text for n in result.nodes if n.level == 0}
    for file_name in sorted({n.file_name for n in result.nodes if n.level > 0}):
        for leaf in engine.tree(file_name, with_text=True):
            if leaf.level == 0:
                texts[(file_name, leaf.page_start)] = leaf.text
    found = []
    for node in result.nodes:
        pages = [texts.get((node.file_name, p), "") for p in node.pages]
        found.append(Passage("\n\n".join(p for p in pages if p) or node.summary, node_metadata(node, result)))
    return found


class Retrieval:
    """A store, a strategy and its knobs, as a retriever holds them.

    Attributes:
        strategy: a name of ``drag_core.search.STRATEGIES`` (an unknown one: ``ValueError`` naming the choices).
        params: the knobs; those not given take the settings' defaults (``Settings.search``).
        settings: ``engine``'s, else those given, else the environment's with ``store`` applied (a folder, or
            a Qdrant server URL ``http://…``/``https://…``).

    ``knobs`` is the retriever's keyword arguments: the ``SearchParams`` fields (and ``params=``) are taken
    out of it, so what remains is the framework's own.
    """

    def __init__(
        self,
        store: str | None,
        strategy: str,
        engine: Engine | None,
        settings: Settings | None,
        knobs: dict[str, Any],
    ) -> None:
        strategy_named(strategy)
        if engine is not None:
            settings = engine.settings
        elif settings is None:
            is_url = (store or "").startswith(("http://", "https://"))
            settings = Settings.from_env(**{"qdrant_url" if is_url else "store": store})
        given = {k: knobs.pop(k) for k in KNOBS & set(knobs)}
        self.params: SearchParams = knobs.pop("params", None) or settings.search.with_(**given)
        self.strategy = strategy
        self.settings = settings
        self._engine = engine

    @property
    def engine(self) -> Engine:
        """The engine of the store, opened on first use; a folder with no index is refused, not created."""
        if self._engine is None:
            if not index_exists(self.settings):
                raise ValueError(f"no index at {self.settings.store}: ingest documents first")
            self._engine = Engine(self.settings)
        return self._engine

    def close(self) -> None:
        """Release the index (an embedded folder can be opened by one process at a time)."""
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def search(self, query: str) -> tuple[SearchResult, list[Passage]]:
        """Search with the strategy and knobs; the result and its passages."""
        result = self.engine.search(query, self.strategy, self.params)
        return result, passages(self.engine, result)
