"""An answer without an LLM: the sentences of a strategy's pages that best match the question, each citing its
page — extracted, not generated.

Every unit of every page (``ingest.units``, as ``snippets.analysed`` keeps them) is ranked by BM25 with IDF
counted over all of them (so a word every page repeats counts little); a table row or a heading counts
``NON_PROSE_WEIGHT`` of its score (filings answer in tables, but a sentence reads better), repeated units once,
and a unit that starts inside another sentence (``Unit.fragment``: "226) lie within …") never. The best
``ANSWER_UNITS`` are the answer, best first, each with ``[file p.N]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from drag_core.evidence.snippets import analysed, bm25_scores, terms
from drag_core.text import citation
from drag_core.types import Node

__all__ = ["ANSWER_UNITS", "NON_PROSE_WEIGHT", "Extract", "extract_answer"]

ANSWER_UNITS = 3
NON_PROSE_WEIGHT = 0.8
MIN_WORDS = 4


@dataclass(frozen=True)
class Extract:
    """One sentence of an extractive answer and where it is.

    Attributes:
        text: the sentence (or table row).
        file_name, page: its page.
        start, end: its span in the page text.
        score: its BM25 score (weighted).
    """

    text: str
    file_name: str
    page: int
    start: int
    end: int
    score: float

    @property
    def citation(self) -> str:
        """``[file p.N]``."""
        return citation(self.file_name, self.page, self.page)


def extract_answer(query: str, pages: Sequence[Node], count: int = ANSWER_UNITS) -> list[Extract]:
    """The ``count`` units of ``pages`` (leaves with text) that best match ``query``; empty when no unit shares a
    term with it."""
    found = [
        (page, unit)
        for page in pages
        for unit in analysed(page.text, tuple(page.units)).units
        if (unit.prose or len(unit.text.split()) >= MIN_WORDS) and not unit.fragment
    ]
    scores = bm25_scores(terms(query), [terms(unit.text) for _, unit in found])
    weighted = [s * (1.0 if u.prose else NON_PROSE_WEIGHT) for s, (_, u) in zip(scores, found)]
    chosen: list[Extract] = []
    seen: set[str] = set()
    for i in sorted(range(len(found)), key=lambda i: (-weighted[i], i)):
        page, unit = found[i]
        if weighted[i] <= 0 or len(chosen) == count:
            break
        if unit.text.lower() in seen:
            continue
        seen.add(unit.text.lower())
        chosen.append(Extract(unit.text, page.file_name, page.page_start, unit.start, unit.end, weighted[i]))
    return chosen
