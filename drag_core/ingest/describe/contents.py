"""What a parent covers, said as a table of contents says it: the first sentence of a parent's summary.

* A parent with an outline: the sections of its pages by name — "In 6 Programming: 6.1 Data types,
  6.2 Paths and guides and 6.3 Pens." (``Sections.parts``: the section holding all its pages, then those of
  the next level it runs over); inside one section, that section: "Part of section 6 Programming › Pens."
  Page numbers are left to the node, which shows its pages: after every section they would make the line
  more numbers than words.
* A parent without an outline: its pages and its keywords — "Pages 5–12 on flux, gradients and mesh."
* The root says what the document is: its title (the first heading of its first page with text; else, and
  for a filing, its file name), its kind (``KINDS``, from its first pages) and its length, then its chapters
  (or its keywords): "An Introduction to R, a manual of 113 pages. Contents: Preface, 1 Introduction and
  preliminaries, … and 15 more."
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from drag_core.ingest.describe.prose import headings
from drag_core.ingest.sections import Sections

__all__ = ["KINDS", "LISTED", "About", "document_about", "contents_line", "pages_label"]

LISTED = 6  # sections named at most; the rest are counted
KEYWORDS_NAMED = 4  # keywords that say what a parent without an outline covers
FIRST_PAGES = 3  # pages read for a document's kind
#: A document's kind, by the first pattern its first pages (lower-cased) match.
KINDS = (
    (re.compile(r"\bform\s+10-k\b"), "annual report on Form 10-K"),
    (re.compile(r"\bform\s+10-q\b"), "quarterly report on Form 10-Q"),
    (re.compile(r"\bform\s+8-k\b"), "current report on Form 8-K"),
    (re.compile(r"\b(?:reports?|announces?)\b[^.]{0,80}\b(?:results|earnings)\b"), "earnings release"),
    (
        re.compile(
            r"\b(?:manual|reference|guide|handbook|introduction to|frequently asked|faq|definition|"
            r"documentation|tutorial|language)\b"
        ),
        "manual",
    ),
    (re.compile(r"\babstract\b"), "paper"),
)
_FILING = "Form "


@dataclass(frozen=True)
class About:
    """What a document is.

    Attributes:
        title: its title, or its file name.
        kind: "manual", "annual report on Form 10-K", … or "document".
        pages: how many pages it has.
    """

    title: str
    kind: str
    pages: int

    def sentence(self) -> str:
        """ "An Introduction to R, a manual of 113 pages." """
        return f"{self.title}, a {self.kind} of {self.pages} pages."


def document_about(file_name: str, pages: Sequence[str]) -> About:
    """A document's title and kind from its first pages (see the module docstring)."""
    first = [page for page in pages if page.strip()][:FIRST_PAGES]
    text = " ".join(" ".join(first).lower().split())
    kind = next((name for pattern, name in KINDS if pattern.search(text)), "document")
    heads = headings(first[0], 1) if first else []
    title = file_name if _FILING in kind or not heads else heads[0]
    return About(title, kind, len(pages))


def pages_label(pages: range) -> str:
    """ "page 7" or "pages 8–13" (1-based) for 0-based ``pages`` (words, not "pp.", which would end a
    sentence before its number)."""
    if len(pages) <= 1:
        return f"page {pages.start + 1}"
    return f"pages {pages.start + 1}–{pages.stop}"


def _listed(items: Sequence[str]) -> str:
    shown = list(items[:LISTED])
    if len(items) > LISTED:
        return f"{', '.join(shown)} and {len(items) - LISTED} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def contents_line(
    sections: Sections, pages: range, keywords: Sequence[str], about: About | None = None
) -> str:
    """What a parent over the 0-based ``pages`` covers (see the module docstring); ``about`` for the root."""
    lead = f"{about.sentence()} " if about else ""
    if not sections:
        named = [k for k in keywords[:KEYWORDS_NAMED] if k]
        if about:
            return f"{lead[:-2]} on {_listed(named)}." if named else lead.strip()
        where = pages_label(pages).capitalize()
        return f"{where} on {_listed(named)}." if named else f"{where}."
    common, parts = sections.parts(pages.start, pages.stop - 1)
    listed = [name for name, _ in parts]
    if about:
        return f"{lead}Contents: {_listed(listed)}." if listed else lead.strip()
    if len(parts) >= 2:
        return (
            f"In {' › '.join(common[-2:])}: {_listed(listed)}." if common else f"Sections {_listed(listed)}."
        )
    path = " › ".join([*common[-2:], *(name for name, _ in parts)][-2:])
    return f"Part of section {path}." if path else "Front matter, before the first section."
