"""qdrant-client's engine behind ``NodeStore``: a Qdrant server or cluster (by URL), or qdrant-client's
pure-Python local mode (every point scored before filters apply; on disk it commits every point
separately). This module only translates ``Where`` and ``Request`` into qdrant-client calls."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from qdrant_client import QdrantClient, models

from drag_core.config import DEFAULT_PASSAGE_STORAGE, IN_MEMORY, Settings
from drag_core.store.base import (
    DENSE,
    PASSAGES,
    SCROLL_PAGE,
    SPARSE,
    Fields,
    Hit,
    NodePoint,
    NodeStore,
    QueryVectors,
    Request,
    Where,
)
from drag_core.types import SparseVector

__all__ = ["ClientStore", "CollectionLayout", "open_client"]


@dataclass(frozen=True)
class CollectionLayout:
    """How a server or cluster lays out a collection it creates (None/False: the server's defaults).

    Attributes:
        shard_number: shards the points are spread over (a cluster spreads them over its nodes).
        replication_factor: copies of each shard on a cluster.
        on_disk: dense vectors, sparse index and payload on disk instead of RAM.
        passage_storage: how the passage vectors are stored (``config.PASSAGE_STORAGES``).
    """

    shard_number: int | None = None
    replication_factor: int | None = None
    on_disk: bool = False
    passage_storage: str = DEFAULT_PASSAGE_STORAGE

    @classmethod
    def of(cls, settings: Settings) -> CollectionLayout:
        return cls(
            settings.shard_number, settings.replication_factor, settings.on_disk, settings.passage_storage
        )


def open_client(settings: Settings) -> QdrantClient:
    """A qdrant-client for the settings: server when ``qdrant_url`` is set (checked with one call), else local
    mode. Raises whatever qdrant-client raises; ``open_store`` turns it into a ``StoreError``."""
    if settings.qdrant_url:
        client = QdrantClient(url=settings.qdrant_url, api_key=settings.qdrant_api_key, timeout=10)
        client.get_collections()
        return client
    if settings.in_memory:
        return QdrantClient(IN_MEMORY)
    return QdrantClient(path=settings.store)


class ClientStore(NodeStore):
    """Nodes in one collection through qdrant-client: a Qdrant server or cluster, or local mode (pure Python,
    every point scored before filters apply; on disk it commits every point separately).

    Attributes:
        client: the qdrant-client.
        layout: shards, replication and on-disk storage of a collection this store creates.
        collection: the collection name.
        round_trips: number of Qdrant calls made through this store.
        engine_label: "Qdrant server" or "qdrant-client local mode (embedded)".
    """

    def __init__(
        self,
        client: QdrantClient,
        collection: str = "drag_nodes",
        server: bool = False,
        layout: CollectionLayout | None = None,
    ) -> None:
        super().__init__(collection)
        self.client = client
        self.engine_label = "Qdrant server" if server else "qdrant-client local mode (embedded)"
        self.layout = layout or CollectionLayout()

    def settle(self) -> None:
        """Nothing to do: a server optimises its segments itself, local mode has none."""

    def close(self) -> None:
        self.client.close()

    def _dense_size(self) -> int | None:
        if not self.client.collection_exists(self.collection):
            return None
        vectors = self.client.get_collection(self.collection).config.params.vectors
        return vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else 0

    def _has_passages(self) -> bool:
        vectors = self.client.get_collection(self.collection).config.params.vectors
        return isinstance(vectors, dict) and PASSAGES in vectors

    def _create(self, dim: int, passages: bool = True) -> None:
        on_disk = self.layout.on_disk or None
        vectors = {DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE, on_disk=on_disk)}
        if passages:
            vectors[PASSAGES] = models.VectorParams(
                size=dim,
                distance=models.Distance.COSINE,
                on_disk=on_disk,
                multivector_config=models.MultiVectorConfig(comparator=models.MultiVectorComparator.MAX_SIM),
                **_stored_as(self.layout.passage_storage),
            )
        self.client.create_collection(
            self.collection,
            vectors_config=vectors,
            sparse_vectors_config={
                SPARSE: models.SparseVectorParams(
                    modifier=models.Modifier.IDF, index=models.SparseIndexParams(on_disk=on_disk)
                )
            },
            shard_number=self.layout.shard_number,
            replication_factor=self.layout.replication_factor,
            on_disk_payload=on_disk,
        )

    def _indexed_fields(self) -> set[str]:
        return set(self.client.get_collection(self.collection).payload_schema or {})

    def _create_index(self, name: str, schema: str) -> None:
        with warnings.catch_warnings():  # local mode accepts payload indexes and ignores them, with a warning
            warnings.simplefilter("ignore", UserWarning)
            self.client.create_payload_index(self.collection, name, field_schema=schema)

    def _upsert(self, points: Sequence[NodePoint]) -> None:
        structs = []
        for point in points:
            vectors: dict = {DENSE: point.dense}
            if point.sparse is not None:
                vectors[SPARSE] = _sparse(point.sparse)
            if point.passages is not None:
                vectors[PASSAGES] = point.passages
            structs.append(models.PointStruct(id=point.id, vector=vectors, payload=point.payload))
        self.client.upsert(self.collection, points=structs, wait=True)

    def _delete(self, where: Where) -> None:
        self.client.delete(self.collection, _filter(where), wait=True)

    def _scroll(self, fields: Fields, where: Where | None) -> Iterator[list[dict]]:
        offset = None
        while True:
            records, offset = self.client.scroll(
                self.collection,
                scroll_filter=_filter(where) if where else None,
                limit=SCROLL_PAGE,
                offset=offset,
                with_payload=fields,
            )
            yield [record.payload or {} for record in records]
            if offset is None:
                return

    def _retrieve(self, ids: list[int], fields: Fields) -> list[dict]:
        return [r.payload or {} for r in self.client.retrieve(self.collection, ids=ids, with_payload=fields)]

    def _count(self) -> int:
        return self.client.count(self.collection, exact=True).count

    def _query_batch(self, query: QueryVectors, requests: list[Request]) -> list[list[Hit]]:
        batch = [_request(query, request) for request in requests]
        responses = self.client.query_batch_points(self.collection, requests=batch)
        return [
            [Hit(int(p.id), float(p.score), p.payload or {}) for p in response.points]
            for response in responses
        ]


def _request(query: QueryVectors, request: Request) -> models.QueryRequest:
    return models.QueryRequest(
        query=_query_vector(query, request.using),
        using=request.using,
        filter=_filter(request.where),
        limit=request.limit,
        params=_idf_params(request.idf),
    )


def _sparse(vector: SparseVector) -> models.SparseVector:
    return models.SparseVector(indices=vector.indices, values=vector.values)


def _query_vector(query: QueryVectors, using: str) -> list[float] | list[list[float]] | models.SparseVector:
    if using == PASSAGES:  # a multivector query of one vector: the best passage's cosine
        return [query.dense.tolist()]
    return query.dense.tolist() if using == DENSE else _sparse(query.sparse)


def _filter(where: Where) -> models.Filter:
    must: list[Any] = [models.HasIdCondition(has_id=list(where.ids))] if where.ids is not None else []
    must += [models.FieldCondition(key=k, match=models.MatchValue(value=v)) for k, v in where.equals]
    must += [models.FieldCondition(key=k, match=models.MatchAny(any=list(v))) for k, v in where.one_of]
    return models.Filter(must=must)


def _idf_params(idf: Where | None) -> models.SearchParams | None:
    return models.SearchParams(idf=models.IdfCorpusParams(corpus=_filter(idf))) if idf else None


def _stored_as(storage: str) -> dict[str, Any]:
    """The passages vector's parameters for a ``config.PASSAGE_STORAGES`` choice (as ``edge._stored_as``)."""
    if storage == "float16":
        return {"datatype": models.Datatype.FLOAT16}
    if storage == "int8":
        scalar = models.ScalarQuantizationConfig(type=models.ScalarType.INT8, quantile=0.99, always_ram=True)
        return {"quantization_config": models.ScalarQuantization(scalar=scalar)}
    return {}
