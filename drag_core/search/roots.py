"""The roots' ranking that ``branch``, ``beam`` and ``knee-beam`` start from, two ways (``SearchParams.root_rank``).

* ``best-page`` (the default): a document ranks by its best pages. The pages are ranked once as ``flat`` ranks
  them (dense + BM25, the passages where ``flat`` reads them), ``ROOT_POOL`` deep, in the same Qdrant call as the
  roots; a document's rank in the dense list is its best page's rank there, likewise in the BM25 list, and the
  two document lists are fused by RRF as every ranking is (``by_best_page``). This is MaxP (Dai & Callan, "Deeper
  Text Understanding for IR with Contextual Neural Language Modeling", SIGIR 2019: a document is as relevant as
  its best passage) in each list. A document none of whose pages is among the ``ROOT_POOL`` best is not ranked.
* ``root-vectors`` (the article's): the roots rank by their own vectors (the parents' policy of
  ``ingest.vector_text``: the centroid of the pages below and their BM25 text, by default).

Only the roots' ranking changes: below it, each parent competes with its children by their own vectors, as the
article describes (a parent scored by its best page would tie or beat every child, and no walk would descend).
Measured in docs/evaluation.md, "Roots by their best page (issue 27, item 3, session 9)".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from drag_core.fusion import DEFAULT_DENSE_WEIGHT, classic_rrf_score, rrf_weights
from drag_core.search.base import ROOT_POOL, SearchContext, Step, StepKind
from drag_core.store import Candidate, Scope, ScopeKind, best_first

__all__ = ["Document", "by_best_page", "document", "rank_roots"]

#: A document as the rankings name it: its version and its file (two files may hold the same bytes).
Document = tuple[str, str]


def rank_roots(ctx: SearchContext) -> Step:
    """The roots' ranking, best first, as ``ctx.params.root_rank`` says; one step named ``roots``."""
    if ctx.params.root_rank == "root-vectors":
        (roots,) = ctx.rank([Scope(kind=ScopeKind.ROOTS, limit=ROOT_POOL)], StepKind.ROOTS, ["roots"])
        return roots
    pages = Scope(kind=ScopeKind.LEAVES, limit=ROOT_POOL, dense=ctx.dense_of("flat"))
    ranked, roots = ctx.rank(
        [pages, Scope(kind=ScopeKind.ROOTS, limit=ROOT_POOL)], StepKind.ROOTS, ["pages", "roots"]
    )
    found = {document(r) for r in roots.candidates}
    missing = tuple(dict.fromkeys(c.doc_id for c in ranked.candidates if document(c) not in found))
    if missing:  # more documents than ROOT_POOL roots: fetch the roots of those the pages name
        (more,) = ctx.rank(
            [Scope(kind=ScopeKind.ROOTS, docs=missing, limit=len(missing))], StepKind.ROOTS, ["roots"]
        )
        roots.candidates += more.candidates
    roots.ms += ranked.ms
    roots.dense = ranked.dense
    roots.candidates = by_best_page(
        ranked.candidates, roots.candidates, ctx.params.rrf_k, ctx.params.dense_weight
    )
    return roots


def document(c: Candidate) -> Document:
    """The document a candidate belongs to."""
    return c.doc_id, c.file_name


def by_best_page(
    pages: list[Candidate], roots: list[Candidate], rrf_k: int, dense_weight: float = DEFAULT_DENSE_WEIGHT
) -> list[Candidate]:
    """``roots`` (of the documents of ``pages``) ranked as the pages' lists rank their documents: each
    document's rank in the dense and in the sparse list is its best page's rank there (None: no page of it in
    that list), and the two document lists are fused by RRF with ``rrf_k`` and ``dense_weight``, as Qdrant fuses
    every ranking. Each root carries its document's ranks and fused score and its pages' best cosine and BM25
    score; best first (``store.best_first``)."""
    root_of = {document(r): r for r in roots}
    pages_of: dict[Document, list[Candidate]] = {}
    for page in pages:
        if document(page) in root_of:
            pages_of.setdefault(document(page), []).append(page)
    dense_rank = _document_ranks(pages_of, lambda c: c.dense_rank)
    sparse_rank = _document_ranks(pages_of, lambda c: c.sparse_rank)
    weights = rrf_weights(dense_weight)
    ranked = [
        replace(
            root_of[doc],
            fused=classic_rrf_score([dense_rank.get(doc), sparse_rank.get(doc)], rrf_k, weights),
            dense_rank=dense_rank.get(doc),
            sparse_rank=sparse_rank.get(doc),
            dense_score=max((c.dense_score for c in own if c.dense_score is not None), default=None),
            sparse_score=max((c.sparse_score for c in own if c.sparse_score is not None), default=None),
        )
        for doc, own in pages_of.items()
    ]
    return sorted(ranked, key=lambda c: best_first(c.fused, c.dense_score, c.id))


def _document_ranks(
    pages_of: Mapping[Document, list[Candidate]], rank_of: Callable[[Candidate], int | None]
) -> dict[Document, int]:
    """Each document's 1-based rank among the documents by its best page's rank (``rank_of``) in one list."""
    best = {doc: min(filter(None, map(rank_of, pages)), default=None) for doc, pages in pages_of.items()}
    ranked = sorted((r, doc) for doc, r in best.items() if r is not None)
    return {doc: i for i, (_, doc) in enumerate(ranked, start=1)}
