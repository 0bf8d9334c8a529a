"""``branch``: top roots, then each parent against its own children in one fused ranking; descend into the
children ranked above their parent, else keep the parent. All parents of a generation go in one batch of Qdrant
lists."""

from __future__ import annotations

from drag_core.search.base import SearchContext, Step, StepKind
from drag_core.search.roots import rank_roots
from drag_core.store import Candidate, Scope

__all__ = ["Branch"]


class Branch:
    """Greedy descent: a child is followed only when it beats its parent."""

    name = "branch"
    params = ("roots", "root_rank", "rrf_k", "dense_weight", "passages")

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        roots = rank_roots(ctx)
        frontier = roots.keep(roots.candidates[: ctx.params.roots])
        steps, final = [roots], []
        while frontier:
            parents = [c for c in frontier if c.child_ids]
            final += [c for c in frontier if not c.child_ids]
            scopes = [Scope(ids=(p.id, *p.child_ids), limit=1 + len(p.child_ids)) for p in parents]
            names = [f"parent {p.id}" for p in parents]
            generation = ctx.rank(scopes, StepKind.PARENT, names, [p.id for p in parents])
            frontier = []
            for parent, step in zip(parents, generation):
                ids = [c.id for c in step.candidates]
                cut = ids.index(parent.id) if parent.id in ids else len(ids)
                winners = step.candidates[:cut]
                if winners:
                    frontier += step.keep(winners)
                else:  # the parent ranked first: keep it
                    final += step.keep(step.candidates[:1])
            steps += generation
        return final, steps
