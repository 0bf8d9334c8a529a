"""``branch``: top roots, then each parent against its own children in one fused ranking; descend into the
children ranked above their parent, else keep the parent. All parents of a generation go in one Qdrant call."""

from __future__ import annotations

from drag_core.search.base import ROOT_POOL, SearchContext, Step
from drag_core.store import Candidate, Scope


class Branch:
    """Greedy descent: a child is followed only when it beats its parent."""

    name = "branch"

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        (roots,) = ctx.rank([Scope(kind="roots", limit=ROOT_POOL)], ["roots"])
        frontier = roots.candidates[: ctx.params.roots]
        roots.kept = [c.id for c in frontier]
        roots.eliminated = [c.id for c in roots.candidates[ctx.params.roots :]]
        steps, final = [roots], []
        while frontier:
            parents = [c for c in frontier if c.child_ids]
            final += [c for c in frontier if not c.child_ids]
            scopes = [Scope(ids=(p.id, *p.child_ids), limit=1 + len(p.child_ids)) for p in parents]
            generation = ctx.rank(scopes, [f"parent {p.id}" for p in parents])
            frontier = []
            for parent, step in zip(parents, generation):
                ids = [c.id for c in step.candidates]
                cut = ids.index(parent.id) if parent.id in ids else len(ids)
                winners = step.candidates[:cut]
                if winners:
                    frontier += winners
                    step.kept, step.eliminated = [c.id for c in winners], ids[cut:]
                else:
                    final.append(step.candidates[0])
                    step.kept, step.eliminated = [parent.id], ids[1:]
            steps += generation
        return final, steps
