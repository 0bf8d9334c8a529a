"""One contract, two embedded engines: Qdrant Edge and qdrant-client local mode behave the same behind
``NodeStore`` — writing, listing, ranking with Qdrant's RRF, deleting, recovering and persisting."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
import qdrant_edge
from conftest import FINANCE

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.fusion import classic_rrf_score
from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.loading import load_path
from drag_core.ingest.pipeline import describe_tree
from drag_core.ingest.vector_text import VectorPolicy, dense_vectors, sparse_texts
from drag_core.layout import StoreLayout
from drag_core.store import (
    DENSE,
    ENGINES,
    SPARSE,
    Candidate,
    ClientStore,
    EdgeStore,
    NodeStore,
    QueryVectors,
    Scope,
    ScopeKind,
    StoreError,
    Where,
    open_store,
)
from drag_core.store import edge as edge_store
from drag_core.store.lease import Lease, ended_here

FILES = ("AMCOR_2022_8K_dated-2022-07-01.pdf", "PEPSICO_2023_8K_dated-2023-05-05.pdf")
QUERY = "supplemental indenture trustee notes due 2032"


@pytest.fixture(scope="module")
def documents(embedder):
    """Two real filings as written by ingestion: nodes (leaves first, root last) with dense and sparse vectors."""
    describer = Describer(ExtractiveSummarizer(), DescriptionCache(None))
    policy = VectorPolicy()
    built = []
    for name in FILES:
        document = load_path(FINANCE / name)
        nodes = describe_tree(document, describer)
        bodies = [page.body for page in document.pages]
        built.append(
            (
                nodes,
                dense_vectors(nodes, policy, embedder.dense, bodies),
                embedder.sparse(sparse_texts(nodes, policy, bodies)),
            )
        )
    return built


@pytest.fixture(scope="module")
def query(embedder) -> QueryVectors:
    dense, sparse = embedder.query(QUERY)
    return QueryVectors(dense=dense, sparse=sparse)


@pytest.fixture(params=ENGINES)
def engine(request) -> str:
    return request.param


@pytest.fixture
def open_(engine, tmp_path):
    """Opens stores of the engine under test (``:memory:`` or a folder) and closes them after the test."""
    opened: list[NodeStore] = []

    def open_one(store: str = ":memory:", dim: int | None = 384) -> NodeStore:
        opened.append(open_store(Settings(store=store, engine=engine, cache_path=None)))
        if dim is not None:
            opened[-1].ensure_collection(dim)
        return opened[-1]

    yield open_one
    for store in reversed(opened):
        store.close()


@pytest.fixture
def filled(open_, documents) -> NodeStore:
    store = open_()
    for nodes, dense, sparse in documents:
        store.write_document(nodes, dense, sparse)
    return store


def test_open_store_picks_the_engine(engine, open_) -> None:
    assert isinstance(open_(dim=None), EdgeStore if engine == "edge" else ClientStore)


def test_default_engine_is_edge_and_unknown_engines_are_refused(tmp_path) -> None:
    store = open_store(Settings(store=":memory:"))
    assert isinstance(store, EdgeStore)
    store.close()
    with pytest.raises(StoreError, match="unknown engine"):
        open_store(Settings(store=":memory:", engine="hnswlib"))


def test_an_existing_local_mode_folder_is_opened_with_qdrant_client(tmp_path, documents) -> None:
    folder = str(tmp_path / "index")
    local = open_store(Settings(store=folder, engine="local"))
    local.ensure_collection(384)
    local.write_document(*documents[1])
    local.close()
    reopened = open_store(Settings(store=folder))
    assert isinstance(reopened, ClientStore)
    assert [r.file_name for r in reopened.roots()] == [FILES[1]]
    reopened.close()


def test_create_once_and_refuse_another_dense_size(open_) -> None:
    store = open_(dim=None)
    assert not store.has_collection()
    store.ensure_collection(384)
    store.ensure_collection(384)
    assert store.has_collection() and store.count() == 0
    with pytest.raises(StoreError, match="384-d"):
        store.ensure_collection(512)


def test_write_list_and_get(filled, documents) -> None:
    (amcor, *_), (pepsico, *_) = documents
    assert filled.count() == len(amcor) + len(pepsico)
    roots = {r.file_name: r for r in filled.roots()}
    assert set(roots) == set(FILES)
    assert roots[FILES[0]].id == amcor[-1].id and roots[FILES[0]].parent_id == -1
    assert [r.id for r in filled.roots(FILES[1])] == [pepsico[-1].id]
    assert filled.roots("not-indexed.pdf") == []
    listed = filled.nodes_of(amcor[0].doc_id)
    assert {n.id for n in listed} == {n.id for n in amcor}
    assert [n.level for n in listed] == sorted(n.level for n in listed)
    assert all(n.text == "" for n in listed)
    with_text = filled.nodes_of(amcor[0].doc_id, with_text=True)
    assert [n.text for n in with_text if n.level == 0] == [n.text for n in amcor if n.level == 0]
    wanted = [pepsico[2].id, 12345, amcor[0].id, pepsico[2].id]
    got = filled.get(wanted)
    assert [n.id for n in got] == [pepsico[2].id, amcor[0].id]
    assert got[1].text == amcor[0].text and got[1].child_ids == [] and got[1].parent_id == amcor[0].parent_id


@pytest.mark.parametrize("k", [0, 60])
def test_ranking_scopes_and_qdrants_rrf(filled, documents, query, k: int) -> None:
    (amcor, *_), (pepsico, *_) = documents
    root = amcor[-1]
    group = (root.id, *root.child_ids)
    before = filled.round_trips
    (by_ids, roots, leaves), ms = filled.rank(
        query,
        [
            Scope(ids=group, limit=len(group)),
            Scope(kind=ScopeKind.ROOTS, limit=10),
            Scope(kind=ScopeKind.LEAVES, limit=6),
        ],
        k,
    )
    assert filled.round_trips == before + 2 and ms >= 0  # one batch of lists, one read of the kept fields
    assert {c.id for c in by_ids} == set(group)
    assert {c.id for c in roots} == {amcor[-1].id, pepsico[-1].id}
    leaf_ids = {n.id for n in amcor + pepsico if n.level == 0}
    assert len(leaves) == 6 and {c.id for c in leaves} <= leaf_ids
    for ranking in (by_ids, roots, leaves):
        assert [c.fused for c in ranking] == sorted((c.fused for c in ranking), reverse=True)
        for c in ranking:
            assert c.fused == pytest.approx(classic_rrf_score([c.dense_rank, c.sparse_rank], k), rel=1e-6)
        dense = sorted((c for c in ranking if c.dense_rank), key=lambda c: c.dense_rank)
        assert [c.dense_score for c in dense] == sorted((c.dense_score for c in dense), reverse=True)
    top = by_ids[0]
    assert (top.parent_id, top.level) == next((n.parent_id, n.level) for n in amcor if n.id == top.id)


def test_one_vector_alone_ranks_by_that_vector(filled, query) -> None:
    ((ranking,), _) = filled.rank(query, [Scope(kind=ScopeKind.LEAVES, limit=5, using=(DENSE,))], 60)
    assert [c.dense_rank for c in ranking] == [1, 2, 3, 4, 5]
    assert all(c.fused == pytest.approx(1 / (60 + c.dense_rank), rel=1e-6) for c in ranking)


def test_both_engines_rank_alike(documents, query) -> None:
    rankings = []
    for engine in ENGINES:
        store = open_store(Settings(store=":memory:", engine=engine))
        store.ensure_collection(384)
        for document in documents:
            store.write_document(*document)
        (leaves,), _ = store.rank(query, [Scope(kind=ScopeKind.LEAVES, limit=10)], 60)
        rankings.append(leaves)
        store.close()
    edge, local = map(_untied, rankings)
    assert len(edge) >= 4 and edge.keys() == local.keys()
    for i, (ranks, fused) in edge.items():
        assert local[i][0] == ranks and local[i][1] == pytest.approx(fused, rel=1e-6)


def _untied(ranking: list[Candidate]) -> dict[int, tuple[tuple[int | None, int | None], float]]:
    """Ranks and fused score of the candidates with a unique cosine: equal scores tie, and an engine may order
    a tie its own way (local mode even differently after a reopen)."""
    cosines = [round(c.dense_score or 0.0, 5) for c in ranking]
    return {
        c.id: ((c.dense_rank, c.sparse_rank), c.fused)
        for c in ranking
        if c.dense_score and cosines.count(round(c.dense_score, 5)) == 1
    }


def test_delete_a_document(filled, documents) -> None:
    (amcor, *_), (pepsico, *_) = documents
    filled.delete_document(amcor[0].doc_id)
    assert filled.count() == len(pepsico)
    assert [r.file_name for r in filled.roots()] == [FILES[1]]
    assert filled.nodes_of(amcor[0].doc_id) == []


def _partial(store: NodeStore, document, lease: Lease | None, monkeypatch) -> None:
    """Write the document as a writer killed just before its root would leave it."""
    nodes, dense, sparse = document
    real_upsert = store._upsert

    def crash_at_the_root(points) -> None:
        if any(p.id == nodes[-1].id for p in points):
            raise RuntimeError("power cut")
        real_upsert(points)

    monkeypatch.setattr(store, "_upsert", crash_at_the_root)
    with pytest.raises(RuntimeError):
        store.write_document(nodes, dense, sparse, lease)
    monkeypatch.setattr(store, "_upsert", real_upsert)


def test_recover_removes_a_document_whose_root_was_never_written(open_, documents, monkeypatch) -> None:
    store = open_()
    store.write_document(*documents[1])
    nodes = documents[0][0]
    _partial(store, documents[0], None, monkeypatch)
    assert store.count() == len(documents[1][0]) + len(nodes) - 1
    assert [r.file_name for r in store.roots()] == [FILES[1]]
    assert store.recover() == [nodes[0].doc_id]
    assert store.count() == len(documents[1][0])
    assert store.recover() == []


def _counted(document):
    """The document with its node count on its root, as ingestion writes it."""
    nodes, dense, sparse = document
    return [*nodes[:-1], replace(nodes[-1], extra={**nodes[-1].extra, "nodes": len(nodes)})], dense, sparse


def test_recover_of_a_whole_index_reads_only_the_roots(open_, documents, monkeypatch) -> None:
    store = open_()
    for document in documents:
        store.write_document(*_counted(document))
    read: list[Where | None] = []
    scroll = store._scroll
    monkeypatch.setattr(store, "_scroll", lambda fields, where: read.append(where) or scroll(fields, where))
    assert store.recover() == []
    assert read and all(where is not None and ("parent_id", -1) in where.equals for where in read)


def test_recover_finds_a_partial_document_beside_counted_roots(open_, documents, monkeypatch) -> None:
    store = open_()
    store.write_document(*_counted(documents[1]))
    _partial(store, _counted(documents[0]), None, monkeypatch)
    assert store.recover() == [documents[0][0][0].doc_id]
    assert store.count() == len(documents[1][0])


def test_edge_seals_full_segments_on_disk_and_ranks_exactly_as_before(
    documents, query, tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(edge_store, "SEALED_KB", 1)  # the two filings outgrow 1 KB of vectors
    store = EdgeStore(tmp_path)
    store.ensure_collection(384)
    for document in documents:
        store.write_document(*document)
    scopes = [Scope(kind=ScopeKind.LEAVES, limit=10), Scope(kind=ScopeKind.ROOTS, limit=2)]
    appended, segments = store.rank(query, scopes, 60)[0], store.shard.info().segments_count
    store.settle()
    config = json.loads((store.folder / edge_store.CONFIG_FILE).read_text())
    assert config["vectors"][DENSE]["memory"] == config["sparse_vectors"]["sparse"]["memory"] == "cold"
    assert store.shard.info().segments_count > segments, "the full segment was sealed"
    sealed = store.rank(query, scopes, 60)[0]
    # the same nodes with the same scores; pages with identical vectors (exact ties) may swap places
    assert [{c.id for c in r} for r in sealed] == [{c.id for c in r} for r in appended]
    for before, after in zip(appended, sealed):
        assert [c.fused for c in after] == pytest.approx([c.fused for c in before])
    store.close()


def test_edge_leaves_a_shard_of_the_older_layout_unsealed(documents, tmp_path) -> None:
    folder = StoreLayout(tmp_path).edge_shard("drag_nodes")
    folder.mkdir(parents=True)
    older = qdrant_edge.EdgeConfig(  # as EdgeStore created collections before, with a threshold it outgrows
        vectors={DENSE: qdrant_edge.EdgeVectorParams(size=384, distance=qdrant_edge.Distance.Cosine)},
        sparse_vectors={SPARSE: qdrant_edge.EdgeSparseVectorParams(modifier=qdrant_edge.Modifier.Idf)},
        optimizers=qdrant_edge.EdgeOptimizersConfig(indexing_threshold=1),
    )
    qdrant_edge.EdgeShard.create(str(folder), older).close()
    store = EdgeStore(tmp_path)
    store.write_document(*documents[0])
    segments = store.shard.info().segments_count
    store.settle()
    assert store.shard.info().segments_count == segments
    store.close()


def test_recover_leaves_a_live_writers_partial_document_until_its_lease_expires(
    open_, documents, monkeypatch
) -> None:
    store = open_()
    nodes = documents[0][0]
    writer_a, writer_b = Lease("host-a:1:a", seconds=1.0), Lease("host-b:1:b", seconds=1.0)
    _partial(store, documents[0], writer_a, monkeypatch)
    stamped = store._payloads(["writer", "heartbeat"])
    assert {p["writer"] for p in stamped} == {writer_a.writer}
    assert store.recover(writer_b) == [], "writer a may still be writing"
    assert store.count() == len(nodes) - 1
    time.sleep(1.2)
    assert store.recover(writer_b) == [nodes[0].doc_id], "writer a's lease expired"
    assert store.count() == 0

    _partial(store, documents[0], writer_a, monkeypatch)
    assert store.recover(writer_a) == [nodes[0].doc_id], "a writer is not writing while it recovers"


def test_two_engines_share_one_store_without_removing_each_others_documents(
    open_, documents, embedder, monkeypatch
) -> None:
    store = open_()
    settings = Settings(store=":memory:", cache_path=None)
    first = Engine(settings, ExtractiveSummarizer(), embedder, store=store)
    real_upsert, seen = store._upsert, []

    def start_another_engine_before_the_root(points) -> None:
        if any(p.payload["parent_id"] == -1 for p in points) and not seen:  # first's document is partial
            seen.append(Engine(settings, ExtractiveSummarizer(), embedder, store=store))  # it recovers
            seen.append(store.recover(seen[0].lease))
        real_upsert(points)

    monkeypatch.setattr(store, "_upsert", start_another_engine_before_the_root)
    report = first.ingest_paths([FINANCE / FILES[0]])[0]
    second, recovered = seen
    assert report.status == "indexed" and recovered == []
    assert second.lease.writer != first.lease.writer
    assert store.count() == report.nodes, "the second engine left the first one's document whole"
    assert [d.file_name for d in second.documents()] == [FILES[0]]


def test_a_writer_of_this_machine_that_ended_has_abandoned_its_documents() -> None:
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    host = socket.gethostname()
    assert ended_here(f"{host}:{ended.stdout.strip()}:x")
    assert not ended_here(f"{host}:{os.getpid()}:x"), "this process runs"
    assert not ended_here(f"another-host:{ended.stdout.strip()}:x"), "other machines are not asked"


def test_persists_across_reopen_and_one_process_per_folder(open_, documents, query, tmp_path: Path) -> None:
    folder = str(tmp_path / "index")
    first = open_(folder)
    first.write_document(*documents[0])
    everything = [Scope(kind=ScopeKind.LEAVES, limit=50)]
    (before,), _ = first.rank(query, everything, 60)
    if isinstance(first, EdgeStore):  # local mode's lock is per process, Edge's per open shard
        with pytest.raises(StoreError, match="in use"):
            open_store(Settings(store=folder, engine="edge"))
    first.close()
    second = open_(folder)
    assert second.count() == len(documents[0][0])
    assert [r.id for r in second.roots()] == [documents[0][0][-1].id]
    (after,), _ = second.rank(query, everything, 60)
    assert {c.id for c in after} == {c.id for c in before}
    assert _untied(after) == _untied(before) and len(_untied(before)) >= 4
