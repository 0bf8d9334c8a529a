"""Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009), computed by Qdrant, with a weight per list.

The user-facing constant is the classic one: ``score(d) = Σ_r 1 / (k + rank_r(d))`` with 1-based ranks and
k = 60 by default. Qdrant's ``Rrf(k=q)`` computes ``1 / (q + rank0)`` with 0-based ranks, so the classic k
maps to ``q = k + 1``.

Weighted RRF: Qdrant's ``Rrf(k, weights)`` divides each list's rank by its weight, ``score(d) = Σ_r 1 / (k +
rank_r(d) / w_r)`` (measured on both engines, ``tests/test_fusion.py``): a list of weight 2 counts its second
item as the other list's first; weight 0 leaves the list out. One knob, the dense list's share ``w`` of the
fusion, gives the weights ``(2w, 2(1 − w))`` of (dense, BM25): ``w = 0.5`` is classic, equal-weight RRF, 1 the
dense list alone, 0 BM25 alone. This module is the only place that knows these conventions:
``store.base.ranking_requests`` (the one place that builds a fused request) asks it.
"""

from __future__ import annotations

__all__ = ["DEFAULT_DENSE_WEIGHT", "DEFAULT_RRF_K", "classic_rrf_score", "qdrant_rrf_k", "rrf_weights"]

DEFAULT_RRF_K = 60
#: The dense list's share of the fusion: 0.5 is classic RRF, both lists alike.
DEFAULT_DENSE_WEIGHT = 0.5


def qdrant_rrf_k(classic_k: int) -> int:
    """Qdrant's RRF constant for the classic ``1/(k + rank)`` with 1-based ranks."""
    if classic_k < 0:
        raise ValueError("RRF k must be ≥ 0")
    return classic_k + 1


def rrf_weights(dense_weight: float) -> tuple[float, float] | None:
    """Qdrant's weights of the (dense, BM25) lists for the dense list's share ``dense_weight`` (0 … 1); None for
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
    list's weight (None: all 1) as Qdrant does.

    Used to explain and check Qdrant's scores, never to rank.
    """
    weights = weights or (1.0,) * len(ranks)
    return sum(1.0 / (classic_k + rank / w) for rank, w in zip(ranks, weights, strict=True) if rank and w > 0)
