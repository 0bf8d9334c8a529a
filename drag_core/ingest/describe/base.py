"""The ``Summarizer`` interface: describe a page, or a group of children, as summary + keywords."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from drag_core.types import Description

__all__ = ["KEYWORD_COUNT", "SUMMARY_SENTENCES", "Summarizer", "merge_keywords"]

SUMMARY_SENTENCES = (2, 5)
KEYWORD_COUNT = (5, 10)


class Summarizer(Protocol):
    """Anything that can describe pages and groups of nodes.

    ``identity`` names the summariser and its settings; it is part of the cache key, so two
    summarisers with the same identity must give the same description for the same input.
    """

    identity: str

    def describe_page(self, text: str, context: str) -> Description:
        """Summary + keywords of one page. ``context`` is the whole document text (for term statistics)."""
        ...

    def describe_group(self, children: Sequence[Description]) -> Description:
        """Summary + keywords of a parent, aggregated from its children's descriptions."""
        ...


def merge_keywords(children: Sequence[Description], cap: int = KEYWORD_COUNT[1]) -> list[str]:
    """Parent keywords: the union of the children's, deduplicated case-insensitively,
    ordered by how many children name them (then by first appearance), capped at ``cap``."""
    counts: dict[str, int] = {}
    spelling: dict[str, str] = {}
    for child in children:
        for keyword in dict.fromkeys(k.strip().lower() for k in child.keywords if k.strip()):
            counts[keyword] = counts.get(keyword, 0) + 1
    for child in children:
        for keyword in child.keywords:
            spelling.setdefault(keyword.strip().lower(), keyword.strip())
    ranked = sorted(counts, key=lambda k: -counts[k])  # sorted() is stable: ties keep first appearance
    return [spelling[k] for k in ranked[:cap]]
