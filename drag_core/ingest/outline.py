"""A document's outline: the bookmarks of a PDF (read by PDFium whichever engine reads the text) or the
headings of a Markdown file, as entries on the document's pages.

* PDF: ``PdfDocument.get_toc()`` gives the bookmarks depth-first (``level`` 0 = top); a bookmark's page is
  its destination's 0-based page index, or, for a bookmark whose target is an action, the action's
  destination (``FPDFBookmark_GetAction`` → ``FPDFAction_GetDest``). Bookmarks without a page or a title are
  left out. A PDF whose outline cannot be read has none: the outline is a help, never a reason to refuse.
* Markdown: ATX (``# Title``) and setext (``Title`` over ``===`` / ``---``) headings outside fenced code, each
  on the loader's section that holds it.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from drag_core.ingest.clean_text import clean_text
from drag_core.ingest.pdf_text import first_line, pdfium_lock

__all__ = ["MAX_DEPTH", "OutlineEntry", "markdown_outline", "pdf_outline"]

log = logging.getLogger(__name__)

MAX_DEPTH = 15  # outline levels read at most

_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_NOT_SETEXT_TITLE = ("#", "-", "*", "+", "|", ">")


@dataclass(frozen=True)
class OutlineEntry:
    """One section of a document's outline.

    Attributes:
        level: depth, 0 = top (a chapter).
        title: the section's title, cleaned (``clean_text``), whitespace folded.
        page: 0-based index of the page (or text section) the section starts on.
    """

    level: int
    title: str
    page: int


def pdf_outline(data: bytes) -> list[OutlineEntry]:
    """The bookmarks of a PDF in document order; [] when it has none or they cannot be read."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    with pdfium_lock():
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError:
            return []  # the text engine says why the file cannot be read
        try:
            pages = len(document)
            entries = []
            for bookmark in document.get_toc(max_depth=MAX_DEPTH):
                page = _bookmark_page(document, bookmark, raw)
                title = " ".join(clean_text(bookmark.get_title() or "").split())
                if page is not None and 0 <= page < pages and title:
                    entries.append(OutlineEntry(bookmark.level, title, page))
            return entries
        except Exception as error:  # a damaged outline loses the sections, never the document
            log.warning("the PDF outline cannot be read (%s); no sections", first_line(error))
            return []
        finally:
            document.close()


def _bookmark_page(document: object, bookmark: object, raw: object) -> int | None:
    dest = bookmark.get_dest()  # type: ignore[attr-defined]
    if dest is not None:
        return dest.get_index()
    action = raw.FPDFBookmark_GetAction(bookmark.raw)  # type: ignore[attr-defined]
    if not action:
        return None
    target = raw.FPDFAction_GetDest(document.raw, action)  # type: ignore[attr-defined]
    if not target:
        return None
    index = raw.FPDFDest_GetDestPageIndex(document.raw, target)  # type: ignore[attr-defined]
    return index if index >= 0 else None


def markdown_outline(text: str, section_starts: Sequence[int]) -> list[OutlineEntry]:
    """The headings of Markdown ``text``, each on the section holding it; ``section_starts`` are the
    sections' character offsets in ``text`` (ascending, the first 0)."""
    entries = []
    offset, fenced, previous, previous_offset = 0, False, "", 0
    for line in text.split("\n"):
        heading: tuple[int, str, int] | None = None
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            atx = _ATX.match(line)
            if atx:
                heading = (len(atx.group(1)) - 1, atx.group(2), offset)
            elif (
                _SETEXT.match(line)
                and previous.strip()
                and not previous.lstrip().startswith(_NOT_SETEXT_TITLE)
            ):
                heading = (0 if line.strip().startswith("=") else 1, previous, previous_offset)
        if heading is not None:
            level, title, at = heading
            page = max(0, bisect_right(section_starts, at) - 1)
            entries.append(OutlineEntry(level, " ".join(title.split()), page))
        previous, previous_offset = line, offset
        offset += len(line) + 1
    return [entry for entry in entries if entry.title]
