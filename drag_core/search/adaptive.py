"""``adaptive``: ``beam`` whose width is the knee of each ranking's score curve (Kneedle or another detector,
with a sensitivity). Every ranking — the roots' too — is cut at its knee first; suppression comes after."""

from __future__ import annotations

from drag_core.search.base import SearchContext, Step, suppress
from drag_core.search.beam import Beam
from drag_core.store import Candidate


class Adaptive(Beam):
    """Beam search with a knee-sized beam."""

    name = "adaptive"

    def select(self, ctx: SearchContext, step: Step, width: int) -> list[Candidate]:
        kept = ctx.knee_cut(step)
        survivors, eliminated = suppress(kept, None)
        step.kept = [c.id for c in survivors]
        step.eliminated = eliminated + step.eliminated
        return survivors
