"""``adaptive``: a beam whose width is the knee of each ranking, over two generations.

1. Seed pages: every page of the index in one fused ranking, cut at its knee (at most ``roots`` pages). The
   roots of these pages are the beam's documents — roots are chosen by their best pages, never by a summary.
2. Pages of those documents: one fused ranking with BM25's IDF counted over these pages only (terms that
   tell this filing's pages apart weigh, not the company name every page repeats), cut at its knee. Those
   pages are the answer.

The intermediate levels are not walked: measured on financebench-dev, descending level by level lost
recall at every cut (see ``docs/evaluation.md``), while the roots' pages ranked in one go kept it.
"""

from __future__ import annotations

from drag_core.search.base import FUSION_DEPTH, KNEE_PARAMS, SearchContext, Step, StepKind
from drag_core.store import Candidate, Scope


class Adaptive:
    """Documents of the knee-cut best pages, then their pages cut at the knee."""

    name = "adaptive"
    params = ("roots", "rrf_k", *KNEE_PARAMS)

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        (seeds,) = ctx.rank(
            [Scope(kind="leaves", limit=FUSION_DEPTH)], StepKind.SEEDS, ["seed pages (all documents)"]
        )
        kept = ctx.knee_cut(seeds, cap=ctx.params.roots)
        docs = tuple(dict.fromkeys(c.doc_id for c in kept))
        files = ", ".join(dict.fromkeys(c.file_name for c in kept))
        scope = Scope(kind="leaves", docs=docs, limit=FUSION_DEPTH, scoped_idf=True)
        (pages,) = ctx.rank([scope], StepKind.PAGES, [f"pages of {files}"])
        return ctx.knee_cut(pages), [seeds, pages]
