"""RRF: the user-facing k is the classic 1/(k + rank) with 1-based ranks; the store fuses the lists Qdrant
returns, and ranks exactly as Qdrant's own ``Rrf`` (the reference) does on both engines."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import FINANCE
from qdrant_client import models
from qdrant_edge import Fusion, Prefetch, QueryRequest

from drag_core.fusion import classic_rrf_score, rrf, rrf_weights
from drag_core.search import SearchParams
from drag_core.store import (
    DENSE,
    ENGINES,
    PASSAGES,
    SPARSE,
    ClientStore,
    EdgeStore,
    NodeStore,
    QueryVectors,
    Scope,
    ScopeKind,
    fused_lists,
    fused_ranking,
    list_weights,
    ranking_requests,
)
from drag_core.store import client as client_store
from drag_core.store import edge as edge_store
from drag_core.store.base import Hit


def test_rrf_fuses_ranked_lists() -> None:
    scores = rrf([[7, 3, 5], [3, 9]], 60)
    assert scores == pytest.approx({7: 1 / 61, 3: 1 / 62 + 1 / 61, 5: 1 / 63, 9: 1 / 62})
    weighted = rrf([[7, 3], [9, 3]], 60, (0.0, 2.0))  # weight 0 adds nothing, yet its ids stay: Qdrant's way
    assert weighted == pytest.approx({7: 0.0, 9: 1 / 60.5, 3: 1 / 61})
    with pytest.raises(ValueError, match="k must be"):
        rrf([[1]], -1)


def test_hand_computation() -> None:
    assert classic_rrf_score([1, 3], 60) == pytest.approx(1 / 61 + 1 / 63)
    assert classic_rrf_score([2, None], 60) == pytest.approx(1 / 62)
    assert classic_rrf_score([2, 3], 60, (2.0, 0.5)) == pytest.approx(1 / (60 + 1) + 1 / (60 + 6))
    assert classic_rrf_score([2, 3], 60, (0.0, 2.0)) == pytest.approx(1 / (60 + 1.5))


def test_the_dense_share_maps_to_weights_around_classic_rrf() -> None:
    assert rrf_weights(0.5) is None  # classic, unweighted
    assert (
        rrf_weights(0.75) == (1.5, 0.5) and rrf_weights(0.0) == (0.0, 2.0) and rrf_weights(1.0) == (2.0, 0.0)
    )
    for wrong in (-0.1, 1.1):
        with pytest.raises(ValueError, match="0 … 1"):
            rrf_weights(wrong)
        with pytest.raises(ValueError, match="0 … 1"):
            SearchParams(dense_weight=wrong)


@pytest.fixture(scope="module", params=ENGINES)
def small_index(request, embedder):
    """Two filings with their passages, on each engine."""
    from drag_core.config import Settings
    from drag_core.engine import Engine
    from drag_core.ingest.describe.extractive import ExtractiveSummarizer

    settings = Settings.from_env(env={}, store=":memory:", cache_path=None, engine=request.param)
    engine = Engine(settings, ExtractiveSummarizer(), embedder)
    engine.ingest_paths(
        [FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf", FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"]
    )
    assert engine.store.holds_passages
    yield engine
    engine.close()


def qdrant_fused(
    store: NodeStore, query: QueryVectors, scope: Scope, k: int, share: float
) -> dict[int, float]:
    """The reference: Qdrant's own RRF of the scope's lists (one prefetch per list, ``Rrf(k + 1, weights)``:
    Qdrant counts ranks from 0), every fused point with its score."""
    lists = ranking_requests(scope)
    weights = list_weights(scope, share)
    weights = list(weights) if weights else None
    prefetched = [lists[name] for name in fused_lists(scope)]
    whole = sum(r.limit for r in prefetched)
    if isinstance(store, EdgeStore):
        prefetches = [
            Prefetch(
                limit=r.limit,
                query=edge_store._nearest(query, r.using),
                filter=edge_store._filter(r.where),
                params=edge_store._idf_params(r.idf),
            )
            for r in prefetched
        ]
        request = QueryRequest(limit=whole, prefetches=prefetches, query=Fusion.Rrf(k=k + 1, weights=weights))
        return {int(p.id): float(p.score) for p in store.shard.query(request)}
    assert isinstance(store, ClientStore)
    prefetch = [
        models.Prefetch(
            query=client_store._query_vector(query, r.using),
            using=r.using,
            filter=client_store._filter(r.where),
            limit=r.limit,
            params=client_store._idf_params(r.idf),
        )
        for r in prefetched
    ]
    rrf_query = models.RrfQuery(rrf=models.Rrf(k=k + 1, weights=weights))
    response = store.client.query_points(store.collection, prefetch=prefetch, query=rrf_query, limit=whole)
    return {int(p.id): float(p.score) for p in response.points}


QUERIES = (
    "supplemental indenture trustee notes",
    "PepsiCo notes offering",
    "Amcor quarterly dividend declared",
    "what is the interest rate of the senior notes due 2032",
)
SCOPES = (
    Scope(kind=ScopeKind.LEAVES, limit=14),  # flat: page vectors
    Scope(kind=ScopeKind.LEAVES, limit=5, dense=PASSAGES, depth=50),  # flat as shipped: best passages
    Scope(kind=ScopeKind.LEAVES, limit=50, using=(DENSE, PASSAGES, SPARSE)),  # adaptive's seeds
    Scope(kind=ScopeKind.LEAVES, limit=5, using=(SPARSE,), depth=50),  # BM25 alone
    Scope(kind=ScopeKind.ROOTS, limit=10),
)


@pytest.mark.parametrize("share", [0.0, 0.2, 0.5, 1.0])
@pytest.mark.parametrize("k", [0, 60])
def test_the_store_ranks_as_qdrants_own_rrf(small_index, k: int, share: float) -> None:
    """Every fused point and its score, for every kind of ranking the strategies ask for (scoped IDF too):
    ``fused_ranking`` of the lists equals Qdrant's fusion of the same lists."""
    store = small_index.store
    for text in QUERIES:
        query = small_index.embed_query(text)
        for scope in (
            *SCOPES,
            Scope(kind=ScopeKind.LEAVES, limit=20, docs=(_a_document(store),), scoped_idf=True),
        ):
            reference = qdrant_fused(store, query, scope, k, share)
            lists = {name: store._query_batch(query, [r])[0] for name, r in ranking_requests(scope).items()}
            ours = fused_ranking(scope, lists, k, share)
            everything = fused_ranking(replace(scope, limit=10_000), lists, k, share)
            assert {h.id: h.score for h in everything} == pytest.approx(reference, rel=1e-6), (text, scope)
            assert len(ours) == min(scope.limit, len(reference))
            best = sorted(reference.values(), reverse=True)[: len(ours)]
            assert [h.score for h in ours] == pytest.approx(best, rel=1e-6)


def _a_document(store: NodeStore) -> str:
    return store.roots()[0].doc_id


def test_one_ranking_fetches_each_list_once_however_many_scopes_read_it(small_index, monkeypatch) -> None:
    """adaptive's seeds (page vectors, passages, BM25) and flat's head (passages, BM25) share two lists: one
    batch of three lists, not five, and each ranking is the one it gets alone."""
    store = small_index.store
    query = small_index.embed_query(QUERIES[0])
    seeds = Scope(kind=ScopeKind.LEAVES, limit=50, using=(DENSE, PASSAGES, SPARSE))
    head = Scope(kind=ScopeKind.LEAVES, limit=5, dense=PASSAGES, depth=50)
    assert set(ranking_requests(head).values()) < set(ranking_requests(seeds).values())
    alone = [store.rank(query, [scope], 60)[0][0] for scope in (seeds, head)]
    sent: list[int] = []
    original = store._query_batch

    def counted(query, requests):
        sent.append(len(requests))
        return original(query, requests)

    monkeypatch.setattr(store, "_query_batch", counted)
    together, _ = store.rank(query, [seeds, head], 60)
    assert sent == [3]
    assert together == alone and len(together[1]) == 5 and len(together[0]) > 5


@pytest.mark.parametrize("k", [0, 2, 60, 200])
def test_qdrant_fused_scores_equal_the_classic_formula(small_index, k: int) -> None:
    vectors = small_index.embed_query("supplemental indenture trustee notes")
    (ranking,), _ = small_index.store.rank(vectors, [Scope(kind=ScopeKind.LEAVES, limit=14)], k)
    assert len(ranking) == 14
    assert any(c.sparse_rank is None for c in ranking) or all(c.sparse_rank for c in ranking)
    for candidate in ranking:
        expected = classic_rrf_score([candidate.dense_rank, candidate.sparse_rank], k)
        assert candidate.fused == pytest.approx(expected, rel=1e-6)  # Qdrant Edge scores in float32
    assert [c.fused for c in ranking] == sorted((c.fused for c in ranking), reverse=True)


@pytest.mark.parametrize("share", [0.0, 0.2, 0.8, 1.0])
def test_qdrant_weighted_scores_equal_the_formula(small_index, share: float) -> None:
    """Each list's rank divided by its weight, in Qdrant's own fusion; at the ends one list alone decides."""
    vectors = small_index.embed_query("supplemental indenture trustee notes")
    (ranking,), _ = small_index.store.rank(vectors, [Scope(kind=ScopeKind.LEAVES, limit=14)], 60, share)
    for candidate in ranking:
        expected = classic_rrf_score([candidate.dense_rank, candidate.sparse_rank], 60, rrf_weights(share))
        assert candidate.fused == pytest.approx(expected, rel=1e-6)
    alone = "dense_rank" if share == 1.0 else "sparse_rank" if share == 0.0 else None
    if alone:
        ranked = [getattr(c, alone) for c in ranking if getattr(c, alone) is not None]
        assert ranked == sorted(ranked) and len(ranked) >= 5


def test_the_dense_share_moves_the_flat_ranking(small_index) -> None:
    """The knob changes what flat returns over its range (a control that changes nothing is a defect)."""
    query = "notes due 2032 guaranteed by the parent"
    pages = {
        share: [
            (n.file_name, n.page_start)
            for n in small_index.search(query, "flat", SearchParams(top_k=8, dense_weight=share)).nodes
        ]
        for share in (0.0, 0.5, 1.0)
    }
    assert pages[0.0] != pages[1.0] and len(set(map(tuple, pages.values()))) >= 2, pages


def test_search_params_carry_k_to_qdrant(small_index) -> None:
    result = small_index.search("PepsiCo notes offering", "flat", SearchParams(top_k=3, rrf_k=10))
    (step,) = result.trace
    top = step.candidates[0]
    assert top.fused == pytest.approx(classic_rrf_score([top.dense_rank, top.sparse_rank], 10))


def test_the_lists_of_a_ranking() -> None:
    scope = Scope(kind=ScopeKind.LEAVES, limit=5, depth=50, scoped_idf=True)
    lists = ranking_requests(scope)
    assert list(lists) == [DENSE, SPARSE] and all(
        r.limit == 50 and r.where == scope.where() for r in lists.values()
    )
    assert lists[DENSE].idf is None and lists[SPARSE].idf == scope.where()
    assert list(ranking_requests(Scope(kind=ScopeKind.ROOTS, using=(SPARSE,)))) == [
        SPARSE,
        DENSE,
    ]  # the trace's
    seeds = Scope(kind=ScopeKind.LEAVES, using=(DENSE, PASSAGES, SPARSE))
    assert list(ranking_requests(seeds)) == [DENSE, PASSAGES, SPARSE]
    assert list_weights(seeds, 0.25) == (0.5, 0.5, 1.5) and list_weights(seeds, 0.5) is None


def test_a_tie_at_the_last_place_of_a_pool_is_broken_by_the_cosine() -> None:
    """A 50-deep pool whose 50th and 51st fused scores tie (the dense list's rank 50 against BM25's): the pool
    keeps the one with a cosine, whichever list comes first — a knee that reads the whole pool (its mean) then
    cuts the same way every time."""
    scope = Scope(kind=ScopeKind.LEAVES, limit=50, depth=50)
    dense = [Hit(i, 0.9 - i / 100, {}) for i in range(49)] + [Hit(101, 0.4, {})]
    sparse = [Hit(i, 9.0 - i / 10, {}) for i in range(49)] + [Hit(100, 3.0, {})]
    for lists in ({DENSE: dense, SPARSE: sparse}, {SPARSE: sparse, DENSE: dense}):
        pool = fused_ranking(scope, lists, 60)
        assert len(pool) == 50 and pool[-1].id == 101
