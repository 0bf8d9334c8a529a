"""``beam``: a generation of beam nodes plus all their children in one fused ranking; best first, a surviving
child eliminates its parent and a surviving parent its children; stop at the beam width. Repeat until the
beam stops changing or ``max_iterations`` generations have run."""

from __future__ import annotations

from drag_core.search.base import SearchContext, Step, StepKind, suppress
from drag_core.search.roots import rank_roots
from drag_core.store import Candidate, Scope

__all__ = ["Beam"]


class Beam:
    """Fixed-width beam over the tree, with parent/child suppression."""

    name = "beam"
    params = ("roots", "root_rank", "beam_width", "max_iterations", "rrf_k", "dense_weight", "passages")

    def select(self, ctx: SearchContext, step: Step, first: bool = False) -> list[Candidate]:
        """The survivors of one ranking under parent/child suppression, at most the beam width (of the
        roots' ranking, ``first``: at most ``roots`` too); recorded on the step (``knee-beam`` cuts at the
        knee instead of a width)."""
        p = ctx.params
        return step.keep(suppress(step.candidates, min(p.roots, p.beam_width) if first else p.beam_width))

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        p = ctx.params
        roots = rank_roots(ctx)
        beam = self.select(ctx, roots, first=True)
        steps = [roots]
        for generation in range(1, p.max_iterations + 1):
            if not any(c.child_ids for c in beam):
                break
            ids = tuple(dict.fromkeys(i for c in beam for i in (c.id, *c.child_ids)))
            (step,) = ctx.rank(
                [Scope(ids=ids, limit=len(ids))], StepKind.GENERATION, [f"generation {generation}"]
            )
            steps.append(step)
            survivors = self.select(ctx, step)
            if {c.id for c in survivors} == {c.id for c in beam}:
                beam = survivors
                break
            beam = survivors
        return beam, steps
