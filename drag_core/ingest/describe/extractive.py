"""Offline, deterministic extractive summariser (the default when no LLM endpoint is configured).

* Summary: the most central sentences of the page — each sentence is a bag of content words and its
  centrality is its cosine similarity to the page's word distribution — kept in reading order.
* Keywords: words that are frequent on the page but comparatively rare in the rest of the document
  (page term frequency × log of the document-to-page frequency ratio).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from drag_core.ingest.describe.base import KEYWORD_COUNT, SUMMARY_SENTENCES, merge_keywords
from drag_core.text import content_words, sentences
from drag_core.types import Description

__all__ = ["MAX_SENTENCE_CHARS", "ExtractiveSummarizer"]

MAX_SENTENCE_CHARS = 400


class ExtractiveSummarizer:
    """Summary from central sentences, keywords from term statistics. No network, no randomness.

    Attributes:
        identity: cache identity of this summariser.
        max_workers: pages described in parallel (1: it is CPU-bound Python).
        uses_context: page keywords depend on the whole document, so the cache key includes it.
        summary_sentences: sentences per page summary (clamped to 2–5).
        keyword_count: keywords per page (clamped to 5–10).
    """

    identity = "extractive-v1"
    max_workers = 1
    uses_context = True

    def __init__(self, summary_sentences: int = 3, keywords: int = 8) -> None:
        self.summary_sentences = max(SUMMARY_SENTENCES[0], min(summary_sentences, SUMMARY_SENTENCES[1]))
        self.keyword_count = max(KEYWORD_COUNT[0], min(keywords, KEYWORD_COUNT[1]))
        self._document_counts: dict[str, Counter[str]] = {}

    def describe_page(self, text: str, context: str) -> Description:
        words = content_words(text)
        summary = _central_sentences(sentences(text), Counter(words), self.summary_sentences)
        keywords = self._keywords(Counter(words), self._counts_of(context))
        return Description(summary=summary, keywords=keywords, source=self.identity)

    def describe_group(self, children: Sequence[Description]) -> Description:
        """The most central sentence of each child (at most five), in order, so every child is represented."""
        pool: Counter[str] = Counter()
        for child in children:
            pool.update(content_words(child.summary))
            pool.update(k.lower() for k in child.keywords)
        picked = [_central_sentences(sentences(child.summary), pool, 1) for child in children]
        summary = " ".join(dict.fromkeys(p for p in picked if p))
        if len(children) > SUMMARY_SENTENCES[1]:
            summary = _central_sentences(sentences(summary), pool, SUMMARY_SENTENCES[1])
        return Description(summary=summary, keywords=merge_keywords(children), source=self.identity)

    def _counts_of(self, context: str) -> Counter[str]:
        # str hashes are cached, so looking the document up again for each of its pages is cheap.
        counts = self._document_counts.get(context)
        if counts is None:
            counts = Counter(content_words(context))
            self._document_counts = {context: counts}  # keep one document: pages arrive document by document
        return counts

    def _keywords(self, page: Counter[str], document: Counter[str]) -> list[str]:
        page_total = sum(page.values()) or 1
        doc_total = sum(document.values()) or 1

        def weight(word: str) -> float:
            page_rate = page[word] / page_total
            doc_rate = (document.get(word, 0) + 1) / (doc_total + 1)
            return page[word] * math.log(1.0 + page_rate / doc_rate)

        ranked = sorted(page, key=lambda w: (-weight(w), w))
        return ranked[: self.keyword_count]


def _is_prose(sentence: str) -> bool:
    """A sentence worth quoting: several words, mostly letters, not a list of links or numbers."""
    words = sentence.split()
    letters = sum(ch.isalpha() for ch in sentence)
    return len(words) >= 5 and letters >= 0.6 * len(sentence) and sentence.count("://") <= 1


def _central_sentences(candidates: list[str], pool: Counter[str], count: int) -> str:
    """The ``count`` sentences closest to the word distribution ``pool``, in their original order.

    Prose sentences are preferred; fragments (tables, link lists) are used only when a page has nothing else.
    """
    prose = [i for i, sentence in enumerate(candidates) if _is_prose(sentence)]
    eligible = prose or range(len(candidates))
    scored: list[tuple[float, int]] = []
    pool_norm = math.sqrt(sum(v * v for v in pool.values())) or 1.0
    for index in eligible:
        sentence = candidates[index]
        bag = Counter(content_words(sentence))
        if not bag:
            continue
        dot = sum(n * pool[w] for w, n in bag.items())
        norm = math.sqrt(sum(n * n for n in bag.values()))
        scored.append((dot / (norm * pool_norm), index))
    best = sorted(scored, key=lambda item: (-item[0], item[1]))[:count]
    chosen = [_clip(candidates[i]) for _, i in sorted(best, key=lambda item: item[1])]
    return " ".join(chosen)


def _clip(sentence: str) -> str:
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    return sentence[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
