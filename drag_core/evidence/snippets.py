"""Snippets: the one to three units of a page that best match the question, with their spans in the page text
and the question's words marked inside them.

Units (``units.page_units``) are ranked by BM25 (k1 1.2, b 0.75, the terms the index's BM25 vectors see —
``models.bm25_terms`` with the Snowball stemmer — and IDF counted over the units ranked). The best unit is the
snippet, with the 2nd and 3rd when they score at least ``KEEP_RATIO`` of the best and the snippet stays within
``MAX_SNIPPET_CHARS``, in reading order. A page sharing no term with the question has no snippet (the app then
shows the summary).

Why BM25 alone: fusing it with MiniLM's cosine of question and unit (RRF) found more of the reference
answers' words (docs/evaluation.md, "Snippets"), but embedding ~40 units of every page returned costs seconds
per Compare run on two cores; BM25 costs about a millisecond per page and needs no model.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from drag_core.evidence.units import Unit, page_units
from drag_core.models.bm25_terms import bm25_terms
from drag_core.types import Node

__all__ = [
    "K1",
    "B",
    "KEEP_RATIO",
    "MAX_SNIPPET_CHARS",
    "MAX_UNITS",
    "Snippet",
    "bm25_scores",
    "node_snippets",
    "quoted",
    "snippet_fields",
    "snippet",
    "term_marks",
    "terms",
]

K1, B = 1.2, 0.75
KEEP_RATIO = 0.7
MAX_UNITS = 3
MAX_SNIPPET_CHARS = 450
_WORD = re.compile(r"\w+")


@cache
def _stem() -> Callable[[str], str]:
    from py_rust_stemmers import SnowballStemmer

    return SnowballStemmer("english").stem_word


def terms(text: str) -> list[str]:
    """The BM25 terms of ``text`` (stemmed, stop words dropped), as the index's sparse vectors see them."""
    return bm25_terms(text, _stem())


def bm25_scores(query: Sequence[str], documents: Sequence[Sequence[str]]) -> list[float]:
    """Okapi BM25 of each document (a list of terms) for the query terms, IDF ``log(1 + (N - df + 0.5) /
    (df + 0.5))`` over ``documents`` (Lucene's, the one ``bm25s`` and Qdrant use)."""
    n = len(documents)
    if not n:
        return []
    df = Counter(t for d in documents for t in set(d))
    average = sum(len(d) for d in documents) / n or 1.0
    wanted = set(query)
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
    scores = []
    for document in documents:
        tf = Counter(t for t in document if t in wanted)
        norm = K1 * (1 - B + B * len(document) / average)
        scores.append(sum(idf[t] * f * (K1 + 1) / (f + norm) for t, f in tf.items()))
    return scores


@dataclass(frozen=True)
class Snippet:
    """The best units of one page for one question.

    Attributes:
        units: the units chosen, in reading order.
        scores: their BM25 scores, in the same order.
        marks: spans of the question's words inside them (into the page text).
    """

    units: tuple[Unit, ...] = ()
    scores: tuple[float, ...] = ()
    marks: tuple[tuple[int, int], ...] = field(default=())

    @property
    def text(self) -> str:
        """The units' text joined by `` … `` (empty: no unit shares a term with the question)."""
        return " … ".join(u.text for u in self.units)

    @property
    def highlights(self) -> list[tuple[int, int]]:
        """The units' spans in the page text."""
        return [(u.start, u.end) for u in self.units]

    @property
    def best(self) -> float:
        """The best unit's score (0.0 without a snippet)."""
        return max(self.scores, default=0.0)


def snippet(query: str, text: str, units: Sequence[Unit] | None = None) -> Snippet:
    """The snippet of the page ``text`` for ``query`` (``units``: the page's, when already cut)."""
    units = page_units(text) if units is None else units
    wanted = terms(query)
    scores = bm25_scores(wanted, [terms(u.text) for u in units])
    order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
    if not order:
        return Snippet()
    chosen = [order[0]]
    size = len(units[order[0]].text)
    for i in order[1:MAX_UNITS]:
        if scores[i] >= KEEP_RATIO * scores[order[0]] and size + len(units[i].text) <= MAX_SNIPPET_CHARS:
            chosen.append(i)
            size += len(units[i].text)
    picked = sorted(chosen)
    return Snippet(
        tuple(units[i] for i in picked),
        tuple(scores[i] for i in picked),
        tuple(term_marks(wanted, text, [(units[i].start, units[i].end) for i in picked])),
    )


def quoted(query: str, text: str, spans: Sequence[tuple[int, int]]) -> Snippet:
    """The units of ``text`` at ``spans`` (what an answer quotes) as a snippet, the query's words marked;
    spans that are not a unit of the text are left out."""
    wanted = {(u.start, u.end): u for u in page_units(text)}
    units = tuple(wanted[span] for span in sorted(set(spans)) if span in wanted)
    marks = term_marks(terms(query), text, [(u.start, u.end) for u in units])
    return Snippet(units, tuple(0.0 for _ in units), tuple(marks))


def term_marks(wanted: Sequence[str], text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of the words inside ``spans`` of ``text`` whose BM25 term is one of ``wanted``."""
    targets = set(wanted)
    return [
        match.span()
        for start, end in spans
        for match in _WORD.finditer(text, start, end)
        if targets.intersection(terms(match.group()))
    ]


def node_snippets(
    query: str,
    nodes: Sequence[Node],
    pages: Sequence[Node],
    memo: MutableMapping[tuple[str, int], Snippet] | None = None,
) -> dict[int, tuple[Node, Snippet]]:
    """For each node, the page its snippet comes from and that snippet: a page's own, a parent's best page's
    (among ``pages``, the leaves with text the nodes stand for). ``memo`` remembers snippets by (query, page
    id) across calls — a page several strategies return is cut once."""
    memo = {} if memo is None else memo

    def of(page: Node) -> Snippet:
        key = (query, page.id)
        if key not in memo:
            memo[key] = snippet(query, page.text)
        return memo[key]

    found: dict[int, tuple[Node, Snippet]] = {}
    for node in nodes:
        under = (
            [node]
            if node.level == 0
            else [
                p
                for p in pages
                if (p.doc_id, p.file_name) == (node.doc_id, node.file_name)
                and node.page_start <= p.page_start <= node.page_end
            ]
        )
        best = max(under, key=lambda p: of(p).best, default=None)
        if best is not None:
            found[node.id] = (best, of(best))
    return found


def snippet_fields(page: Node, found: Snippet) -> dict[str, object]:
    """A node's snippet in ``search --json``: ``snippet`` (its text), ``snippet_page`` (the page it is from),
    ``highlights`` and ``marks`` (character spans of the snippet and of the question's words in it, into that
    page's text — the node's own text when the node is a page)."""
    return {
        "snippet": found.text,
        "snippet_page": page.page_start,
        "highlights": [list(span) for span in found.highlights],
        "marks": [list(span) for span in found.marks],
    }
