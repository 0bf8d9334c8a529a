"""Snippets: the one to three units of a page that best match the question, with their spans in the page text
and the question's words marked inside them.

Units (``ingest.units.page_units``) are ranked by BM25 (k1 1.2, b 0.75, the terms the index's BM25 vectors see —
``models.bm25_terms`` with the Snowball stemmer — and IDF counted over the units ranked). The best unit is the
snippet, with the 2nd and 3rd when they score at least ``KEEP_RATIO`` of the best and the snippet stays within
``MAX_SNIPPET_CHARS``, in reading order. A page sharing no term with the question has no snippet (the app then
shows the summary).

Why BM25 alone: fusing it with MiniLM's cosine of question and unit (RRF, k = 10) finds more of the reference
answers on manuals-dev (0.325 against 0.273 of their words) and SciFact (an evidence sentence shown for 50 %
against 41 %), not on financebench-dev (0.254 / 0.253; docs/evaluation.md, "Snippets"), but embedding ~40 units
of every page returned costs seconds per Compare run on two cores; BM25 costs about a millisecond per page
and needs no model.

Speed (bench/snippets_compare.py): a page is cut into units once, at ingest (``Node.units``; a page written
before is cut on first use), its units are kept (``analysed``), only the units holding one of the question's
stems are scored, and a parent's snippet is its page holding most of the question's stems.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache

from drag_core.ingest.units import Unit, page_units, units_at
from drag_core.lru import LRU
from drag_core.models.bm25_terms import bm25_terms
from drag_core.types import Node

__all__ = [
    "K1",
    "B",
    "KEEP_RATIO",
    "MAX_SNIPPET_CHARS",
    "MAX_UNITS",
    "Snippet",
    "UNITS_KEPT",
    "PageUnits",
    "SnippetMemo",
    "analysed",
    "bm25_scores",
    "choose",
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
UNITS_KEPT = 2048  # pages whose units are remembered
_WORD = re.compile(r"\w+")


@cache
def _stem() -> Callable[[str], str]:
    from py_rust_stemmers import SnowballStemmer

    return SnowballStemmer("english").stem_word


def terms(text: str) -> list[str]:
    """The BM25 terms of ``text`` (stemmed, stop words dropped), as the index's sparse vectors see them."""
    return bm25_terms(text, _stem())


def bm25_scores(
    query: Sequence[str],
    documents: Sequence[Mapping[str, int]] | Sequence[Sequence[str]],
    lengths: Sequence[float] | None = None,
    total: int | None = None,
    average: float | None = None,
) -> list[float]:
    """Okapi BM25 of each document (its terms, or their counts) for the query terms, IDF ``log(1 + (N - df +
    0.5) / (df + 0.5))`` (Lucene's, the one ``bm25s`` and Qdrant use, with the classic (k1 + 1) numerator Qdrant
    keeps). By default N, the lengths and their average are those of ``documents``; a caller that scores only
    the documents holding a query term passes the collection's ``total``, the documents' ``lengths`` and the
    ``average`` length."""
    if not documents:
        return []
    counts = [d if isinstance(d, Mapping) else Counter(d) for d in documents]
    n = total if total is not None else len(counts)
    sizes = lengths if lengths is not None else [sum(c.values()) for c in counts]
    mean = (average if average is not None else sum(sizes) / len(sizes)) or 1.0
    wanted = set(query)
    df = {t: sum(t in c for c in counts) for t in wanted}
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
    scores = []
    for count, size in zip(counts, sizes, strict=True):
        norm = K1 * (1 - B + B * size / mean)
        scores.append(sum(idf[t] * count[t] * (K1 + 1) / (count[t] + norm) for t in wanted if t in count))
    return scores


class PageUnits:
    """A page's units with what scoring them needs, none of it depending on the question — so it is kept
    (``analysed``) and a page returned for another question costs no new cut.

    Attributes:
        units: the units (``ingest.units.page_units``), in reading order.
        starts: where each unit starts (to find the unit a position of the page text falls in).
        lengths: each unit's length in words.
        lowered: the page text in lower case (to find the units that may hold a query term).
    """

    def __init__(self, text: str, stored: Sequence[int] = ()) -> None:
        self.units = tuple(units_at(text, list(stored)) if stored else page_units(text))
        self.starts = [u.start for u in self.units]
        self.lengths = tuple(u.text.count(" ") + 1 for u in self.units)
        self.lowered = _lowered(text)
        self._counts: dict[int, Counter[str]] = {}

    def counts_of(self, index: int) -> Counter[str]:
        """The BM25 terms of unit ``index`` with their counts (cut on first use, word by word: the terms
        ``bm25_terms`` gives)."""
        if index not in self._counts:
            words = _WORD.findall(self.units[index].text)
            self._counts[index] = Counter(t for t in map(_word_term, words) if t)
        return self._counts[index]

    def holding(self, keys: re.Pattern[str]) -> list[int]:
        """The units in which ``keys`` (lower-case substrings) occur, in reading order."""
        found = []
        match = keys.search(self.lowered)
        while match:
            i = bisect.bisect_right(self.starts, match.start()) - 1
            if i >= 0 and match.start() < self.units[i].end:
                found.append(i)
                match = keys.search(self.lowered, self.units[i].end)  # on to the next unit
            else:
                match = keys.search(self.lowered, match.end())
        return found


@lru_cache(maxsize=UNITS_KEPT)
def _lowered(text: str) -> str:
    return text.lower()


@lru_cache(maxsize=UNITS_KEPT)
def analysed(text: str, stored: tuple[int, ...] = ()) -> PageUnits:
    """The ``PageUnits`` of a page text — from the unit spans ingest ``stored`` (``Node.units``) when there are
    some, else cut now — remembered for the ``UNITS_KEPT`` pages used last."""
    return PageUnits(text, stored)


@lru_cache(maxsize=256)
def _keys(wanted: tuple[str, ...]) -> re.Pattern[str] | None:
    """What a unit holding one of the query terms must contain: one of the stems without its last letter
    (Snowball stems are their words' prefixes, but for a last letter that may change: "happy" → "happi");
    None for a query without terms."""
    keys = sorted({t[:-1] if len(t) >= 4 else t for t in wanted}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, keys))) if keys else None


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


def snippet(query: str, text: str, stored: tuple[int, ...] = ()) -> Snippet:
    """The snippet of the page ``text`` (its unit spans ``stored`` at ingest, if any) for ``query``. Only the
    units whose text holds a query stem are cut into terms and scored (the others cannot match); lengths are
    counted in words, over all units."""
    wanted = terms(query)
    keys = _keys(tuple(sorted(set(wanted))))
    if keys is None or not keys.search(_lowered(text)):
        return Snippet()  # no unit can match: the page is not cut at all
    page = analysed(text, stored)
    units = page.units
    candidates = page.holding(keys)
    found = bm25_scores(
        wanted,
        [page.counts_of(i) for i in candidates],
        [page.lengths[i] for i in candidates],
        len(units),
        sum(page.lengths) / len(units) if units else None,
    )
    scores = dict(zip(candidates, found, strict=True))
    picked = choose(units, scores)
    if not picked:
        return Snippet()
    return Snippet(
        tuple(units[i] for i in picked),
        tuple(scores[i] for i in picked),
        tuple(term_marks(wanted, text, [(units[i].start, units[i].end) for i in picked])),
    )


def choose(units: Sequence[Unit], scores: Mapping[int, float]) -> list[int]:
    """Which units make the snippet, in reading order: the best scoring one (above 0), and the 2nd and 3rd
    when they score at least ``KEEP_RATIO`` of it and the snippet stays within ``MAX_SNIPPET_CHARS``."""
    order = sorted((i for i, s in scores.items() if s > 0), key=lambda i: (-scores[i], i))
    if not order:
        return []
    chosen = [order[0]]
    size = len(units[order[0]].text)
    for i in order[1:MAX_UNITS]:
        if scores[i] >= KEEP_RATIO * scores[order[0]] and size + len(units[i].text) <= MAX_SNIPPET_CHARS:
            chosen.append(i)
            size += len(units[i].text)
    return sorted(chosen)


def quoted(query: str, text: str, spans: Sequence[tuple[int, int]], stored: tuple[int, ...] = ()) -> Snippet:
    """The units of ``text`` (its unit spans ``stored`` at ingest, if any) at ``spans`` (what an answer quotes)
    as a snippet, the query's words marked; spans that are not a unit of the text are left out."""
    wanted = {(u.start, u.end): u for u in analysed(text, stored).units}
    units = tuple(wanted[span] for span in sorted(set(spans)) if span in wanted)
    marks = term_marks(terms(query), text, [(u.start, u.end) for u in units])
    return Snippet(units, tuple(0.0 for _ in units), tuple(marks))


@lru_cache(maxsize=65536)
def _word_term(word: str) -> str:
    """The BM25 term of one word (``\\w+``): ``bm25_terms`` on it, "" for a stop word."""
    found = terms(word)
    return found[0] if len(found) == 1 else ""


def term_marks(wanted: Sequence[str], text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of the words inside ``spans`` of ``text`` whose BM25 term is one of ``wanted``."""
    targets = set(wanted)
    return [
        match.span()
        for start, end in spans
        for match in _WORD.finditer(text, start, end)
        if _word_term(match.group()) in targets
    ]


def _screen(stems: Sequence[str], page: Node) -> tuple[int, int]:
    """A cheap guess at how well a page matches, best first: how many of the query's stems occur in it (as
    substrings of its lower-cased text), then how often (``str.count``: 2× faster here than one regex scan)."""
    lower = _lowered(page.text)
    counts = [lower.count(stem) for stem in stems]
    return -sum(c > 0 for c in counts), -sum(counts)


class SnippetMemo:
    """Snippets and page screens remembered by (query, page id), so a page several strategies return (or
    several parents cover) is cut and screened once.

    Attributes:
        limit: entries kept of each; the least recently used go first.
    """

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self.snippets: LRU[tuple[str, int], Snippet] = LRU(limit)
        self.screens: LRU[tuple[str, int], tuple[int, int]] = LRU(limit)

    def snippet(self, query: str, page: Node) -> Snippet:
        return self.snippets.get_or_make(
            (query, page.id), lambda: snippet(query, page.text, tuple(page.units))
        )

    def screen(self, query: str, stems: Sequence[str], page: Node) -> tuple[int, int]:
        return self.screens.get_or_make((query, page.id), lambda: _screen(stems, page))


def node_snippets(
    query: str, nodes: Sequence[Node], pages: Sequence[Node], memo: SnippetMemo | None = None
) -> dict[int, tuple[Node, Snippet]]:
    """For each node, the page its snippet comes from and that snippet: a page's own; for a parent, that of
    its page (among ``pages``, the leaves with text the nodes stand for) holding most of the question's stems —
    found by a scan of the lower-cased texts, so a 90-page parent costs one snippet, not ninety."""
    memo = memo or SnippetMemo()
    stems = sorted(set(terms(query)))
    by_document: dict[tuple[str, str], list[Node]] = {}
    for page in pages:
        by_document.setdefault((page.doc_id, page.file_name), []).append(page)
    found: dict[int, tuple[Node, Snippet]] = {}
    for node in nodes:
        if node.level == 0:
            found[node.id] = (node, memo.snippet(query, node))
            continue
        under = [
            p
            for p in by_document.get((node.doc_id, node.file_name), [])
            if node.page_start <= p.page_start <= node.page_end
        ]
        best = min(under, key=lambda p: memo.screen(query, stems, p), default=None)
        if best is not None:
            found[node.id] = (best, memo.snippet(query, best))
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
