"""The ``Summarizer`` interface: describe a page, or a group of children, as summary + keywords; and the
``DocumentContext`` a summariser may read besides the page or group at hand."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from drag_core.ingest.describe.contents import About, contents_line, document_about
from drag_core.ingest.describe.corpus import Corpus, CorpusView
from drag_core.ingest.describe.keywords import terms
from drag_core.ingest.outline import OutlineEntry
from drag_core.ingest.sections import Sections
from drag_core.types import Description

__all__ = [
    "KEYWORD_COUNT",
    "SUMMARY_SENTENCES",
    "DocumentContext",
    "Summarizer",
    "document_terms",
    "merge_keywords",
]

SUMMARY_SENTENCES = (2, 5)
KEYWORD_COUNT = (5, 10)


def document_terms(bodies: Sequence[str]) -> Counter[str]:
    """A document's term counts (``keywords.terms`` of its page bodies): what the corpus counts of it."""
    counts: Counter[str] = Counter()
    for body in bodies:
        counts.update(terms(body))
    return counts


@dataclass(frozen=True)
class DocumentContext:
    """The document a page or group belongs to.

    Attributes:
        file_name: the document's file name.
        pages: every page's body (running headers and footers left out), in page order.
        corpus: the corpus the document is described against (``Corpus.view``).
        outline: the document's outline (empty: none), whose sections a parent's summary names.
    """

    file_name: str
    pages: tuple[str, ...]
    corpus: CorpusView
    outline: tuple[OutlineEntry, ...] = ()

    @classmethod
    def alone(
        cls, file_name: str, pages: Sequence[str], outline: Sequence[OutlineEntry] = ()
    ) -> DocumentContext:
        """A document described on its own (a corpus of one)."""
        view = Corpus().view((file_name, ""), document_terms(pages))
        return cls(file_name, tuple(pages), view, tuple(outline))

    @cached_property
    def sections(self) -> Sections:
        """The outline laid over the pages."""
        return Sections(self.outline, len(self.pages))

    @cached_property
    def about(self) -> About:
        """What the document is: title, kind, length."""
        return document_about(self.file_name, self.pages)

    def is_root(self, pages: range) -> bool:
        """Whether a group over ``pages`` is the document's root (it covers every page)."""
        return pages.start == 0 and pages.stop >= len(self.pages)

    def contents(self, pages: range, keywords: Sequence[str]) -> str:
        """What a parent over the 0-based ``pages`` covers, as a table of contents says it
        (``contents.contents_line``): its sections by name, or its keywords without an outline."""
        return contents_line(self.sections, pages, keywords, self._root_about(pages))

    def part_key(self, pages: range) -> str:
        """What a group's contents line depends on besides its keywords (part of its cache key)."""
        parts = self.sections.parts(pages.start, pages.stop - 1) if self.sections else ()
        return repr((parts, self._root_about(pages)))

    def _root_about(self, pages: range) -> About | None:
        """What the document is, for its root (the group over every page); None for another group."""
        return self.about if self.is_root(pages) else None

    @cached_property
    def text(self) -> str:
        """The whole document's body text."""
        return "\n\n".join(self.pages)

    @cached_property
    def fingerprint(self) -> str:
        """Names the document and its corpus (part of the description cache key of a summariser that reads
        the context)."""
        outline = repr(self.outline)
        digest = hashlib.sha256(f"{self.file_name}\x00{self.corpus.fingerprint}\x00{outline}\x00".encode())
        digest.update(self.text.encode())
        return digest.hexdigest()


class Summarizer(Protocol):
    """Anything that can describe pages and groups of nodes.

    ``identity`` names the summariser and its settings; it is part of the cache key, so two summarisers with
    the same identity must give the same description for the same input (a summariser with ``uses_context``
    reads the whole ``DocumentContext``, and its descriptions are cached per context).
    """

    identity: str

    def describe_page(self, context: DocumentContext, page: int) -> Description:
        """Summary + keywords of page ``page`` (0-based) of the document, from its body ``context.pages[page]``."""
        ...

    def describe_group(
        self, children: Sequence[Description], context: DocumentContext, pages: range
    ) -> Description:
        """Summary + keywords of a parent over the 0-based ``pages`` of the document, from its children's
        descriptions (and, for a summariser that reads the context, the pages' bodies)."""
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
