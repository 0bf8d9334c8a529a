"""Offline, deterministic extractive summariser (the default when no LLM endpoint is configured).

* Page summary: the page's most central prose sentences (``prose``: never code, tables, list debris or
  headings), in reading order. Centrality is the cosine of a sentence's content words to the page's, × 0.5
  for a sentence starting lower case, × min(1, words / ``FULL_WORDS``), and less the more of its words are
  boilerplate (an SEC cover page's "indicate by check mark whether the registrant …"). A page whose prose
  covers less than ``MIN_PROSE_SHARE`` of it is named by its headings and what it mostly holds ("Consolidated
  Balance Sheets — table.") before its best sentence.
* Parent summary: it covers its children — the best sentence of each child's summary (central to all the
  children's words and the parent's keywords), in child order; with more children than
  ``GROUP_SENTENCES``, those whose best sentence scores lowest are left out.
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
    LineKind,
    classify_line,
    headings,
    is_prose,
    prose_sentences,
    split_sentences,
)
from drag_core.text import content_words
from drag_core.types import Description

__all__ = [
    "BOILERPLATE",
    "FULL_WORDS",
    "GROUP_SENTENCES",
    "MIN_PROSE_SHARE",
    "ExtractiveSummarizer",
    "group_summary",
    "page_summary",
]

GROUP_SENTENCES = SUMMARY_SENTENCES[1]
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
_WHAT_A_PAGE_HOLDS = {LineKind.TABLE: "table", LineKind.CODE: "code", LineKind.LEADER: "contents"}
_HOLDS_ALONE = {"table": "A table.", "code": "Code.", "contents": "A list of contents."}


@dataclass(frozen=True)
class _Document:
    """What describing one document needs, computed once: its terms and its vocabulary (lower-case words)."""

    terms: DocumentTerms
    vocabulary: frozenset[str]


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

    identity = "extractive-v2"
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
        document = _Document(DocumentTerms.of(context.pages, context.file_name), vocabulary)
        self._last = (context, document)
        return document

    def describe_page(self, context: DocumentContext, page: int) -> Description:
        document = self._document(context)
        summary = page_summary(context.pages[page], document.vocabulary, self.summary_sentences)
        keywords = page_keywords(document.terms, page, context.corpus, self.keyword_count)
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
        summary = group_summary([child.summary for child in children], keywords)
        return Description(summary=summary, keywords=keywords, source=self.identity)


def _bag(text: str) -> Counter[str]:
    return Counter(content_words(text))


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    dot = sum(n * b.get(w, 0) for w, n in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
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


def group_summary(children: Sequence[str], keywords: Sequence[str], limit: int = GROUP_SENTENCES) -> str:
    """A parent's summary from its children's summaries (see the module docstring)."""
    pool: Counter[str] = Counter()
    for child in children:
        pool.update(_bag(child))
    weight = max(1, round(KEYWORD_SHARE * sum(pool.values()) / max(1, len(keywords))))
    for keyword in keywords:
        pool[keyword.lower()] += weight
    best: list[tuple[float, int, str]] = []
    for index, child in enumerate(children):
        sentences = split_sentences(" ".join(child.split()))
        candidates = [s for s in sentences if is_prose(s)] or sentences
        if candidates:
            score, sentence = max(((_score(s, pool), s) for s in candidates), key=lambda item: item[0])
            best.append((score, index, sentence))
    kept = sorted(sorted(best, key=lambda b: (-b[0], b[1]))[:limit], key=lambda b: b[1])
    return " ".join(dict.fromkeys(sentence for _, _, sentence in kept))
