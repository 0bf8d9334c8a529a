"""``flat``: the baseline — top-k leaves of one hybrid ranking. ``flat-knee``: the same ranking cut at its knee."""

from __future__ import annotations

from drag_core.search.base import SearchContext, Step
from drag_core.store import Candidate, Scope


class Flat:
    """Top-k pages by RRF of dense and sparse: every claim of the tree searches is measured against it."""

    name = "flat"

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        (step,) = ctx.rank([Scope(kind="leaves", limit=ctx.params.top_k)], ["leaves"])
        step.kept = [c.id for c in step.candidates]
        return step.candidates, [step]


class FlatKnee:
    """The top ``knee_pool`` leaves cut at the knee of their score curve."""

    name = "flat-knee"

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        (step,) = ctx.rank([Scope(kind="leaves", limit=ctx.params.knee_pool)], ["leaves"])
        kept = ctx.knee_cut(step)
        step.kept = [c.id for c in kept]
        return kept, [step]
