"""``adaptive``: a beam whose width is the knee of each ranking, over two generations.

1. Seed pages: every page of the index in one fused ranking, cut at its knee (at most ``roots`` pages). The
   roots of these pages are the beam's documents — roots are chosen by their best pages, never by a summary.
   By default (``passages`` naming ``seeds-both``) the ranking fuses three lists: the page vectors', the best
   passages' and BM25's — page vectors find a filing's statement table, passages a section in the middle of
   a manual's page (measured: ``docs/evaluation.md``, "`adaptive` at equal budget (issue 26, session 9)").
2. Pages of those documents: one fused ranking (``knee_pool`` deep) with BM25's IDF counted over these pages
   only (terms that tell this filing's pages apart weigh, not the company name every page repeats), cut at
   its knee. Those pages are the answer.
3. Neighbours (``neighbours``, 3 by default; 0: off): a page next to a kept page (the page before or after,
   same document) that is among the first ``neighbours`` pages of that ranking is kept too — the rest of a
   section that runs over a page break, where the knee cut inside the span (measured: docs/evaluation.md,
   "Neighbouring pages").
4. With ``span_merge`` (off by default: measured, it costs more pages than it finds): where at least that
   many children of one parent survive the cut, the parent (the span of consecutive pages they belong to)
   is returned in their place.
5. Breadth (``doc_breadth``, 5 by default; 0: off): every document among flat top-k (k = ``doc_breadth``,
   ranked as ``flat`` ranks, whatever the seeds read) that the answer lacks adds its best page there and,
   when the seed ranking's first k pages show that document at another page, that page too. Choosing
   documents first can lose the question's own document to a sibling (a company's 10-K against its earnings
   release); this keeps the knee's precision inside the chosen documents without ever showing fewer
   documents than the flat baseline (measured: ``docs/evaluation.md``, "Never lose a document").

The intermediate levels are not walked: measured on financebench-dev, descending level by level lost
recall at every cut (see ``docs/evaluation.md``), while the roots' pages ranked in one go kept it.
"""

from __future__ import annotations

from collections import Counter

from drag_core.search.base import FUSION_DEPTH, KNEE_PARAMS, Bound, SearchContext, Step, StepKind
from drag_core.store import DENSE, PASSAGES, SPARSE, Candidate, Scope, ScopeKind

__all__ = ["Adaptive", "keep_documents", "merge_spans", "rank_seeds", "seed_scope"]


class Adaptive:
    """Documents of the best pages, then their pages cut at the knee; never fewer documents than the head of
    the flat ranking shows."""

    name = "adaptive"
    params = (
        "roots",
        "rrf_k",
        "dense_weight",
        "knee_pool",
        "span_merge",
        "neighbours",
        "doc_breadth",
        "passages",
        *KNEE_PARAMS,
    )

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        p = ctx.params
        seeds, head = rank_seeds(ctx)
        kept = ctx.knee_cut(seeds, cap=p.roots, cap_name=Bound.ROOTS)
        docs = tuple(dict.fromkeys(c.doc_id for c in kept))
        files = ", ".join(dict.fromkeys(c.file_name for c in kept))
        scope = Scope(
            kind=ScopeKind.LEAVES,
            docs=docs,
            limit=p.knee_pool,
            dense=ctx.dense_of("pages"),
            depth=FUSION_DEPTH,
            scoped_idf=True,
        )
        (pages,) = ctx.rank([scope], StepKind.PAGES, [f"pages of {files}"])
        final = ctx.knee_cut(pages)
        if p.neighbours:
            final = keep_neighbours(pages, final, p.neighbours)
        steps = [seeds, pages]
        if p.span_merge:
            final, spans = merge_spans(ctx, final, p.span_merge)
            if spans is not None:
                pages.keep([c for c in final if c.id in set(pages.kept)])
                pages.kept_by = "span merge"
                steps.append(spans)
        if p.doc_breadth:
            final, breadth = keep_documents(head, final, p.doc_breadth, seeds)
            steps.append(breadth)
        return final, steps


def seed_scope(ctx: SearchContext) -> Scope:
    """The ranking of every page the seeds come from: its dense list reads the page vectors or the best
    passages (``passages`` naming ``seeds``), or both as two lists of one fusion with BM25 (``seeds-both``)."""
    if "seeds-both" in ctx.params.passage_uses:
        return Scope(kind=ScopeKind.LEAVES, limit=FUSION_DEPTH, using=(DENSE, PASSAGES, SPARSE))
    return Scope(kind=ScopeKind.LEAVES, limit=FUSION_DEPTH, dense=ctx.dense_of("seeds"))


def rank_seeds(ctx: SearchContext) -> tuple[Step, Step]:
    """The seed ranking and the head of flat's ranking that breadth reads, from one batch of lists (the two
    share the passages' and BM25's lists, each fetched once). They are one ranking when the seeds read what
    ``flat`` reads; otherwise the head is ranked as ``flat`` ranks (its first ``doc_breadth`` pages), so
    breadth keeps the documents flat top-k shows, not those of the seed ranking's own head."""
    seeds = seed_scope(ctx)
    head = Scope(
        kind=ScopeKind.LEAVES, limit=ctx.params.doc_breadth, dense=ctx.dense_of("flat"), depth=FUSION_DEPTH
    )
    if not ctx.params.doc_breadth or (seeds.using, seeds.dense) == (head.using, head.dense):
        (step,) = ctx.rank([seeds], StepKind.SEEDS, ["seed pages (all documents)"])
        return step, step
    names = ["seed pages (all documents)", f"flat top-{ctx.params.doc_breadth}"]
    step, flat_head = ctx.rank([seeds, head], StepKind.SEEDS, names)
    return step, flat_head


def keep_neighbours(pages: Step, answer: list[Candidate], within: int) -> list[Candidate]:
    """The answer plus every page among the first ``within`` of ``pages`` that lies next to one of its pages
    (same document, the page before or after; a page so added counts for its own neighbours), after the
    answer in the ranking's order; recorded on the step (``kept_by``)."""
    out = list(answer)
    head = pages.candidates[:within]
    while near := [c for c in head if c not in out and _adjacent(c, out)]:
        out += near
    if len(out) > len(answer):
        pages.keep(out)
        pages.kept_by = "neighbouring pages"
    return out


def _adjacent(page: Candidate, pages: list[Candidate]) -> bool:
    """Whether ``page`` is the page before or after one of ``pages`` in the same document."""
    return any(p.doc_id == page.doc_id and abs(p.page_start - page.page_start) == 1 for p in pages)


def merge_spans(
    ctx: SearchContext, pages: list[Candidate], least: int
) -> tuple[list[Candidate], Step | None]:
    """Replace the pages of every parent with at least ``least`` surviving children by that parent, placed
    where its best child was. One ranking of those parents (for their scores, kept whole) when there are
    any, else None."""
    counts = Counter(c.parent_id for c in pages if c.parent_id != -1)
    parents = tuple(pid for pid, n in counts.items() if n >= least)
    if not parents:
        return pages, None
    (step,) = ctx.rank(
        [Scope(ids=parents, limit=len(parents))], StepKind.SPANS, ["parents of surviving pages (spans)"]
    )
    by_id = {c.id: c for c in step.keep(step.candidates)}
    out: list[Candidate] = []
    for page in pages:
        node = by_id.get(page.parent_id, page)
        if node not in out:
            out.append(node)
    return out, step


def keep_documents(
    head: Step, answer: list[Candidate], first: int, seeds: Step | None = None
) -> tuple[list[Candidate], Step]:
    """The answer plus, for every document among the first ``first`` pages of ``head`` (flat's ranking, see
    ``rank_seeds``) that the answer lacks, that document's best page there (after the answer, in that order)
    and, when the first ``first`` pages of ``seeds`` (another ranking) show the document at another page, that
    page too. The step ranks those pages (no new Qdrant call: they are the heads of rankings already made)
    and keeps the pages it added."""
    shown = head.candidates[:first]
    other: dict[str, Candidate] = {}
    if seeds is not None and seeds is not head:
        for page in seeds.candidates[:first]:
            other.setdefault(page.doc_id, page)
    present = {c.doc_id for c in answer}
    added: list[Candidate] = []
    for page in shown:
        if page.doc_id not in present:
            present.add(page.doc_id)
            added += [page] if other.get(page.doc_id, page).id == page.id else [page, other[page.doc_id]]
    extra = [c for c in added if c not in shown]
    step = Step(f"breadth: flat top-{first}", shown + extra, call=head.call, kind=StepKind.BREADTH)
    return answer + step.keep(added), step
