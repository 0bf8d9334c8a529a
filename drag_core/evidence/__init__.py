"""Showing the evidence: the units of a page (``units``), the snippet of a page for a question (``snippets``),
an extractive answer with citations (``extract``), and a PDF page rendered with the passages highlighted
(``align`` maps text to PDFium's characters, ``render`` draws, ``png`` writes the file). ``view`` puts them
together for the page viewer of the app and ``drag page`` (it reads the engine, so it is imported on its own).
"""

from drag_core.evidence.extract import Extract, extract_answer
from drag_core.evidence.render import PageError, PageImage, PageImages
from drag_core.evidence.snippets import Snippet, snippet
from drag_core.ingest.units import Unit, page_units

__all__ = [
    "Extract",
    "PageError",
    "PageImage",
    "PageImages",
    "Snippet",
    "Unit",
    "extract_answer",
    "page_units",
    "snippet",
]
