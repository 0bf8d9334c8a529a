"""Qdrant Edge (``qdrant-edge-py``): Qdrant's own engine in-process, the default embedded store.

Same collection layout, same requests and the same RRF as a Qdrant server, with real payload indexes and
without a server: a hybrid query over 20,000 nodes takes milliseconds instead of local mode's second. The
collection is one Edge shard in ``<store>/edge/<collection>``; ``:memory:`` uses a temporary folder removed on
``close``. One process at a time may open a folder.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as edge

from drag_core.config import DEFAULT_PASSAGE_STORAGE
from drag_core.layout import StoreLayout
from drag_core.store import base
from drag_core.store.base import DENSE, PASSAGES, SCROLL_PAGE, SPARSE, NodeStore

__all__ = ["CONFIG_FILE", "SCHEMAS", "SEALED_KB", "EdgeStore"]

CONFIG_FILE = "edge_config.json"
#: A segment is sealed once its vectors outgrow this many KB (~65,000 384-d vectors; until then they are held
#: in RAM): sealed, its dense vectors and sparse index are memory-mapped files read when touched.
SEALED_KB = 100_000
#: Sealed segments are merged only while there are more than this many: with Qdrant's default (one per
#: core) every seal rewrote the whole index, so each ingest cost more as the index grew.
SEGMENTS = 8
SCHEMAS = {"integer": edge.PayloadSchemaType.Integer, "keyword": edge.PayloadSchemaType.Keyword}


class EdgeStore(NodeStore):
    """Nodes in one Qdrant Edge shard.

    Attributes:
        folder: the shard's folder.
        collection: the collection name.
        round_trips: number of Edge calls made through this store.
        engine_label: "Qdrant Edge (embedded)".
    """

    engine_label = "Qdrant Edge (embedded)"

    def __init__(
        self,
        store: Path | None,
        collection: str = "drag_nodes",
        passage_storage: str = DEFAULT_PASSAGE_STORAGE,
    ) -> None:
        super().__init__(collection)
        self.passage_storage = passage_storage
        self._temporary = tempfile.TemporaryDirectory(prefix="drag-edge-") if store is None else None
        self.folder = StoreLayout(store or Path(self._temporary.name)).edge_shard(collection)
        self._shard = edge.EdgeShard.load(str(self.folder)) if (self.folder / CONFIG_FILE).exists() else None

    def close(self) -> None:
        if self._shard is not None:
            self._shard.flush()  # durable in the segments, not only in the write-ahead log
            self._shard.close()
            self._shard = None
        if self._temporary is not None:
            self._temporary.cleanup()

    @property
    def shard(self) -> edge.EdgeShard:
        if self._shard is None:
            raise RuntimeError(f"no collection {self.collection} in {self.folder.parent}")
        return self._shard

    def _dense_size(self) -> int | None:
        if self._shard is None:
            return None
        config = json.loads((self.folder / CONFIG_FILE).read_text())
        return int(config.get("vectors", {}).get(DENSE, {}).get("size", 0))

    def _has_passages(self) -> bool:
        config = json.loads((self.folder / CONFIG_FILE).read_text())
        return PASSAGES in config.get("vectors", {})

    def _create(self, dim: int, passages: bool = True) -> None:
        """A shard whose sealed segments keep vectors and the sparse index on disk (``Memory.Cold``), as the
        payload is by default, and build no HNSW graph (``m = 0``): search stays exact."""
        cold = edge.Memory.Cold
        vectors = {DENSE: edge.EdgeVectorParams(size=dim, distance=edge.Distance.Cosine, memory=cold)}
        if passages:
            vectors[PASSAGES] = edge.EdgeVectorParams(
                size=dim,
                distance=edge.Distance.Cosine,
                multivector_config=edge.MultiVectorConfig(edge.MultiVectorComparator.MaxSim),
                memory=cold,
                **_stored_as(self.passage_storage),
            )
        config = edge.EdgeConfig(
            vectors=vectors,
            sparse_vectors={SPARSE: edge.EdgeSparseVectorParams(modifier=edge.Modifier.Idf, memory=cold)},
            hnsw_config=edge.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000),
            optimizers=edge.EdgeOptimizersConfig(
                indexing_threshold=SEALED_KB, default_segment_number=SEGMENTS
            ),
        )
        self.folder.mkdir(parents=True, exist_ok=True)
        self._shard = edge.EdgeShard.create(str(self.folder), config)

    def settle(self) -> None:
        """Seal the appendable segment once it outgrows ``SEALED_KB`` (a no-op below). A shard created before
        this layout is left as it is: sealing it would build an HNSW graph, and search would no longer be
        exact."""
        if self._shard is not None and _sealable(self.folder):
            self.round_trips += 1
            self._shard.optimize()

    def _indexed_fields(self) -> set[str]:
        return set(self.shard.info().payload_schema)

    def _create_index(self, name: str, schema: str) -> None:
        self.shard.update(edge.UpdateOperation.create_field_index(name, SCHEMAS[schema]))

    def _upsert(self, points: Sequence[base.NodePoint]) -> None:
        structs = []
        for point in points:
            vectors: dict[str, Any] = {DENSE: point.dense}
            if point.sparse is not None:
                vectors[SPARSE] = edge.SparseVector(point.sparse.indices, point.sparse.values)
            if point.passages is not None:
                vectors[PASSAGES] = point.passages
            structs.append(edge.Point(point.id, vectors, point.payload))
        self.shard.update(edge.UpdateOperation.upsert_points(structs))

    def _delete(self, where: base.Where) -> None:
        self.shard.update(edge.UpdateOperation.delete_points_by_filter(_filter(where)))

    def _scroll(self, fields: base.Fields, where: base.Where | None) -> Iterator[list[dict]]:
        offset = None
        while True:
            records, offset = self.shard.scroll(
                edge.ScrollRequest(
                    offset=offset,
                    limit=SCROLL_PAGE,
                    filter=_filter(where) if where else None,
                    with_payload=fields,
                )
            )
            yield [record.payload or {} for record in records]
            if offset is None:
                return

    def _retrieve(self, ids: list[int], fields: base.Fields) -> list[dict]:
        return [record.payload or {} for record in self.shard.retrieve(ids, fields, False)]

    def _count(self) -> int:
        return self.shard.count(edge.CountRequest(exact=True))

    def _query_batch(self, query: base.QueryVectors, requests: list[base.Request]) -> list[list[base.Hit]]:
        batch = [_request(query, request) for request in requests]
        responses = self.shard.query_batch(edge.QueryBatchRequest(batch))
        return [
            [base.Hit(int(p.id), float(p.score), p.payload or {}) for p in points] for points in responses
        ]


def _stored_as(storage: str) -> dict[str, Any]:
    """The passages vector's parameters for a ``config.PASSAGE_STORAGES`` choice: ``float16`` halves the
    stored vectors; ``int8`` adds a scalar-quantized copy pinned in RAM, which search scans (the originals stay
    on disk)."""
    if storage == "float16":
        return {"datatype": edge.VectorStorageDatatype.Float16}
    if storage == "int8":
        quantized = edge.ScalarQuantizationConfig(
            edge.ScalarType.Int8, quantile=0.99, memory=edge.Memory.Pinned
        )
        return {"quantization_config": quantized}
    return {}


def _sealable(folder: Path) -> bool:
    """Whether the shard was created with the sealed layout (no HNSW graph)."""
    config = json.loads((folder / CONFIG_FILE).read_text())
    return config.get("hnsw_config", {}).get("m") == 0


def _request(query: base.QueryVectors, request: base.Request) -> edge.QueryRequest:
    return edge.QueryRequest(
        limit=request.limit,
        query=_nearest(query, request.using),
        filter=_filter(request.where),
        params=_idf_params(request.idf),
    )


def _nearest(query: base.QueryVectors, using: str) -> edge.Query:
    if using == DENSE:
        return edge.Query.Nearest(query.dense.tolist(), using=DENSE)
    if using == PASSAGES:  # a multivector query of one vector: the best passage's cosine
        return edge.Query.Nearest([query.dense.tolist()], using=PASSAGES)
    return edge.Query.Nearest(edge.SparseVector(query.sparse.indices, query.sparse.values), using=SPARSE)


def _filter(where: base.Where) -> edge.Filter:
    must: list[Any] = [edge.HasIdCondition(set(where.ids))] if where.ids is not None else []
    must += [edge.FieldCondition(k, match=edge.MatchValue(v)) for k, v in where.equals]
    must += [edge.FieldCondition(k, match=edge.MatchAny(list(v))) for k, v in where.one_of]
    return edge.Filter(must=must)


def _idf_params(idf: base.Where | None) -> edge.SearchParams | None:
    return edge.SearchParams(idf=edge.IdfParams(corpus=_filter(idf))) if idf else None
