"""The ingest pipeline, one way: load → describe → tree → embed → store.

One bad file never spoils the others: each file either ends in the index whole, or not at all, with a
one-line reason in its report.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import Any

from drag_core.config import DEFAULT_SPARSE_MODEL
from drag_core.ingest.describe.base import DocumentContext, document_terms
from drag_core.ingest.describe.corpus import CorpusView, IndexCorpus
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.loading import LoadedDocument, LoadError
from drag_core.ingest.report import (
    CancelCheck,
    IngestCancelled,
    IngestReport,
    IngestStatus,
    ProgressCallback,
    ProgressEvent,
    StaleReason,
    stop_if_asked,
)
from drag_core.ingest.sections import Sections
from drag_core.ingest.tree import TREE_VERSION, build_tree, plan_tree
from drag_core.ingest.vector_text import (
    VectorPolicy,
    dense_count,
    dense_vectors,
    passage_texts,
    passage_vectors,
    sparse_texts,
    stored_passages,
)
from drag_core.models.embeddings import Embedder
from drag_core.store import NodeStore
from drag_core.store.lease import Lease
from drag_core.types import Description, Node

__all__ = [
    "Ingestor",
    "built_alike",
    "describe_tree",
    "failed",
    "stale_reason",
]

log = logging.getLogger(__name__)


def describe_tree(
    document: LoadedDocument,
    describer: Describer,
    corpus: CorpusView | None = None,
    progress: Callable[[str], Callable[[int, int], None] | None] = lambda stage: None,
    timer: Callable[[str], AbstractContextManager[Any]] = lambda stage: nullcontext(),
) -> list[Node]:
    """The document's described tree (describe → tree): its pages described from their bodies against
    ``corpus`` (None: the document alone), then the planned parents level by level. ``progress`` and
    ``timer`` give each of the stages "summaries" and "tree" its progress callback and its timer; the tree's
    progress counts over all its levels."""
    bodies = [page.body for page in document.pages]
    if corpus is None:
        context = DocumentContext.alone(document.file_name, bodies, document.outline)
    else:
        context = DocumentContext(document.file_name, tuple(bodies), corpus, document.outline)
    with timer("summaries"):
        pages = describer.pages(context, progress("summaries"))
    with timer("tree"):
        plan = plan_tree(document)
        tree_progress, finished = progress("tree"), 0

        def describe_level(groups: list[tuple[list[Description], range]]) -> list[Description]:
            nonlocal finished
            done_so_far = finished
            report = (
                (lambda done, _: tree_progress(done_so_far + done, plan.parents)) if tree_progress else None
            )
            described = describer.groups(context, groups, report)
            finished += len(groups)
            return described

        return build_tree(document, pages, plan, describe_level)


class Ingestor:
    """Runs the pipeline for loaded documents against one store.

    Attributes:
        store, embedder, describer, policy: the parts it wires together (``policy`` as the store can hold it:
            without passages in a collection created before them).
        corpus: the term statistics of the indexed documents keywords are weighed against.
        lock: held around store calls only, so searches go on while pages are described and embedded.
        lease: stamped on every point written (None: no lease, a single writer).
    """

    def __init__(
        self,
        store: NodeStore,
        embedder: Embedder,
        describer: Describer,
        policy: VectorPolicy,
        corpus: IndexCorpus,
        lock: AbstractContextManager[Any] | None = None,
        lease: Lease | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.describer = describer
        self.policy = policy if store.holds_passages else replace(policy, passages="off")
        self.corpus = corpus
        self.lock = lock if lock is not None else nullcontext()
        self.lease = lease

    def ingest(
        self,
        document: LoadedDocument,
        progress: ProgressCallback | None = None,
        cancel: CancelCheck | None = None,
    ) -> IngestReport:
        """Index one loaded document, replacing an older version of the same file. ``cancel`` is asked after
        every batch until the store stage begins; when it says yes, ``IngestCancelled`` is raised and nothing
        of the document has been written."""
        started = time.perf_counter()
        report = IngestReport(
            document.file_name,
            IngestStatus.INDEXED,
            pages=len(document.pages),
            empty_pages=document.empty_pages,
            doc_id=document.doc_id,
        )
        unchanged = self.unchanged(document.file_name, document.doc_id)
        if unchanged is not None:
            return unchanged

        def stage(name: str) -> Callable[[int, int], None]:
            def report_progress(done: int, total: int) -> None:
                if name != "store":
                    stop_if_asked(cancel)
                if progress:
                    progress(ProgressEvent(document.file_name, name, done, total))

            return report_progress

        timer = _StageTimer(report)
        key = (document.file_name, document.doc_id)
        bodies = [page.body for page in document.pages]
        counts = document_terms(bodies)
        with self.lock:
            older, _ = self._versions(document.file_name, document.doc_id)
        corpus = self.corpus.view(key, counts, [(root.file_name, root.doc_id) for root in older])
        nodes = describe_tree(document, self.describer, corpus, stage, timer)
        report.nodes = len(nodes)
        report.fallbacks = sum(1 for n in nodes if n.fallback_reason)
        with timer("vectors"):  # counted in texts the dense model embeds, the unit of its batches
            sections = Sections(document.outline, len(document.pages))
            passages = passage_texts(nodes, self.policy, bodies, sections, self.embedder)
            embedded = dense_count(nodes, self.policy, passages)
            first = sum(len(p or ()) for p in passages)
            stage("vectors")(0, embedded)
            report_vectors = stage("vectors")
            passage_dense = passage_vectors(
                passages,
                lambda texts: self.embedder.dense(texts, lambda done, _: report_vectors(done, embedded)),
                self.embedder.dim,
                self.embedder.pieces,
            )
            dense = dense_vectors(
                nodes,
                self.policy,
                lambda texts: self.embedder.dense(
                    texts, lambda done, _: report_vectors(first + done, embedded)
                ),
                bodies,
                passage_dense,
            )
            passage_dense = stored_passages(passage_dense, dense)
            sparse = self.embedder.sparse(sparse_texts(nodes, self.policy, bodies))
            stage("vectors")(embedded, embedded)
        _describe_root(nodes[-1], document, report, self.policy, self.embedder.sparse_identity)
        stop_if_asked(cancel)  # the last chance: from here on the document is written whole
        with timer("store"), self.lock:
            stage("store")(0, len(nodes))
            previous, same = self._versions(
                document.file_name, document.doc_id
            )  # again: another session may have written it meanwhile
            if same is not None:  # same content built another way: its point ids are ours, so clear it first
                self.store.delete_document(same.doc_id, same.file_name)
            self.store.write_document(nodes, dense, sparse, self.lease, passage_dense)
            self.corpus.added(key, counts)
            for old in previous:
                if old.doc_id != document.doc_id:
                    self.store.delete_document(old.doc_id, old.file_name)
                    self.corpus.removed((old.file_name, old.doc_id))
            self.store.settle()
            stage("store")(len(nodes), len(nodes))
        report.status = IngestStatus.REPLACED if previous else IngestStatus.INDEXED
        report.seconds = time.perf_counter() - started
        return report

    def unchanged(self, file_name: str, doc_id: str) -> IngestReport | None:
        """The report of a file whose content (``doc_id``) is indexed already, built as this ingestor builds
        it; None when it must be ingested. Costs one store call: no parse, description or embedding."""
        with self.lock:
            _, same = self._versions(file_name, doc_id)
        if same is None or not built_alike(same, self.policy, self.embedder.sparse_identity):
            return None
        return IngestReport(
            file_name,
            IngestStatus.UNCHANGED,
            pages=int(same.extra.get("pages", same.page_end)),
            empty_pages=int(same.extra.get("empty_pages", 0)),
            nodes=int(same.extra.get("nodes", 0)),
            doc_id=doc_id,
        )

    def _versions(self, file_name: str, doc_id: str) -> tuple[list[Node], Node | None]:
        """Roots of the indexed versions of a file, and the one with this content (if any)."""
        previous = self.store.roots(file_name)
        return previous, next((root for root in previous if root.doc_id == doc_id), None)


def stale_reason(root: Node, policy: VectorPolicy, sparse_identity: str) -> str:
    """Why an indexed version is not built as this ingestor builds it ("" when it is): an older tree (page
    bodies, sections, descriptions: ``TREE_VERSION``), or other vector settings (vector policy, sparse model or
    BM25 constants; roots written before the sparse identity was recorded used the default sparse model)."""
    if root.extra.get("tree_version") != TREE_VERSION:
        return StaleReason.OLDER_TREE
    sparse = root.extra.get("sparse_model", DEFAULT_SPARSE_MODEL)
    if root.extra.get("vector_policy") != policy.identity or sparse != sparse_identity:
        return StaleReason.OTHER_VECTORS
    return ""


def built_alike(root: Node, policy: VectorPolicy, sparse_identity: str) -> bool:
    """Whether an indexed version was built as this ingestor builds it (``stale_reason`` is empty)."""
    return not stale_reason(root, policy, sparse_identity)


def _describe_root(
    root: Node, document: LoadedDocument, report: IngestReport, policy: VectorPolicy, sparse_identity: str
) -> None:
    root.extra = {
        "pages": report.pages,
        "empty_pages": report.empty_pages,
        "nodes": report.nodes,
        "fallbacks": report.fallbacks,
        "vector_policy": policy.identity,
        "sparse_model": sparse_identity,
        "tree_version": TREE_VERSION,
        "running_lines": [list(line) for line in document.running_lines],
        "page_numbers": document.page_numbers,
        "sections": len(document.outline),
        "ingested_at": time.time(),
    }


class _StageTimer:
    def __init__(self, report: IngestReport) -> None:
        self.report = report

    def __call__(self, name: str) -> _StageTimer:
        self._name = name
        return self

    def __enter__(self) -> None:
        self._started = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.report.stage_seconds[self._name] = time.perf_counter() - self._started


def failed(file_name: str, error: Exception) -> IngestReport:
    """The report of a file that could not be ingested (its name as given, control characters dropped)."""
    known = isinstance(error, LoadError | IngestCancelled)
    reason = str(error) if known else f"{type(error).__name__}: {str(error)[:200]}"
    return IngestReport(
        "".join(ch for ch in file_name if ch.isprintable()),
        IngestStatus.CANCELLED if isinstance(error, IngestCancelled) else IngestStatus.FAILED,
        reason=reason.splitlines()[0] if reason else type(error).__name__,
    )
