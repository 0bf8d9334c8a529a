"""RRF is computed by Qdrant; the user-facing k is the classic 1/(k + rank) with 1-based ranks."""

from __future__ import annotations

import pytest
from conftest import FINANCE

from drag_core.fusion import classic_rrf_score, qdrant_rrf_k, rrf_weights
from drag_core.search import SearchParams
from drag_core.store import Scope, ScopeKind, ranking_requests
from drag_core.store.base import TIE_MARGIN, Hit, candidates


def test_classic_k_maps_to_qdrants_zero_based_constant() -> None:
    assert qdrant_rrf_k(60) == 61
    assert qdrant_rrf_k(0) == 1
    with pytest.raises(ValueError):
        qdrant_rrf_k(-1)


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


@pytest.fixture(scope="module")
def small_index(embedder):
    from drag_core.config import Settings
    from drag_core.engine import Engine
    from drag_core.ingest.describe.extractive import ExtractiveSummarizer

    engine = Engine(
        Settings.from_env(env={}, store=":memory:", cache_path=None), ExtractiveSummarizer(), embedder
    )
    engine.ingest_paths(
        [FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf", FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"]
    )
    yield engine
    engine.close()


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


def test_the_one_fused_request_carries_qdrants_k() -> None:
    scope = Scope(kind=ScopeKind.LEAVES, limit=5, depth=50, scoped_idf=True)
    fused, dense, sparse = ranking_requests(scope, 60)
    assert fused.rrf_k == qdrant_rrf_k(60) == 61 and fused.weights is None
    assert ranking_requests(scope, 60, 0.25)[0].weights == (0.5, 1.5)  # in the order of the lists fused
    assert fused.limit == 50 + TIE_MARGIN and fused.depth == 50 and fused.using == ("dense", "sparse")
    assert fused.idf == fused.where == scope.where()
    assert dense.rrf_k is None and dense.using == ("dense",) and dense.idf is None
    assert sparse.rrf_k is None and sparse.using == ("sparse",) and sparse.idf == scope.where()


def test_a_tie_at_the_last_place_of_a_pool_is_ours_to_break_not_the_engines() -> None:
    """A 50-deep pool whose 50th and 51st fused scores tie (one list's rank 36 against the other's): the
    engine returns both (it is asked for more than the pool) in whatever order, and the pool keeps the one
    with the higher cosine every time — a knee that reads the whole pool (its mean) then cuts the same way."""
    (fused, _, _) = ranking_requests(Scope(kind=ScopeKind.LEAVES, limit=50, depth=50), 60)
    assert fused.limit > 50 == fused.depth
    head = [Hit(i, 1.0 - i / 100, {}) for i in range(49)]
    tied = [Hit(100, 0.0104, {}), Hit(101, 0.0104, {})]
    dense = [Hit(i, 0.9 - i / 100, {}) for i in range(49)] + [Hit(101, 0.44, {})]
    sparse = [Hit(100, 3.0, {})]
    kept = {candidates([*head, *order], dense, sparse)[:50][-1].id for order in (tied, tied[::-1])}
    assert kept == {101}
