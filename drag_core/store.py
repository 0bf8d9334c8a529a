"""The Qdrant store: one collection, one flat point per tree node, named vectors ``dense`` and ``sparse``.

Embedded on disk by default (qdrant-client local mode), ``:memory:`` for tests, a Qdrant server or cluster
when a URL is given — one code path. A document is committed by writing its root last: a document whose root
is missing (a crash mid-ingest) is removed by ``recover``.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from qdrant_client import QdrantClient, models

from drag_core.config import Settings
from drag_core.embeddings import SparseVector
from drag_core.fusion import rrf_query
from drag_core.types import Node

log = logging.getLogger(__name__)

DENSE, SPARSE = "dense", "sparse"
UPSERT_BATCH = 128
CANDIDATE_FIELDS = ["id", "parent_id", "child_ids", "level", "doc_id", "file_name", "page_start", "page_end"]
LISTING_FIELDS = [*CANDIDATE_FIELDS, "keywords", "summary", "summary_source", "fallback_reason", "extra"]


class StoreError(Exception):
    """The store cannot be used; ``str(error)`` says why in one line."""


@dataclass(frozen=True)
class Scope:
    """Which points one ranking compares: explicit ids, or all roots / all leaves.

    Attributes:
        ids: the point ids to rank (``HasIdCondition``); None to use ``kind``.
        kind: ``"roots"`` or ``"leaves"`` when ``ids`` is None.
        limit: how many results to return.
    """

    ids: tuple[int, ...] | None = None
    kind: str | None = None
    limit: int = 10

    def filter(self) -> models.Filter:
        if self.ids is not None:
            return models.Filter(must=[models.HasIdCondition(has_id=list(self.ids))])
        if self.kind == "roots":
            return models.Filter(
                must=[models.FieldCondition(key="parent_id", match=models.MatchValue(value=-1))]
            )
        if self.kind == "leaves":
            return models.Filter(must=[models.FieldCondition(key="level", match=models.MatchValue(value=0))])
        raise ValueError(f"unknown scope {self.kind!r}")


@dataclass(frozen=True)
class Candidate:
    """One ranked node of one comparison.

    Attributes:
        id, parent_id, child_ids, level, file_name, page_start, page_end: from the node's payload.
        fused: RRF score computed by Qdrant.
        dense_rank, sparse_rank: 1-based rank in the dense and sparse lists (None: not in that list).
        dense_score: cosine similarity of the dense vectors.
    """

    id: int
    parent_id: int
    child_ids: tuple[int, ...]
    level: int
    file_name: str
    page_start: int
    page_end: int
    fused: float
    dense_rank: int | None
    sparse_rank: int | None
    dense_score: float | None


@dataclass(frozen=True)
class QueryVectors:
    """A query embedded once, reused by every comparison of a search."""

    dense: np.ndarray
    sparse: SparseVector


def open_client(settings: Settings) -> QdrantClient:
    """A qdrant-client for the settings: server when ``qdrant_url`` is set, else embedded."""
    try:
        if settings.qdrant_url:
            client = QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key, timeout=10)
            client.get_collections()
            return client
        if settings.store == ":memory:":
            return QdrantClient(":memory:")
        return QdrantClient(path=settings.store)
    except Exception as error:  # qdrant-client raises many types for the same two situations
        raise StoreError(_describe_open_error(settings, error)) from None


def _describe_open_error(settings: Settings, error: Exception) -> str:
    text = str(error)
    if "already accessed" in text:
        return (
            f"the index folder {settings.store} is in use by another process (the app or another command); "
            "stop it, or point --store / DRAG_STORE at another folder"
        )
    if settings.qdrant_url:
        first = text.splitlines()[0] if text else type(error).__name__
        return f"the Qdrant server at {settings.qdrant_url} does not answer ({first[:160]})"
    return (
        f"cannot open the index folder {settings.store} ({text.splitlines()[0][:160] if text else error!r})"
    )


class Store:
    """Nodes in one Qdrant collection. ``round_trips`` counts the calls made to Qdrant.

    Attributes:
        client: the qdrant-client.
        collection: the collection name.
        round_trips: number of Qdrant calls made through this store.
    """

    def __init__(self, client: QdrantClient, collection: str = "drag_nodes") -> None:
        self.client = client
        self.collection = collection
        self.round_trips = 0

    # -- collection --------------------------------------------------------------------------------------
    def ensure_collection(self, dim: int) -> None:
        """Create the collection if needed; refuse one built with another dense size."""
        self.round_trips += 1
        if self.client.collection_exists(self.collection):
            info = self.client.get_collection(self.collection)
            vectors = info.config.params.vectors
            existing = vectors[DENSE].size if isinstance(vectors, dict) else None
            if existing != dim:
                raise StoreError(
                    f"collection {self.collection} holds {existing}-d vectors but the dense model gives {dim}-d; "
                    "use another collection or store"
                )
            return
        self.client.create_collection(
            self.collection,
            vectors_config={DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        with warnings.catch_warnings():  # local mode accepts payload indexes and ignores them, with a warning
            warnings.simplefilter("ignore", UserWarning)
            for name, schema in (("parent_id", "integer"), ("level", "integer"), ("doc_id", "keyword")):
                self.client.create_payload_index(self.collection, name, field_schema=schema)

    def has_collection(self) -> bool:
        self.round_trips += 1
        return self.client.collection_exists(self.collection)

    # -- writing ---------------------------------------------------------------------------------------
    def write_document(
        self, nodes: Sequence[Node], dense: np.ndarray, sparse: Sequence[SparseVector]
    ) -> None:
        """Upsert a document's nodes; the root goes last, alone, so its presence marks the document complete."""
        points = [_point(node, dense[i], sparse[i]) for i, node in enumerate(nodes)]
        roots = [p for p, node in zip(points, nodes) if node.is_root]
        if len(roots) != 1:
            raise ValueError("a document has exactly one root")
        body = [p for p, node in zip(points, nodes) if not node.is_root]
        for start in range(0, len(body), UPSERT_BATCH):
            self._upsert(body[start : start + UPSERT_BATCH])
        self._upsert(roots)

    def _upsert(self, points: list[models.PointStruct]) -> None:
        self.round_trips += 1
        self.client.upsert(self.collection, points=points, wait=True)

    def delete_document(self, doc_id: str) -> None:
        """Remove every node of one document version, the root first (so a half-deleted one counts as gone)."""
        self.round_trips += 2
        doc = models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id))
        root = models.FieldCondition(key="parent_id", match=models.MatchValue(value=-1))
        self.client.delete(self.collection, models.Filter(must=[doc, root]), wait=True)
        self.client.delete(self.collection, models.Filter(must=[doc]), wait=True)

    def recover(self) -> list[str]:
        """Delete the nodes of documents whose root was never written (an interrupted ingest).

        Returns the removed document ids. Call it when no ingest is running against this store.
        """
        if not self.has_collection():
            return []
        complete = {root.doc_id for root in self.roots()}
        orphans = sorted({p["doc_id"] for p in self._scroll_payloads(["doc_id"])} - complete)
        for doc_id in orphans:
            log.warning("removing the incomplete document %s left by an interrupted ingest", doc_id)
            self.delete_document(doc_id)
        return orphans

    # -- reading ---------------------------------------------------------------------------------------
    def roots(self) -> list[Node]:
        """The root of every complete document."""
        scope = Scope(kind="roots").filter()
        return [Node.from_payload(p) for p in self._scroll_payloads(LISTING_FIELDS, scope)]

    def nodes_of(self, doc_id: str, with_text: bool = False) -> list[Node]:
        """Every node of one document version, ordered by level then first page."""
        scope = models.Filter(
            must=[models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id))]
        )
        fields = True if with_text else LISTING_FIELDS
        nodes = [Node.from_payload(p) for p in self._scroll_payloads(fields, scope)]
        return sorted(nodes, key=lambda n: (n.level, n.page_start, n.id))

    def get(self, ids: Iterable[int], with_text: bool = True) -> list[Node]:
        """Nodes by id, in the order asked (missing ids are skipped)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        self.round_trips += 1
        records = self.client.retrieve(
            self.collection, ids=wanted, with_payload=True if with_text else LISTING_FIELDS
        )
        by_id = {int(r.id): Node.from_payload(r.payload or {}) for r in records}
        return [by_id[i] for i in wanted if i in by_id]

    def count(self) -> int:
        self.round_trips += 1
        return self.client.count(self.collection, exact=True).count

    def _scroll_payloads(
        self, fields: list[str] | bool, scope: models.Filter | None = None
    ) -> Iterator[dict]:
        offset = None
        while True:
            self.round_trips += 1
            records, offset = self.client.scroll(
                self.collection, scroll_filter=scope, limit=512, offset=offset, with_payload=fields
            )
            for record in records:
                yield record.payload or {}
            if offset is None:
                return

    # -- ranking ---------------------------------------------------------------------------------------
    def rank(
        self, query: QueryVectors, scopes: Sequence[Scope], rrf_k: int
    ) -> tuple[list[list[Candidate]], float]:
        """Rank each scope by RRF of dense and sparse, in ONE Qdrant call for all scopes.

        For every scope three requests go in the batch: the fused ranking, and the dense and sparse lists
        (so the trace can show each candidate's dense rank, sparse rank and cosine). Returns the rankings
        and the milliseconds spent in Qdrant.
        """
        requests: list[models.QueryRequest] = []
        for scope in scopes:
            flt = scope.filter()
            dense = models.Prefetch(query=query.dense.tolist(), using=DENSE, filter=flt, limit=scope.limit)
            sparse_vector = models.SparseVector(indices=query.sparse.indices, values=query.sparse.values)
            sparse = models.Prefetch(query=sparse_vector, using=SPARSE, filter=flt, limit=scope.limit)
            requests += [
                models.QueryRequest(
                    prefetch=[dense, sparse],
                    query=rrf_query(rrf_k),
                    limit=scope.limit,
                    with_payload=CANDIDATE_FIELDS,
                ),
                models.QueryRequest(query=query.dense.tolist(), using=DENSE, filter=flt, limit=scope.limit),
                models.QueryRequest(query=sparse_vector, using=SPARSE, filter=flt, limit=scope.limit),
            ]
        if not requests:
            return [], 0.0
        started = time.perf_counter()
        self.round_trips += 1
        responses = self.client.query_batch_points(self.collection, requests=requests)
        elapsed = (time.perf_counter() - started) * 1000
        rankings = [
            _candidates(responses[i].points, responses[i + 1].points, responses[i + 2].points)
            for i in range(0, len(responses), 3)
        ]
        return rankings, elapsed


def _candidates(fused: list, dense: list, sparse: list) -> list[Candidate]:
    dense_rank = {int(p.id): rank for rank, p in enumerate(dense, start=1)}
    dense_score = {int(p.id): float(p.score) for p in dense}
    sparse_rank = {int(p.id): rank for rank, p in enumerate(sparse, start=1)}
    out = []
    for point in fused:
        payload = point.payload or {}
        pid = int(point.id)
        out.append(
            Candidate(
                id=pid,
                parent_id=int(payload.get("parent_id", -1)),
                child_ids=tuple(payload.get("child_ids", ())),
                level=int(payload.get("level", 0)),
                file_name=str(payload.get("file_name", "")),
                page_start=int(payload.get("page_start", 0)),
                page_end=int(payload.get("page_end", 0)),
                fused=float(point.score),
                dense_rank=dense_rank.get(pid),
                sparse_rank=sparse_rank.get(pid),
                dense_score=dense_score.get(pid),
            )
        )
    return out


def _point(node: Node, dense: np.ndarray, sparse: SparseVector) -> models.PointStruct:
    vectors: dict = {DENSE: np.asarray(dense, dtype=float).tolist()}
    if sparse.indices:
        vectors[SPARSE] = models.SparseVector(indices=sparse.indices, values=sparse.values)
    return models.PointStruct(id=node.id, vector=vectors, payload=node.payload())
