"""What the page viewer shows for one page and one question: the page as it looks (a PDF page rendered with the
passages that match the question highlighted) or, for a text file, its text with the same passages marked.

Used by the app (Compare, Tree) and by ``drag page``. A request the index cannot answer (a file no longer
indexed, a page it does not have) raises ``PageError``; a page that has no image (a text file, a PDF whose
original is not kept on this machine or cannot be rendered) comes back with its text and a ``note`` saying why,
so the viewer always has something to show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from drag_core.engine import Engine
from drag_core.evidence.render import PageError, PageImage, PageImages
from drag_core.evidence.snippets import Snippet, quoted, snippet
from drag_core.ingest.loading import PDF_SUFFIXES

__all__ = ["NOT_KEPT", "PageView", "view_page"]

NOT_KEPT = (
    "the original PDF is not kept on this machine (indexed before originals were kept, or by another machine "
    "into a shared Qdrant server): its text is shown instead — ingest the file here again to see the page"
)


@dataclass(frozen=True)
class PageView:
    """One page for one question.

    Attributes:
        file_name, page: which page.
        pages: pages in the document.
        title: the section the page belongs to ("" when the file has no outline).
        text: the page's text as indexed.
        snippet: the units of the page that match the question (empty without a question or a match).
        image: the rendered page, highlighted (None: a text file, or no image could be made — see ``note``).
        note: what to tell people about the page ("" when nothing).
    """

    file_name: str
    page: int
    pages: int
    title: str
    text: str
    snippet: Snippet
    image: PageImage | None
    note: str


def view_page(
    engine: Engine,
    images: PageImages,
    file_name: str,
    number: int,
    query: str = "",
    spans: Sequence[tuple[int, int]] = (),
) -> PageView:
    """Page ``number`` of the indexed ``file_name``, with the passages matching ``query`` highlighted — or, when
    given, the character ``spans`` of its text (a sentence an answer quotes), the question's words in them
    marked. Raises ``PageError`` when the index has no such file or page."""
    try:
        info = engine.document(file_name)
        node = engine.page(file_name, number)
    except KeyError:
        raise PageError(f"{file_name} is not indexed (any more): upload it again to see its pages") from None
    except ValueError as error:
        raise PageError(str(error)) from None
    found = (
        quoted(query, node.text, spans, tuple(node.units))
        if spans
        else snippet(query, node.text, tuple(node.units))
        if query.strip()
        else Snippet()
    )
    image, note = None, ""
    if PurePath(file_name).suffix.lower() in PDF_SUFFIXES:
        data = engine.original(node.doc_id)
        if data is None:
            note = NOT_KEPT
        else:
            try:
                image = images.image(
                    node.doc_id, lambda: data, number, node.text, found.highlights, found.marks
                )
                note = image.note
            except PageError as error:
                note = f"{error}: its text is shown instead"
    return PageView(file_name, number, info.pages, node.title, node.text, found, image, note)
