"""``flat``: the baseline — top-k leaves of one hybrid ranking. ``flat-dense`` and ``flat-sparse``: the same
with one vector alone (MiniLM cosine, BM25), the anchors for published numbers. ``flat-knee``: the hybrid
ranking cut at its knee."""

from __future__ import annotations

from drag_core.search.base import FUSION_DEPTH, KNEE_PARAMS, SearchContext, Step, StepKind
from drag_core.store import DENSE, SPARSE, Candidate, Scope, ScopeKind

__all__ = ["Flat", "FlatKnee"]


class Flat:
    """Top-k pages by RRF of the named vectors (dense and sparse by default): every claim of the tree
    searches is measured against it.

    Attributes:
        name: the strategy's name.
        using: the named vectors ranked (one vector: its own order, as Qdrant scores it).
        params: the ``SearchParams`` fields it reads.
    """

    def __init__(self, name: str = "flat", using: tuple[str, ...] = (DENSE, SPARSE)) -> None:
        self.name = name
        self.using = using
        #: The fusion's weight matters only where two lists are fused.
        fused = ("top_k", "rrf_k", "dense_weight") if len(using) > 1 else ("top_k", "rrf_k")
        self.params = (*fused, "passages") if DENSE in using else fused

    @property
    def description(self) -> str:
        """One line for ``--help`` and the app: what this instance ranks."""
        if len(self.using) > 1:
            return "top-k pages of one hybrid ranking (dense + sparse, RRF): the baseline"
        vector = {DENSE: "dense MiniLM cosine", SPARSE: "BM25"}.get(self.using[0], self.using[0])
        return f"top-k pages by {vector} alone: an anchor for published numbers"

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        scope = Scope(
            kind=ScopeKind.LEAVES,
            limit=ctx.params.top_k,
            using=self.using,
            dense=ctx.dense_of("flat") if DENSE in self.using else DENSE,  # BM25 alone reads no dense list
            depth=FUSION_DEPTH,
        )
        (step,) = ctx.rank([scope], StepKind.LEAVES, ["leaves"])
        return step.keep(step.candidates), [step]


class FlatKnee:
    """The top ``knee_pool`` leaves cut at the knee of their score curve."""

    name = "flat-knee"
    params = ("knee_pool", "rrf_k", "dense_weight", "passages", *KNEE_PARAMS)

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        scope = Scope(
            kind=ScopeKind.LEAVES, limit=ctx.params.knee_pool, dense=ctx.dense_of("flat"), depth=FUSION_DEPTH
        )
        (step,) = ctx.rank([scope], StepKind.LEAVES, ["leaves"])
        return ctx.knee_cut(step), [step]
