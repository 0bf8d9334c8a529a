"""Reciprocal Rank Fusion (Cormack, Clarke & Büttcher, SIGIR 2009), computed by Qdrant.

The user-facing constant is the classic one: ``score(d) = Σ_r 1 / (k + rank_r(d))`` with 1-based ranks and
k = 60 by default. Qdrant's ``Rrf(k=q)`` computes ``1 / (q + rank0)`` with 0-based ranks, so the classic k
maps to ``q = k + 1``. This module is the only place that knows it: ``store.base.ranking_requests`` (the
one place that builds a fused request) asks it.
"""

from __future__ import annotations

__all__ = ["DEFAULT_RRF_K", "classic_rrf_score", "qdrant_rrf_k"]

DEFAULT_RRF_K = 60


def qdrant_rrf_k(classic_k: int) -> int:
    """Qdrant's RRF constant for the classic ``1/(k + rank)`` with 1-based ranks."""
    if classic_k < 0:
        raise ValueError("RRF k must be ≥ 0")
    return classic_k + 1


def classic_rrf_score(ranks: list[int | None], classic_k: int = DEFAULT_RRF_K) -> float:
    """The classic RRF score of one item from its 1-based ranks (None: absent from that list).

    Used to explain and check Qdrant's scores, never to rank.
    """
    return sum(1.0 / (classic_k + rank) for rank in ranks if rank is not None)
