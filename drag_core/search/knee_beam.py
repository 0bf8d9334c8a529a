"""``knee-beam``: the article's adaptive beam, as the article describes it.

Each generation ranks the beam plus all its children in one fused ranking, cuts that ranking at the knee of
its RRF (fused) score curve, and only then applies parent/child suppression (best first, a surviving child
eliminates its parent and a surviving parent its children); the survivors are the next beam. The first
generation is the roots' ranking. The width of every generation is the knee of its own curve, so it adapts
to the query. It stops when the beam no longer changes, holds only leaves, or after ``max_iterations``
generations. ``adaptive`` is this project's variant (see its module).

The knee is pinned to the article's (``ARTICLE_KNEE``: Kneedle, S = 1, at most 5 items, on the RRF curve), so
the library's knee defaults and the app's knee knobs — chosen for ``adaptive`` and ``flat-knee`` — never
change the method the project is measured against.
"""

from __future__ import annotations

from drag_core.params import ScoreSource
from drag_core.search.base import KneeRule, SearchContext, Step, suppress
from drag_core.search.beam import Beam
from drag_core.store import Candidate

__all__ = ["ARTICLE_KNEE", "KNEE_SOURCE", "KneeBeam", "SUPPRESSION"]

#: The curve the article's knee reads: fused RRF scores.
KNEE_SOURCE = ScoreSource.RRF
#: The article's knee as this project first measured it: Kneedle at the paper's S = 1, at most 5 items.
ARTICLE_KNEE = KneeRule(method="kneedle", sensitivity=1.0, source=KNEE_SOURCE, min_keep=1, max_keep=5)
#: What keeps fewer than the cut in a generation: parent/child suppression.
SUPPRESSION = "suppression"


class KneeBeam(Beam):
    """A beam whose width is the knee of each generation's RRF curve, cut before suppression."""

    name = "knee-beam"
    params = ("root_rank", "max_iterations", "rrf_k", "dense_weight", "passages")

    def select(self, ctx: SearchContext, step: Step, first: bool = False) -> list[Candidate]:
        """The article's knee cut of the fused curve first, then suppression among what the cut kept (no fixed
        width)."""
        cut = ctx.knee_cut(step, rule=ARTICLE_KNEE)
        survivors = step.keep(suppress(cut, None))
        if len(survivors) < len(cut):
            step.kept_by = SUPPRESSION
        return survivors
