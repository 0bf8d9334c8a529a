"""Offline, deterministic extractive summariser (the default when no LLM endpoint is configured).

* Page summary: the page's most central prose sentences (``prose``: never code, tables, list debris or
  headings), in reading order. Centrality is the cosine of a sentence's content words to the page's, × 0.5
  for a sentence starting lower case, × min(1, words / ``FULL_WORDS``), and less the more of its words are
  boilerplate (an SEC cover page's "indicate by check mark whether the registrant …"). A page whose prose
  covers less than ``MIN_PROSE_SHARE`` of it is named by its headings and what it mostly holds ("Consolidated
  Balance Sheets — table.") before its best sentence.
* A summary under ``MIN_SUMMARY_WORDS`` words ("A table.") is followed by the page's first keywords ("A table:
  revenue, assets, cash.").
* Parent summary, a table of contents with prose: what the part covers (``DocumentContext.contents``: its
  sections by name with their pages, or its keywords without an outline; the root first says what the
  document is), then the ``PARENT_SENTENCES`` prose sentences of its pages that characterise it best
  (``characterises``: never code, syntax, URLs, page references or lists of numbers), in page order, from
  different pages. A sentence's score is the cosine of its content words to the part's (its pages' words
  and its keywords), × min(1, words / ``FULL_WORDS``), × ``SECTION_START`` on a page where a section starts
  (where a part is introduced), × up to 1 + ``EARLY`` the nearer its page is to the part's first (a part
  says what it is about at its start: a manual's description, a chapter's introduction).
* Keywords: ``keywords`` (page and parent against the document and the corpus, never a person's name, no
  genre boilerplate in a root); a parent whose pages share fewer than 5 telling terms is filled up with its
  children's most shared keywords.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from drag_core.ingest.describe.base import KEYWORD_COUNT, SUMMARY_SENTENCES, DocumentContext, merge_keywords
from drag_core.ingest.describe.keywords import GENRE_STOPWORDS, DocumentTerms, group_keywords, page_keywords
from drag_core.ingest.describe.prose import (
    CODE_SYMBOLS,
    LineKind,
    classify_line,
    headings,
    prose_sentences,
)
from drag_core.text import content_words
from drag_core.types import Description

__all__ = [
    "BOILERPLATE",
    "FULL_WORDS",
    "MIN_PROSE_SHARE",
    "MIN_SUMMARY_WORDS",
    "PARENT_SENTENCES",
    "ExtractiveSummarizer",
    "characterises",
    "page_summary",
]

PARENT_SENTENCES = 2  # prose sentences after a parent's contents line
MIN_SUMMARY_WORDS = 4  # a shorter page summary is followed by the page's keywords
MIN_CHARACTER_LETTERS = 0.85  # a characterising sentence: at least this share of its non-space characters
MAX_CHARACTER_WORDS = 45  # ... and at most this many words
SECTION_START = 1.25  # a characterising sentence on a page where a section starts counts this much more
EARLY = 0.5  # ... and one on the part's first page 1 + EARLY times (falling linearly to 1 at its last)
FULL_WORDS = 12  # a shorter sentence counts in proportion to its words
LOWER_START = 0.5  # a "sentence" starting lower case ("returns the pair …") counts half
BOILERPLATE_PENALTY = 3.0  # a sentence loses 3× the share of its content words that are boilerplate
MIN_PROSE_SHARE = 0.15  # a page whose prose covers less of it is named by its headings first
KEYWORD_SHARE = 0.1  # a parent's keywords together weigh about this share of its children's words
#: Words of SEC cover pages and safe-harbour paragraphs: with ``GENRE_STOPWORDS`` they make a sentence
#: boilerplate.
BOILERPLATE = GENRE_STOPWORDS | frozenset(
    [
        "indicate",
        "check",
        "mark",
        "shell",
        "elected",
        "transition",
        "period",
        "revised",
        "standards",
        "section",
        "act",
        "rule",
        "forward-looking",
        "statements",
        "factors",
        "uncertainties",
    ]
)
_WORD = re.compile(r"[^\W\d_]+")
_NOT_PROSE = re.compile(
    r"://|\bwww\.|@|\b(?:pages?|pp?\.|sections?|chapters?|figures?|tables?)\s*\d|\d\s*[,;–-]\s*\d|"
    r"\w\(|[a-z]{2,}\.[a-z]{2,}"
)  # URLs, mail addresses, page and section references, lists and ranges of numbers, calls, dotted names
_SYNTAX = (CODE_SYMBOLS - frozenset("()")) | frozenset("'\"")
_WHAT_A_PAGE_HOLDS = {LineKind.TABLE: "table", LineKind.CODE: "code", LineKind.LEADER: "contents"}
_HOLDS_ALONE = {"table": "A table.", "code": "Code.", "contents": "A list of contents."}


@dataclass(frozen=True)
class _Document:
    """What describing one document needs, computed once: its terms, its vocabulary (lower-case words), each
    page's words and (when a parent asks) its characterising sentences with their words."""

    terms: DocumentTerms
    vocabulary: frozenset[str]
    bags: list[Counter[str]]
    sentences: dict[int, list[tuple[str, Counter[str]]]]


class ExtractiveSummarizer:
    """Summary from central prose sentences, keywords from term statistics. No network, no randomness.

    Attributes:
        identity: cache identity of this summariser.
        max_workers: pages described in parallel (1: it is CPU-bound Python).
        uses_context: descriptions depend on the whole document and its corpus, so they are cached per
            ``DocumentContext``.
        summary_sentences: sentences per page summary (clamped to 2–5).
        keyword_count: keywords per page (clamped to 5–10).
    """

    identity = "extractive-v3"
    max_workers = 1
    uses_context = True

    def __init__(self, summary_sentences: int = 3, keywords: int = 8) -> None:
        self.summary_sentences = max(SUMMARY_SENTENCES[0], min(summary_sentences, SUMMARY_SENTENCES[1]))
        self.keyword_count = max(KEYWORD_COUNT[0], min(keywords, KEYWORD_COUNT[1]))
        self._last: tuple[DocumentContext, _Document] | None = None

    def _document(self, context: DocumentContext) -> _Document:
        # one document at a time: pages and groups arrive document by document
        last = self._last
        if last is not None and last[0] is context:
            return last[1]
        vocabulary = frozenset(word.lower() for word in _WORD.findall(context.text))
        document = _Document(
            DocumentTerms.of(context.pages, context.file_name),
            vocabulary,
            [_bag(page) for page in context.pages],
            {},
        )
        self._last = (context, document)
        return document

    def describe_page(self, context: DocumentContext, page: int) -> Description:
        document = self._document(context)
        summary = page_summary(context.pages[page], document.vocabulary, self.summary_sentences)
        keywords = page_keywords(document.terms, page, context.corpus, self.keyword_count)
        if len(summary.split()) < MIN_SUMMARY_WORDS:
            summary = _filled(summary, keywords, page)
        return Description(summary=summary, keywords=keywords, source=self.identity)

    def describe_group(
        self, children: Sequence[Description], context: DocumentContext, pages: range
    ) -> Description:
        document = self._document(context)
        keywords = group_keywords(
            document.terms, pages.start, pages.stop - 1, context.corpus, self.keyword_count
        )
        if len(keywords) < KEYWORD_COUNT[0]:  # pages that share few telling terms: their own keywords fill up
            keywords += [k for k in merge_keywords(children) if k not in keywords][
                : self.keyword_count - len(keywords)
            ]
        sentences = self._characterising(context, document, pages, keywords)
        summary = " ".join([context.contents(pages, keywords), *sentences])
        return Description(summary=summary, keywords=keywords, source=self.identity)

    def _characterising(
        self, context: DocumentContext, document: _Document, pages: range, keywords: Sequence[str]
    ) -> list[str]:
        """The ``PARENT_SENTENCES`` sentences of ``pages`` that characterise them best, in page order."""
        pool: Counter[str] = Counter()
        for page in pages:
            pool.update(document.bags[page])
        weight = max(1, round(KEYWORD_SHARE * sum(pool.values()) / max(1, len(keywords))))
        for keyword in keywords:
            for word in content_words(keyword):
                pool[word] += weight
        norm = _norm(pool)
        starts = {entry.page for entry in context.sections.entries}
        best: dict[int, tuple[float, str]] = {}
        for page in pages:
            early = 1.0 + EARLY * (pages.stop - 1 - page) / max(1, len(pages) - 1)
            bonus = (SECTION_START if page in starts else 1.0) * early
            for sentence, bag in self._sentences(context, document, page):
                words = sum(bag.values())
                score = _cosine(bag, pool, norm) * min(1.0, words / FULL_WORDS) * bonus
                if score > best.get(page, (0.0, ""))[0]:
                    best[page] = (score, sentence)
        chosen = sorted(best, key=lambda page: -best[page][0])[:PARENT_SENTENCES]
        return list(dict.fromkeys(best[page][1] for page in sorted(chosen)))

    @staticmethod
    def _sentences(
        context: DocumentContext, document: _Document, page: int
    ) -> list[tuple[str, Counter[str]]]:
        if page not in document.sentences:
            found = prose_sentences(context.pages[page], document.vocabulary)
            document.sentences[page] = [(s, _bag(s)) for s in found if characterises(s)]
        return document.sentences[page]


def characterises(sentence: str) -> bool:
    """Whether a prose sentence may characterise a part: it starts with a capital, has at most
    ``MAX_CHARACTER_WORDS`` words, ≥ ``MIN_CHARACTER_LETTERS`` letters among its non-space characters, no code
    symbol or quote, no URL, page or section reference, nor list of numbers; it is not cut ("…") and its
    brackets are balanced."""
    words = sentence.split()
    compact = "".join(words)
    return (
        sentence[:1].isupper()
        and len(words) <= MAX_CHARACTER_WORDS
        and not sentence.endswith("…")
        and sum(ch.isalpha() for ch in compact) >= MIN_CHARACTER_LETTERS * len(compact)
        and not any(ch in _SYNTAX for ch in compact)
        and not _NOT_PROSE.search(sentence)
        and sentence.count("(") == sentence.count(")")
    )


def _filled(summary: str, keywords: Sequence[str], page: int) -> str:
    """A page summary under ``MIN_SUMMARY_WORDS`` words, completed by the page's keywords (or its number)."""
    label = summary.rstrip(".").strip() or "A page without text"
    if keywords:
        return f"{label}: {', '.join(keywords[:3])}."
    return f"{label} on page {page + 1}."


def _bag(text: str) -> Counter[str]:
    return Counter(content_words(text))


def _norm(bag: Counter[str]) -> float:
    return math.sqrt(sum(v * v for v in bag.values()))


def _cosine(a: Counter[str], b: Counter[str], b_norm: float | None = None) -> float:
    """The cosine of two bags of words (``b_norm``: ``b``'s norm, when it is reused)."""
    dot = sum(n * b.get(w, 0) for w, n in a.items())
    norm = _norm(a) * (_norm(b) if b_norm is None else b_norm)
    return dot / norm if norm else 0.0


def _score(sentence: str, pool: Counter[str]) -> float:
    """How well a sentence stands for ``pool`` (see the module docstring)."""
    bag = _bag(sentence)
    capital = 1.0 if sentence[:1].isupper() or sentence[:1].isdigit() else LOWER_START
    boilerplate = sum(n for w, n in bag.items() if w in BOILERPLATE) / max(1, sum(bag.values()))
    length = min(1.0, len(sentence.split()) / FULL_WORDS)
    return _cosine(bag, pool) * capital * length * max(0.0, 1.0 - BOILERPLATE_PENALTY * boilerplate)


def _central(candidates: Sequence[str], pool: Counter[str], count: int) -> list[str]:
    """The ``count`` best-scoring candidates, in their original order."""
    best = sorted((-_score(s, pool), i) for i, s in enumerate(candidates))[:count]
    return [candidates[i] for i in sorted(i for _, i in best)]


def page_summary(body: str, vocabulary: frozenset[str], count: int) -> str:
    """A page's summary from its body (see the module docstring)."""
    sentences = prose_sentences(body, vocabulary)
    prose_share = sum(len(s) for s in sentences) / max(1, len(body.strip()))
    heads = headings(body)
    if sentences and (prose_share >= MIN_PROSE_SHARE or not heads):
        return " ".join(_central(sentences, _bag(body), count))
    kinds = Counter(classify_line(line) for line in body.split("\n"))
    mostly = max(_WHAT_A_PAGE_HOLDS, key=lambda kind: kinds.get(kind, 0))
    holds = _WHAT_A_PAGE_HOLDS[mostly] if kinds.get(mostly) else ""
    label = "; ".join(heads)
    named = (
        f"{label} — {holds}." if label and holds else f"{label}." if label else _HOLDS_ALONE.get(holds, "")
    )
    if sentences:  # a table page with a line of prose: its headings first, then its best sentence
        named = f"{named} {_central(sentences, _bag(body), 1)[0]}"
    return named.strip()
