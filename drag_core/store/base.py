"""The store's contract: the shared records (``Where``, ``Scope``, ``Candidate``, ``QueryVectors``, ``Hit``,
``NodePoint``, ``Request``) and ``NodeStore``, the engine-neutral half of every engine.

Everything that is not an engine call lives here, so the engines stay in step: which points a document
writes and in what order, recovery, the lists of a ranking (built once, by ``ranking_requests``),
and their fusion. An engine (``client.ClientStore``, ``edge.EdgeStore``) only translates ``Where``
and ``Request`` into its own calls. A document is committed by writing its root last: a document whose root
is missing (a crash mid-ingest) is removed by ``recover``. The contract is written down in docs/store.md.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

import numpy as np

from drag_core.errors import DragError
from drag_core.fusion import DEFAULT_DENSE_WEIGHT, rrf, rrf_weights
from drag_core.store.lease import LEASE_FIELDS, Lease, abandoned
from drag_core.types import Node, SparseVector

__all__ = [
    "CANDIDATE_FIELDS",
    "DENSE",
    "INDEXED_FIELDS",
    "LEAVES",
    "LISTING_FIELDS",
    "PASSAGES",
    "ROOTS",
    "SCROLL_PAGE",
    "SPARSE",
    "UPSERT_BATCH",
    "Candidate",
    "Fields",
    "Hit",
    "NodePoint",
    "NodeStore",
    "QueryVectors",
    "Request",
    "Scope",
    "ScopeKind",
    "StoreError",
    "Where",
    "best_first",
    "candidates",
    "fused_lists",
    "fused_ranking",
    "list_weights",
    "of_document",
    "ranking_requests",
]

log = logging.getLogger(__name__)

DENSE, SPARSE = "dense", "sparse"
#: A leaf's passages (issue 26): one dense vector per passage of its page, compared by MaxSim (the best
#: passage's cosine). Parents have none; a collection created before them has no such vector at all.
PASSAGES = "passages"
UPSERT_BATCH = 128
SCROLL_PAGE = 512
CANDIDATE_FIELDS = ["id", "parent_id", "child_ids", "level", "doc_id", "file_name", "page_start", "page_end"]
LISTING_FIELDS = [
    *CANDIDATE_FIELDS,
    "keywords",
    "summary",
    "summary_source",
    "fallback_reason",
    "title",
    "extra",
]
INDEXED_FIELDS = (
    ("parent_id", "integer"),
    ("level", "integer"),
    ("doc_id", "keyword"),
    ("file_name", "keyword"),
)
Fields = list[str] | bool


class StoreError(DragError):
    """The store cannot be used; ``str(error)`` says why in one line."""


@dataclass(frozen=True)
class Where:
    """An engine-neutral filter: all conditions must hold.

    Attributes:
        ids: point ids (None: any point).
        equals: ``(payload field, value)`` pairs.
        one_of: ``(payload field, values)`` pairs: the field holds one of the values.
    """

    ids: tuple[int, ...] | None = None
    equals: tuple[tuple[str, int | str], ...] = ()
    one_of: tuple[tuple[str, tuple[int | str, ...]], ...] = ()


ROOTS = Where(equals=(("parent_id", -1),))
LEAVES = Where(equals=(("level", 0),))


def of_document(doc_id: str, file_name: str | None = None) -> Where:
    """The nodes of one document version; with ``file_name``, only that file's (two files may hold the same
    bytes, hence the same ``doc_id``)."""
    of_file = (("file_name", file_name),) if file_name is not None else ()
    return Where(equals=(("doc_id", doc_id), *of_file))


class ScopeKind(StrEnum):
    """Which nodes a scope without explicit ids ranks."""

    ROOTS = "roots"
    LEAVES = "leaves"


@dataclass(frozen=True)
class Scope:
    """Which points one ranking compares: explicit ids, or all roots / all leaves.

    Attributes:
        ids: the point ids to rank (``HasIdCondition``); None to use ``kind``.
        kind: a ``ScopeKind`` when ``ids`` is None.
        limit: how many results to return.
        using: the named vectors fused (both by default; one of them ranks by that vector alone), ``DENSE``
            standing for the dense list whichever vector ``dense`` names; ``PASSAGES`` beside ``DENSE`` (with
            ``dense`` the page vector) fuses both dense readings, a third list weighing as the dense one.
        dense: the vector the dense list reads: ``DENSE`` (the page vector) or ``PASSAGES`` (a leaf's best
            passage; a collection without passages, and a point without them, rank by the page vector and
            are left out of the list, respectively).
        docs: with ``kind``, only the nodes of these document versions (``doc_id``; empty: every document).
        depth: how deep each vector's list is read before fusion (None or less than ``limit``: ``limit``).
        scoped_idf: BM25 IDF counted over the scope's points instead of the whole collection.
    """

    ids: tuple[int, ...] | None = None
    kind: ScopeKind | None = None
    limit: int = 10
    using: tuple[str, ...] = (DENSE, SPARSE)
    dense: str = DENSE
    docs: tuple[str, ...] = ()
    depth: int | None = None
    scoped_idf: bool = False

    def where(self) -> Where:
        if self.ids is not None:
            return Where(ids=self.ids)
        if self.kind not in tuple(ScopeKind):
            raise ValueError(f"unknown scope {self.kind!r}")
        where = ROOTS if self.kind == ScopeKind.ROOTS else LEAVES
        return Where(equals=where.equals, one_of=(("doc_id", self.docs),)) if self.docs else where


@dataclass(frozen=True)
class Candidate:
    """One ranked node of one comparison.

    Attributes:
        id, parent_id, child_ids, level, file_name, page_start, page_end: from the node's payload.
        fused: RRF score of the ranking's lists (``fusion.rrf``).
        dense_rank, sparse_rank: 1-based rank in the dense and sparse lists (None: not in that list).
        dense_score: cosine similarity of the dense vectors (of the query and the best passage, where the
            ranking read passages).
        doc_id: the document version the node belongs to.
        sparse_score: BM25 score (term weights × the store's IDF; None: not in the sparse list).
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
    doc_id: str = ""
    sparse_score: float | None = None


@dataclass(frozen=True)
class QueryVectors:
    """A query embedded once, reused by every comparison of a search."""

    dense: np.ndarray
    sparse: SparseVector


@dataclass(frozen=True)
class Hit:
    """One scored point as an engine returns it.

    Attributes:
        id: point id.
        score: the engine's score.
        payload: the payload fields asked for.
    """

    id: int
    score: float
    payload: dict[str, Any]


@dataclass(frozen=True)
class NodePoint:
    """One node ready to be written: id, vectors and payload (``sparse`` None when the text has no terms;
    ``passages`` None for a parent, or where the collection holds none)."""

    id: int
    dense: list[float]
    sparse: SparseVector | None
    payload: dict[str, Any]
    passages: list[list[float]] | None = None


@dataclass(frozen=True)
class Request:
    """One list of a ranking batch: the points nearest the query by one vector (ids and scores, no payload),
    engine-neutral; built only by ``ranking_requests``.

    Attributes:
        where: the points that compete.
        limit: how many points the list holds (the ranking's depth).
        using: the named vector read.
        idf: the points the sparse vector's IDF is counted over (None: the whole collection).
    """

    where: Where
    limit: int
    using: str
    idf: Where | None = None


def fused_lists(scope: Scope) -> tuple[str, ...]:
    """The named vectors whose lists a scope fuses, in ``scope.using``'s order (``DENSE`` read as
    ``scope.dense``)."""
    return tuple(scope.dense if name == DENSE else name for name in scope.using)


def list_weights(scope: Scope, dense_weight: float = DEFAULT_DENSE_WEIGHT) -> tuple[float, ...] | None:
    """Each fused list's RRF weight, in ``fused_lists``' order, for the dense list's share ``dense_weight``
    (``fusion.rrf_weights``; None: all 1). A second dense list (``seeds-both``: page vectors and passages)
    weighs as the dense one."""
    weights = rrf_weights(dense_weight)
    if weights is None:
        return None
    by_name = {DENSE: weights[0], SPARSE: weights[1], PASSAGES: weights[0]}
    return tuple(by_name[name] for name in scope.using)


def ranking_requests(scope: Scope) -> dict[str, Request]:
    """The lists one ranking reads, by vector name: each list it fuses, and the dense (``scope.dense``) and
    sparse lists whose ranks, cosines and BM25 scores the trace shows; all ``depth`` deep (at least ``limit``).

    The ranking is their RRF (``fused_ranking``), computed here: the lists are fetched for the trace anyway,
    and fusing them again in the engine scanned every vector twice (measured: docs/benchmarks.md, "One fetch
    per list"). ``tests/test_fusion.py`` checks the ranking against Qdrant's own ``Rrf`` on both engines.
    """
    where, depth = scope.where(), max(scope.limit, scope.depth or 0)
    idf = where if scope.scoped_idf else None
    names = dict.fromkeys((*fused_lists(scope), scope.dense, SPARSE))
    return {name: Request(where, depth, name, idf if name == SPARSE else None) for name in names}


class NodeStore(ABC):
    """Nodes in one collection of one engine; the engine-neutral half. ``round_trips`` counts engine calls.

    Attributes:
        collection: the collection name.
        round_trips: number of engine calls made through this store.
        engine_label: which engine this is, for people (e.g. "Qdrant Edge (embedded)").
    """

    engine_label = ""

    def __init__(self, collection: str) -> None:
        self.collection = collection
        self.round_trips = 0
        self._passages: bool | None = None

    @property
    def holds_passages(self) -> bool:
        """Whether the collection has the ``PASSAGES`` vector (one created before it has not: its leaves rank
        by their page vectors, and nothing written to it carries passages)."""
        if self._passages is None:
            self.round_trips += 1
            self._passages = self._dense_size() is not None and self._has_passages()
        return self._passages

    # -- collection --------------------------------------------------------------------------------------
    def ensure_collection(self, dim: int, passages: bool = True) -> None:
        """Create the collection if needed (``passages`` False: without the ``PASSAGES`` vector, as the store
        made it before passages; the scale benchmark's index of before); refuse one built with another dense
        size. Payload indexes missing from an older collection are added."""
        self.round_trips += 1
        existing = self._dense_size()
        if existing is None:
            self._create(dim, passages)
        elif existing != dim:
            raise StoreError(
                f"collection {self.collection} holds {existing}-d vectors but the dense model gives {dim}-d; "
                "use another collection or store"
            )
        self._passages = self._has_passages()  # known from here on, without another engine call
        indexed = self._indexed_fields()
        for name, schema in INDEXED_FIELDS:
            if name not in indexed:
                self.round_trips += 1
                self._create_index(name, schema)

    def has_collection(self) -> bool:
        self.round_trips += 1
        return self._dense_size() is not None

    # -- writing ---------------------------------------------------------------------------------------
    def write_document(
        self,
        nodes: Sequence[Node],
        dense: np.ndarray,
        sparse: Sequence[SparseVector],
        lease: Lease | None = None,
        passages: Sequence[np.ndarray | None] = (),
    ) -> None:
        """Upsert a document's nodes; the root goes last, alone, so its presence marks the document complete.
        With a ``lease``, every batch carries the writer's id and a fresh heartbeat (see ``lease``).
        ``passages``: each node's passage vectors (None: none), written where the collection holds them."""
        kept = list(passages) if passages and self.holds_passages else [None] * len(nodes)
        points = [
            NodePoint(
                node.id,
                np.asarray(dense[i], dtype=float).tolist(),
                sparse[i] if sparse[i].indices else None,
                node.payload(),
                np.asarray(kept[i], dtype=float).tolist() if kept[i] is not None else None,
            )
            for i, node in enumerate(nodes)
        ]
        roots = [p for p, node in zip(points, nodes) if node.is_root]
        if len(roots) != 1:
            raise ValueError("a document has exactly one root")
        body = [p for p, node in zip(points, nodes) if not node.is_root]
        for start in range(0, len(body), UPSERT_BATCH):
            self.round_trips += 1
            self._upsert(_leased(body[start : start + UPSERT_BATCH], lease))
        self.round_trips += 1
        self._upsert(_leased(roots, lease))

    def delete_document(self, doc_id: str, file_name: str | None = None) -> None:
        """Remove every node of one document version (of one file, when given), the root first (so a
        half-deleted one counts as gone)."""
        self.round_trips += 2
        document = of_document(doc_id, file_name)
        self._delete(Where(equals=(*document.equals, ("parent_id", -1))))
        self._delete(document)

    def recover(self, lease: Lease | None = None) -> list[str]:
        """Delete the nodes of abandoned documents whose root was never written (an interrupted ingest), and
        older versions of a file still listed beside its newest one (an interrupted replace).

        With the ``lease`` of the writer that recovers, a partial document another writer is still writing
        (its heartbeat younger than the lease) is left alone, so writers may share the collection; without
        one, every partial document is removed (call it then when no ingest runs against this store).
        Returns the removed document ids.
        """
        if not self.has_collection():
            return []
        listed = self._payloads(["doc_id", "file_name", "extra"], ROOTS)  # not the texts: on every open
        roots = sorted(listed, key=lambda root: root.get("extra", {}).get("ingested_at", 0))
        newest = {root["file_name"]: root["doc_id"] for root in roots}
        older = {
            (root["doc_id"], root["file_name"])
            for root in roots
            if newest[root["file_name"]] != root["doc_id"]
        }
        removed = sorted(abandoned(self._partial(roots), lease)) + sorted(older)
        for doc_id, file_name in removed:
            log.warning("removing %s of %s left by an interrupted ingest", doc_id, file_name)
            self.delete_document(doc_id, file_name)
        return [doc_id for doc_id, _ in removed]

    def _partial(self, roots: Sequence[dict]) -> list[dict]:
        """The lease payloads of the nodes of documents without a root. When every root records its node
        count and the counts add up to the collection's, there are none and no point is read: the scan of
        every point, which grows with the index, happens only after a crash mid-write."""
        counts = [root.get("extra", {}).get("nodes") for root in roots]
        if None not in counts and self.count() == sum(int(n) for n in counts):
            return []
        complete = {(root["doc_id"], root["file_name"]) for root in roots}
        return [
            p
            for p in self._payloads(["doc_id", "file_name", *LEASE_FIELDS])
            if (p["doc_id"], p["file_name"]) not in complete
        ]

    # -- reading ---------------------------------------------------------------------------------------
    def roots(self, file_name: str | None = None, doc_id: str | None = None) -> list[Node]:
        """The root of every complete document (of one file's versions, of one content's files, when given)."""
        given = (("file_name", file_name), ("doc_id", doc_id))
        where = Where(equals=(*ROOTS.equals, *((k, v) for k, v in given if v is not None)))
        return [Node.from_payload(p) for p in self._payloads(LISTING_FIELDS, where)]

    def nodes_of(self, doc_id: str, with_text: bool = False, file_name: str | None = None) -> list[Node]:
        """Every node of one document version (of one file, when given), ordered by level then first page."""
        fields = True if with_text else LISTING_FIELDS
        nodes = [Node.from_payload(p) for p in self._payloads(fields, of_document(doc_id, file_name))]
        return sorted(nodes, key=lambda n: (n.level, n.page_start, n.id))

    def get(self, ids: Iterable[int], with_text: bool = True) -> list[Node]:
        """Nodes by id, in the order asked (missing ids are skipped)."""
        wanted = list(dict.fromkeys(ids))
        by_id = self._payloads_by_id(wanted, True if with_text else LISTING_FIELDS)
        return [Node.from_payload(by_id[i]) for i in wanted if i in by_id]

    def count(self) -> int:
        self.round_trips += 1
        return self._count()

    def _payloads_by_id(self, ids: Iterable[int], fields: Fields) -> dict[int, dict]:
        """The payloads of these points (missing ids skipped), by id: one engine call, none for no ids."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        self.round_trips += 1
        return {int(p["id"]): p for p in self._retrieve(wanted, fields)}

    def _payloads(self, fields: Fields, where: Where | None = None) -> Iterator[dict]:
        for page in self._scroll(fields, where):
            self.round_trips += 1
            yield from page

    # -- ranking ---------------------------------------------------------------------------------------
    def rank(
        self,
        query: QueryVectors,
        scopes: Sequence[Scope],
        rrf_k: int,
        dense_weight: float = DEFAULT_DENSE_WEIGHT,
    ) -> tuple[list[list[Candidate]], float]:
        """Rank each scope by RRF of its lists (``dense_weight``: the dense list's share of the fusion), from ONE
        batch of lists for all scopes.

        The lists of ``ranking_requests`` go in the batch once each, however many scopes read them (the seed
        ranking of ``adaptive`` and the head of flat's share two), without payloads; a second call reads the
        candidate fields of the points the rankings keep (reading them with every list cost more than the
        scans saved: docs/benchmarks.md, "One fetch per list"). A point deleted in between is left out. Returns
        the rankings and the milliseconds spent in the engine.
        """
        if not scopes:
            return [], 0.0
        if not self.holds_passages:
            scopes = [
                replace(scope, dense=DENSE, using=tuple(name for name in scope.using if name != PASSAGES))
                for scope in scopes
            ]
        wanted = [ranking_requests(scope) for scope in scopes]
        requests = list(dict.fromkeys(r for plan in wanted for r in plan.values()))
        started = time.perf_counter()
        self.round_trips += 1
        responses = dict(zip(requests, self._query_batch(query, requests), strict=True))
        lists = [{name: responses[r] for name, r in plan.items()} for plan in wanted]
        fused = [
            fused_ranking(scope, own, rrf_k, dense_weight) for scope, own in zip(scopes, lists, strict=True)
        ]
        payloads = self._payloads_by_id([hit.id for hits in fused for hit in hits], CANDIDATE_FIELDS)
        elapsed = (time.perf_counter() - started) * 1000
        rankings = [
            candidates(
                [Hit(hit.id, hit.score, payloads[hit.id]) for hit in hits if hit.id in payloads],
                own[scope.dense],
                own[SPARSE],
            )
            for scope, hits, own in zip(scopes, fused, lists, strict=True)
        ]
        return rankings, elapsed

    # -- engine calls ----------------------------------------------------------------------------------
    @abstractmethod
    def settle(self) -> None:
        """Let the engine reorganise what was just written (Qdrant Edge seals a full segment onto disk)."""

    @abstractmethod
    def close(self) -> None:
        """Release the engine (and its folder lock)."""

    @abstractmethod
    def _dense_size(self) -> int | None:
        """The collection's dense vector size, None when there is no collection."""

    @abstractmethod
    def _create(self, dim: int, passages: bool = True) -> None:
        """Create the collection with its named vectors (``PASSAGES`` a MaxSim multivector, unless
        ``passages`` is False)."""

    @abstractmethod
    def _has_passages(self) -> bool:
        """Whether the existing collection has the ``PASSAGES`` vector."""

    @abstractmethod
    def _indexed_fields(self) -> set[str]:
        """The payload fields that have an index."""

    @abstractmethod
    def _create_index(self, name: str, schema: str) -> None:
        """Index a payload field (``schema``: ``"integer"`` or ``"keyword"``)."""

    @abstractmethod
    def _upsert(self, points: Sequence[NodePoint]) -> None:
        """Write points, durable when it returns."""

    @abstractmethod
    def _delete(self, where: Where) -> None:
        """Delete the points matching ``where``."""

    @abstractmethod
    def _scroll(self, fields: Fields, where: Where | None) -> Iterator[list[dict]]:
        """Payloads of the matching points, one page per engine call."""

    @abstractmethod
    def _retrieve(self, ids: list[int], fields: Fields) -> list[dict]:
        """Payloads of the points with these ids (missing ids are skipped)."""

    @abstractmethod
    def _count(self) -> int:
        """Exact number of points."""

    @abstractmethod
    def _query_batch(self, query: QueryVectors, requests: list[Request]) -> list[list[Hit]]:
        """Run all requests in one engine call."""


def _leased(points: Sequence[NodePoint], lease: Lease | None) -> list[NodePoint]:
    """The points stamped with the lease's writer and a heartbeat of now (as they are without a lease)."""
    return [replace(p, payload=lease.stamp(p.payload)) for p in points] if lease else list(points)


def best_first(fused: float, cosine: float | None, point_id: int) -> tuple[float, float, int]:
    """The sort key of a ranking, best first: the fused score (float32 noise rounded off), then the cosine (a
    point without one last), then the id — so equal fused scores, common with RRF, come in the same order every
    time on every engine."""
    return -round(fused, 8), -(-2.0 if cosine is None else cosine), point_id


def fused_ranking(
    scope: Scope, lists: dict[str, list[Hit]], rrf_k: int, dense_weight: float = DEFAULT_DENSE_WEIGHT
) -> list[Hit]:
    """The first ``scope.limit`` points of the RRF of the scope's lists (``lists``: the hits of each list of
    ``ranking_requests``, by vector name), best first (``best_first``), each with its fused score."""
    scores = rrf(
        [[hit.id for hit in lists[name]] for name in fused_lists(scope)],
        rrf_k,
        list_weights(scope, dense_weight),
    )
    cosine = {hit.id: hit.score for hit in lists[scope.dense]}
    best = sorted(scores, key=lambda point: best_first(scores[point], cosine.get(point), point))
    return [Hit(point, scores[point], {}) for point in best[: scope.limit]]


def candidates(fused: list[Hit], dense: list[Hit], sparse: list[Hit]) -> list[Candidate]:
    """The fused hits (best first: ``fused_ranking``) as candidates, with their ranks and scores in the dense
    and sparse lists."""
    dense_rank = {p.id: rank for rank, p in enumerate(dense, start=1)}
    dense_score = {p.id: p.score for p in dense}
    sparse_rank = {p.id: rank for rank, p in enumerate(sparse, start=1)}
    sparse_score = {p.id: p.score for p in sparse}
    return [
        Candidate(
            id=point.id,
            parent_id=int(point.payload.get("parent_id", -1)),
            child_ids=tuple(point.payload.get("child_ids", ())),
            level=int(point.payload.get("level", 0)),
            file_name=str(point.payload.get("file_name", "")),
            page_start=int(point.payload.get("page_start", 0)),
            page_end=int(point.payload.get("page_end", 0)),
            fused=point.score,
            dense_rank=dense_rank.get(point.id),
            sparse_rank=sparse_rank.get(point.id),
            dense_score=dense_score.get(point.id),
            doc_id=str(point.payload.get("doc_id", "")),
            sparse_score=sparse_score.get(point.id),
        )
        for point in fused
    ]
