"""Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009), with a weight per list.

The user-facing constant is the classic one: ``score(d) = Σ_r 1 / (k + rank_r(d))`` with 1-based ranks and
k = 60 by default.

Weighted RRF, as Qdrant's ``Rrf(k, weights)`` weighs: each list's rank is divided by its weight, ``score(d) =
Σ_r 1 / (k + rank_r(d) / w_r)``: a list of weight 2 counts its second item as the other list's first; weight 0
adds nothing (its points are still fused, at 0, as Qdrant keeps them). One knob, the dense list's share ``w`` of
the fusion, gives the weights ``(2w, 2(1 − w))`` of (dense, BM25): ``w = 0.5`` is classic, equal-weight RRF, 1 the
dense list alone, 0 BM25 alone.

The store fuses the lists Qdrant returns with ``rrf`` (``store.base.fused_ranking``): it fetches each list once
for the trace's ranks and scores, and a fusion inside the engine would scan every vector a second time.
``tests/test_fusion.py`` checks that ``rrf`` ranks as Qdrant's own ``Rrf`` does, on both engines, weighted or not.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["DEFAULT_DENSE_WEIGHT", "DEFAULT_RRF_K", "classic_rrf_score", "rrf", "rrf_weights"]

DEFAULT_RRF_K = 60
#: The dense list's share of the fusion: 0.5 is classic RRF, both lists alike.
DEFAULT_DENSE_WEIGHT = 0.5


def rrf_weights(dense_weight: float) -> tuple[float, float] | None:
    """The weights of the (dense, BM25) lists for the dense list's share ``dense_weight`` (0 … 1); None for
    0.5, classic RRF, which needs no weights."""
    if not 0 <= dense_weight <= 1:
        raise ValueError(f"the dense list's share of the fusion lies in 0 … 1, not {dense_weight}")
    if dense_weight == DEFAULT_DENSE_WEIGHT:
        return None
    return 2 * dense_weight, 2 * (1 - dense_weight)


def classic_rrf_score(
    ranks: list[int | None], classic_k: int = DEFAULT_RRF_K, weights: tuple[float, ...] | None = None
) -> float:
    """The RRF score of one item from its 1-based ranks (None: absent from that list), each rank divided by its
    list's weight (None: all 1) as Qdrant does; a list of weight 0 adds nothing."""
    weights = weights or (1.0,) * len(ranks)
    return sum(1.0 / (classic_k + rank / w) for rank, w in zip(ranks, weights, strict=True) if rank and w > 0)


def rrf(
    rankings: Sequence[Sequence[int]],
    classic_k: int = DEFAULT_RRF_K,
    weights: Sequence[float] | None = None,
) -> dict[int, float]:
    """Every id of the ``rankings`` (lists of ids, best first) with its ``classic_rrf_score`` over all of them,
    as Qdrant's ``Rrf(k, weights)`` scores it: a list of weight 0 adds nothing to a score, but its ids are
    fused (at 0, where no other list holds them), as Qdrant keeps them. Unordered: ties are the caller's to
    break (``store.base.best_first``)."""
    if classic_k < 0:
        raise ValueError("RRF k must be ≥ 0")
    weights = tuple(weights or (1.0,) * len(rankings))
    ranks: dict[int, list[int | None]] = {}
    for i, ranking in enumerate(rankings):
        for rank, item in enumerate(ranking, start=1):
            ranks.setdefault(item, [None] * len(rankings))[i] = rank
    return {item: classic_rrf_score(own, classic_k, weights) for item, own in ranks.items()}
