"""``knee-beam``: the article's adaptive beam, as the article describes it.

Each generation ranks the beam plus all its children in one fused ranking, cuts that ranking at the knee of
its RRF (fused) score curve, and only then applies parent/child suppression (best first, a surviving child
eliminates its parent and a surviving parent its children); the survivors are the next beam. The first
generation is the roots' ranking. The width of every generation is the knee of its own curve, so it adapts
to the query. It stops when the beam no longer changes, holds only leaves, or after ``max_iterations``
generations. ``adaptive`` is this project's variant (see its module).
"""

from __future__ import annotations

from drag_core.params import ScoreSource
from drag_core.search.base import SearchContext, Step, suppress
from drag_core.search.beam import Beam
from drag_core.store import Candidate

__all__ = ["KNEE_SOURCE", "KneeBeam"]

#: The curve the article's knee reads: fused RRF scores.
KNEE_SOURCE = ScoreSource.RRF


class KneeBeam(Beam):
    """A beam whose width is the knee of each generation's RRF curve, cut before suppression."""

    name = "knee-beam"
    params = ("max_iterations", "rrf_k", "knee_method", "sensitivity", "min_keep", "max_keep")

    def select(self, ctx: SearchContext, step: Step, first: bool = False) -> list[Candidate]:
        """Knee cut of the fused curve first, then suppression among what the cut kept (no fixed width)."""
        return step.keep(suppress(ctx.knee_cut(step, source=KNEE_SOURCE), None))
