"""``Engine``: the public face of the core — ingest files, search, list, inspect and remove documents.

The front door: pages, the CLI, compare and evaluation call these methods and never the store; each takes
the engine's lock around its store calls. Usable without Streamlit::

    from drag_core import Engine, SearchParams
    engine = Engine.from_env()
    engine.ingest_paths(["manual.pdf"])
    result = engine.search("how do I read a CSV file?", "adaptive", SearchParams(sensitivity=1.0))
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from drag_core.config import DEFAULT_DENSE_MODEL, DEFAULT_SPARSE_MODEL, Settings, sparse_identity
from drag_core.ingest.describe.base import Summarizer
from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.corpus import CorpusTable, IndexCorpus
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.loading import LoadedDocument, clean_file_name, document_id
from drag_core.ingest.parsing import PageCache, Parser
from drag_core.ingest.pipeline import Ingestor, failed, stale_reason
from drag_core.ingest.report import (
    CancelCheck,
    IngestCancelled,
    IngestReport,
    ProgressCallback,
    ProgressEvent,
    stop_if_asked,
)
from drag_core.ingest.tree import node_id_base
from drag_core.ingest.vector_text import VectorPolicy
from drag_core.layout import page_cache_beside
from drag_core.llm.config import LLMConfig
from drag_core.models.embeddings import Embedder
from drag_core.models.files import DENSE_DIM
from drag_core.models.query_embedder import QueryEmbedder
from drag_core.search import SearchContext, SearchParams, SearchResult
from drag_core.search import strategy as strategy_named
from drag_core.store import NodeStore, QueryVectors, open_store
from drag_core.store.lease import Lease
from drag_core.store.originals import Originals
from drag_core.text import counted
from drag_core.types import Node

__all__ = ["DocumentInfo", "Engine", "default_summarizer"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DocumentInfo:
    """One indexed document, read from its root.

    Attributes:
        file_name, doc_id: which document and which version.
        pages, empty_pages, nodes: its size.
        levels: tree height (leaves are level 0).
        fallbacks: nodes whose LLM description fell back to the offline summariser.
        root_id: the root's point id.
        current: it was built as this engine builds it (False: by an older version of the tree, or with
            another vector policy or other BM25 constants; ingesting the file again rebuilds it).
        stale_reason: why it is not current ("" when it is).
        running_lines: the running headers and footers left out of its summaries, keywords and vectors: (an
            example line, on how many pages).
        page_numbers: pages whose printed page number was left out.
        sections: entries of its outline (PDF bookmarks, Markdown headings; 0: it has none).
    """

    file_name: str
    doc_id: str
    pages: int
    empty_pages: int
    nodes: int
    levels: int
    fallbacks: int
    root_id: int
    current: bool = True
    stale_reason: str = ""
    running_lines: tuple[tuple[str, int], ...] = ()
    page_numbers: int = 0
    sections: int = 0


def default_summarizer(llm: LLMConfig | None) -> Summarizer:
    """The OpenAI-compatible summariser when an endpoint is configured, else the offline extractive one."""
    from drag_core.ingest.describe.extractive import ExtractiveSummarizer

    if llm is None:
        return ExtractiveSummarizer()
    from drag_core.ingest.describe.openai_llm import OpenAISummarizer

    return OpenAISummarizer(llm, fallback=ExtractiveSummarizer())


class Engine:
    """Documents → summary tree in Qdrant → branch, beam and adaptive-knee search.

    Attributes:
        settings: where the index lives and which models build it.
        store: the Qdrant store (Qdrant Edge, local mode or a server; see ``store.open_store``); only the
            engine calls it, under ``lock``.
        embedder: dense + sparse embedder, loaded on first use (a search alone uses the lighter ``QueryEmbedder``).
        summarizer: describes pages and groups.
        policy: which text each vector sees.
        parser: files → pages, cached by content hash (with pypdf, several files in parallel processes).
        corpus: the term statistics of the indexed documents (kept beside the description cache) that keywords
            are weighed against.
        lock: serialises store access; qdrant-client local mode is not thread-safe, and one engine serves
            every session of the app.
        lease: this engine's writer id and lease: other engines writing into the same collection leave its
            half-written documents alone (``lease``).
        originals: the original files of the documents ingested from bytes, by content hash (a PDF page is
            rendered from them; ``store.originals``).
    """

    def __init__(
        self,
        settings: Settings,
        summarizer: Summarizer | None = None,
        embedder: Embedder | None = None,
        policy: VectorPolicy | None = None,
        store: NodeStore | None = None,
    ) -> None:
        self.settings = settings
        self.store = store or open_store(settings)  # first: an unusable store is reported before models load
        self.summarizer = summarizer or default_summarizer(settings.llm)
        self.policy = policy or VectorPolicy()
        self.cache = DescriptionCache(settings.cache_path)
        self.corpus = IndexCorpus(CorpusTable(settings.cache_path), self._indexed)
        self.parser = Parser(
            settings.max_file_bytes,
            PageCache(page_cache_beside(settings.cache_path)),
            pdf_engine=settings.pdf_engine,
        )
        self.lock = threading.RLock()
        self._models_lock = threading.RLock()  # re-entrant: ``ingestor`` loads ``embedder``
        self._embedder = embedder
        self._query_embedder: QueryEmbedder | None = None
        self._ingestor: Ingestor | None = None
        self.lease = Lease(seconds=settings.lease_seconds)
        self.originals = Originals(settings.layout.originals if settings.layout else None)
        self.store.ensure_collection(self._dense_dim())
        if self.policy.passages != "off" and not self.store.holds_passages:
            log.warning(
                "collection %s was created before passages: its pages rank by their page vectors only, and "
                "its documents stay listed as built with other vector settings; ingest into a new store (or "
                "collection) to read whole pages",
                self.store.collection,
            )
        self.store.recover(self.lease)

    @property
    def embedder(self) -> Embedder:
        """The dense + sparse embedder, loaded on first use: a search alone needs only query vectors."""
        with self._models_lock:
            if self._embedder is None:
                s = self.settings
                self._embedder = Embedder(
                    s.model_dir, s.dense_model, s.sparse_model, threads=s.embed_threads, bm25=s.bm25
                )
                self._query_embedder = None  # the full embedder answers queries from now on
        return self._embedder

    @property
    def ingestor(self) -> Ingestor:
        with self._models_lock:
            if self._ingestor is None:
                describer = Describer(self.summarizer, self.cache)
                self._ingestor = Ingestor(
                    self.store, self.embedder, describer, self.policy, self.corpus, self.lock, self.lease
                )
        return self._ingestor

    def _dense_dim(self) -> int:
        """The dense vector size, without loading the model when it is the default one."""
        if self._embedder is None and self.settings.dense_model == DEFAULT_DENSE_MODEL:
            return DENSE_DIM
        return self.embedder.dim

    def _sparse_identity(self) -> str:
        """What builds the sparse vectors: the loaded embedder's, else the settings' (no model loaded)."""
        if self._embedder is not None:
            return self._embedder.sparse_identity
        return sparse_identity(self.settings.sparse_model, self.settings.bm25)

    def _light_query_embedder(self) -> QueryEmbedder | None:
        """The fastembed-free query embedder while the full one is not loaded (default models only)."""
        s = self.settings
        if self._embedder is not None or (s.dense_model, s.sparse_model) != (
            DEFAULT_DENSE_MODEL,
            DEFAULT_SPARSE_MODEL,
        ):
            return None
        with self._models_lock:
            if self._query_embedder is None:
                try:
                    self._query_embedder = QueryEmbedder(s.model_dir)
                except FileNotFoundError:  # the model folder is not built yet: the full embedder builds it
                    return None
        return self._query_embedder

    @classmethod
    def from_env(cls, **overrides: object) -> Engine:
        """An engine on the settings of the environment (``Settings.from_env``), for scripts and notebooks."""
        return cls(Settings.from_env(**overrides))

    # -- ingestion -------------------------------------------------------------------------------------
    def ingest_paths(
        self, paths: Iterable[Path | str], progress: ProgressCallback | None = None
    ) -> list[IngestReport]:
        """Ingest files from disk; a file that fails gets a report with its reason, the others go on."""
        return list(self.iter_ingest_paths(paths, progress))

    def iter_ingest_paths(
        self, paths: Iterable[Path | str], progress: ProgressCallback | None = None
    ) -> Iterator[IngestReport]:
        """``ingest_paths`` one file at a time: each report is yielded as soon as its file is done."""
        paths = [Path(p) for p in paths]
        known = [self._unchanged(path.name, _read(path, self.settings.max_file_bytes)) for path in paths]
        # the others are parsed (with pypdf: in parallel) while earlier files are being ingested
        loads = iter(self.parser.parse_paths([path for path, report in zip(paths, known) if report is None]))
        for path, report in zip(paths, known):
            report = report or self._ingest(path.name, next(loads), progress)
            yield self._keep_original(report, lambda path=path: _read(path, self.settings.max_file_bytes))

    def ingest_bytes(
        self,
        name: str,
        data: bytes,
        progress: ProgressCallback | None = None,
        cancel: CancelCheck | None = None,
    ) -> IngestReport:
        """Ingest an uploaded file. ``cancel`` is asked between batches of every stage before the store stage:
        when it says yes the file ends ``cancelled`` and the index holds nothing of it (an older version of the
        file stays as it was)."""
        report = self._unchanged(name, data) or self._ingest(
            name, lambda: self.parser.parse_bytes(name, data), progress, cancel
        )
        return self._keep_original(report, lambda: data)

    def _keep_original(self, report: IngestReport, read: Callable[[], bytes | None]) -> IngestReport:
        """Keep the bytes of a file the index now holds (``originals``); a failure to keep them costs only
        the page image, never the ingest."""
        if report.ok and report.doc_id:
            try:
                data = read()
                if data is not None and document_id(data) == report.doc_id:
                    self.originals.put(report.doc_id, data)
            except OSError as error:
                log.warning("could not keep the original of %s: %s", report.file_name, error)
        return report

    def _unchanged(self, name: str, data: bytes | None) -> IngestReport | None:
        """The report of a file indexed already with these bytes (nothing parsed, described or embedded), else
        None (also when the file cannot be read: ingesting it says why)."""
        try:
            return None if data is None else self.ingestor.unchanged(clean_file_name(name), document_id(data))
        except Exception:  # a bad name, a store error: ingesting the file reports it
            return None

    def ingest_document(
        self, document: LoadedDocument, progress: ProgressCallback | None = None
    ) -> IngestReport:
        """Ingest a document already split into pages (e.g. one passage of an evaluation corpus)."""
        return self._ingest(document.file_name, lambda: document, progress)

    def _ingest(
        self,
        name: str,
        load: Callable[[], LoadedDocument],
        progress: ProgressCallback | None,
        cancel: CancelCheck | None = None,
    ) -> IngestReport:
        started = time.perf_counter()
        try:
            if progress:
                progress(ProgressEvent(name, "pages", 0, 1))
            document: LoadedDocument = load()
            stop_if_asked(cancel)
            if progress:
                progress(ProgressEvent(document.file_name, "pages", len(document.pages), len(document.pages)))
            report = self.ingestor.ingest(
                document, progress, cancel
            )  # takes self.lock around store calls only
            report.stage_seconds["pages"] = time.perf_counter() - started - sum(report.stage_seconds.values())
        except Exception as error:  # one bad file never stops the batch; the store is left as it was
            if isinstance(error, IngestCancelled):  # asked to stop: not a failure
                log.info("ingest of %s cancelled: %s", name, error)
            else:
                log.warning("ingest of %s failed: %s", name, error)
            self._discard_partial(name)
            report = failed(name, error)
        report.seconds = time.perf_counter() - started
        return report

    def _discard_partial(self, name: str) -> None:
        try:
            with self.lock:
                self.store.recover(self.lease)
        except Exception as error:
            log.warning("could not clean up after %s: %s", name, error)

    # -- documents -------------------------------------------------------------------------------------
    def documents(self) -> list[DocumentInfo]:
        """Every complete document in the index, by file name (no model is loaded to tell whether each was
        built with the current vector settings)."""
        sparse = self._sparse_identity()
        return sorted((self._info(r, sparse) for r in self._roots()), key=lambda d: d.file_name.lower())

    def _info(self, root: Node, sparse_identity: str) -> DocumentInfo:
        """A document's description, read from its root."""
        reason = stale_reason(root, self.policy, sparse_identity)
        return DocumentInfo(
            file_name=root.file_name,
            doc_id=root.doc_id,
            pages=int(root.extra.get("pages", root.page_end)),
            empty_pages=int(root.extra.get("empty_pages", 0)),
            nodes=int(root.extra.get("nodes", 0)),
            levels=root.level + 1,
            fallbacks=int(root.extra.get("fallbacks", 0)),
            root_id=root.id,
            current=not reason,
            stale_reason=reason,
            running_lines=tuple((str(line), int(n)) for line, n in root.extra.get("running_lines", [])),
            page_numbers=int(root.extra.get("page_numbers", 0)),
            sections=int(root.extra.get("sections", 0)),
        )

    def _roots(self) -> list[Node]:
        with self.lock:
            return self.store.roots()

    def _indexed(self) -> list[tuple[str, str]]:
        """(file name, doc_id) of every document in the index."""
        return [(r.file_name, r.doc_id) for r in self._roots()]

    def tree(self, file_name: str, with_text: bool = False) -> list[Node]:
        """All nodes of a document's tree (leaves first). Raises KeyError for an unknown file."""
        with self.lock:
            return self.store.nodes_of(self._document(file_name).doc_id, with_text, file_name)

    def remove(self, file_name: str) -> int:
        """Remove a document and every one of its nodes (and its original, unless another file holds the same
        bytes); returns how many nodes were removed."""
        with self.lock:
            info = self._document(file_name)
            self.store.delete_document(info.doc_id, file_name)
            if not self.store.roots(doc_id=info.doc_id):
                self.originals.remove(info.doc_id)
        self.corpus.removed((file_name, info.doc_id))
        return info.nodes

    def node_count(self) -> int:
        """Points in the collection (every node of every document)."""
        with self.lock:
            return self.store.count()

    @property
    def engine_label(self) -> str:
        """Which Qdrant engine holds the index, for people (e.g. "Qdrant Edge (embedded)")."""
        return self.store.engine_label

    def nodes(self, ids: Iterable[int], with_text: bool = True) -> list[Node]:
        """Nodes by id, in the order asked (unknown ids are skipped)."""
        with self.lock:
            return self.store.get(ids, with_text)

    def leaves(self, doc_ids: Iterable[str]) -> list[Node]:
        """The pages (leaves, with text) of these document versions, each document's in page order."""
        with self.lock:
            nodes = [n for doc_id in dict.fromkeys(doc_ids) for n in self.store.nodes_of(doc_id, True)]
        return [n for n in nodes if n.level == 0]

    def context_pages(self, nodes: Sequence[Node]) -> list[Node]:
        """The pages (leaves, with text) the given nodes stand for, in result order, each page once.

        A parent returns every page under it; its descendants are fetched one tree level per Qdrant call.
        """
        known: dict[int, Node] = {n.id: n for n in nodes}
        pending = [c for n in nodes for c in n.child_ids if c not in known]
        while pending:
            fetched = self.nodes(pending)
            known.update((n.id, n) for n in fetched)
            pending = [c for n in fetched for c in n.child_ids if c not in known]

        def leaves(node: Node) -> list[Node]:
            if not node.child_ids:
                return [node]
            return [leaf for c in node.child_ids if c in known for leaf in leaves(known[c])]

        pages: dict[int, Node] = {}
        for node in nodes:
            for leaf in sorted(leaves(node), key=lambda n: (n.file_name, n.page_start)):
                pages.setdefault(leaf.id, leaf)
        return list(pages.values())

    def pages_of(self, node_id: int) -> list[Node]:
        """The pages (with text) under one node; the node itself when it is a page. Empty for an unknown id."""
        return self.context_pages(self.nodes([node_id]))

    def document(self, file_name: str) -> DocumentInfo:
        """The indexed document of that name. Raises ``KeyError`` with a one-line reason."""
        return self._document(file_name)

    def page(self, file_name: str, number: int) -> Node:
        """Page ``number`` (1-based) of an indexed document, with its text. Raises ``KeyError`` for a file that
        is not indexed and ``ValueError`` for a page it does not have."""
        info = self._document(file_name)
        if not 1 <= number <= info.pages:
            raise ValueError(f"page {number} does not exist: {file_name} has {counted(info.pages, 'page')}")
        wanted = node_id_base(file_name, info.doc_id) + number - 1  # leaves come first, in page order
        found = [n for n in self.nodes([wanted]) if n.level == 0 and n.page_start == number]
        if not found:
            with self.lock:
                nodes = self.store.nodes_of(info.doc_id, True, file_name)
            found = [n for n in nodes if n.level == 0 and n.page_start == number]
        if not found:
            raise ValueError(f"page {number} of {file_name} is not in the index")
        return found[0]

    def original(self, doc_id: str) -> bytes | None:
        """The bytes of a document version (``doc_id``) as it was ingested, or None when they are not kept
        here: it was ingested before originals were kept, from pages rather than a file, or by another machine
        into a shared server."""
        return self.originals.get(doc_id)

    def _document(self, file_name: str) -> DocumentInfo:
        """The document of that name, from its root alone (one filtered call, whatever the index holds)."""
        with self.lock:
            roots = self.store.roots(file_name)
        if not roots:
            raise KeyError(f"no document named {file_name!r} in the index")
        return self._info(roots[0], self._sparse_identity())

    # -- search ----------------------------------------------------------------------------------------
    def embed_query(self, query: str) -> QueryVectors:
        light = self._light_query_embedder()
        dense, sparse = light.query(query) if light else self.embedder.query(query)
        return QueryVectors(dense=dense, sparse=sparse)

    def search(
        self,
        query: str,
        strategy: str = "adaptive",
        params: SearchParams | None = None,
        vectors: QueryVectors | None = None,
    ) -> SearchResult:
        """Run one strategy; ``vectors`` lets callers embed a query once for several strategies."""
        chosen = strategy_named(strategy)
        if not query.strip():
            raise ValueError("the query is empty")
        params = params or self.settings.search
        started = time.perf_counter()
        vectors = vectors or self.embed_query(query)
        with self.lock:
            trips = self.store.round_trips
            final, steps = chosen.run(SearchContext(self.store, vectors, params))
            nodes = self.store.get(c.id for c in final)
            trips = self.store.round_trips - trips
        return SearchResult(
            strategy=strategy,
            query=query,
            nodes=nodes,
            scores={c.id: c.fused for c in final},
            trace=steps,
            latency_ms=(time.perf_counter() - started) * 1000,
            round_trips=trips,
            params=params,
        )

    def close(self) -> None:
        with self.lock:
            self.store.close()


def _read(path: Path, max_bytes: int) -> bytes | None:
    """The bytes of a readable file of at most ``max_bytes``, else None."""
    try:
        return path.read_bytes() if path.is_file() and path.stat().st_size <= max_bytes else None
    except OSError:
        return None
