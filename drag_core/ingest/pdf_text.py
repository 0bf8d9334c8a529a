"""Text of each page of a PDF, by one of two engines: PDFium (``pypdfium2``, the default) or pypdf.

PDFium (Chrome's PDF engine, C++) reads 20–60× more pages a second than pure-Python pypdf and keeps the spaces
between words where pypdf glues them together in some PDFs (measured, docs/benchmarks.md). Both engines
answer the same way: a ``PdfError`` with a one-line reason for a file that cannot be read, and an empty page
(with a warning) for one page that cannot.
"""

from __future__ import annotations

import io
import logging
import os
import re
import threading
from collections.abc import Callable, Sequence

from drag_core.config import DEFAULT_PDF_ENGINE, check_pdf_engine
from drag_core.ingest.clean_text import clean_text

__all__ = [
    "PDFIUM_HYPHEN",
    "PdfError",
    "broken",
    "engine_version",
    "first_line",
    "pdf_page_count",
    "pdf_pages",
    "pdfium_lock",
    "resolve_soft_hyphens",
]

log = logging.getLogger(__name__)

PDFIUM_HYPHEN = "\ufffe"  # what PDFium gives for a hyphen the PDF marks as a possible line break
# PDFium is not thread-safe: one call at a time in a process (the app's sessions share one process). A fork
# taken while another thread holds the lock would leave it held in the child, so the child gets a new one.
_PDFIUM_LOCK = threading.Lock()


def _new_pdfium_lock() -> None:
    global _PDFIUM_LOCK
    _PDFIUM_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_pdfium_lock)


def pdfium_lock() -> threading.Lock:
    """The lock every PDFium call of this process holds (looked up on each use: a fork replaces it)."""
    return _PDFIUM_LOCK


_SOFT_HYPHENATED = re.compile(rf"([^\W\d_]+){PDFIUM_HYPHEN}([^\W\d_]+)")
_WORD = re.compile(r"[^\W\d_]+")


class PdfError(Exception):
    """A PDF that cannot be read; ``str(error)`` is a one-line reason."""


def engine_version(engine: str) -> str:
    """The engine and its library version (part of the page cache key: another version may read other text)."""
    if engine == "pdfium":
        import pypdfium2

        return f"pdfium-{pypdfium2.PYPDFIUM_INFO}-{pypdfium2.PDFIUM_INFO}"
    from pypdf import __version__

    return f"pypdf-{__version__}"


def pdf_pages(data: bytes, max_pages: int, engine: str = DEFAULT_PDF_ENGINE) -> list[str]:
    """The text of every page, in order (an unreadable page is an empty string), cleaned (``clean_text``).
    Raises ``PdfError``."""
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise PdfError("not a PDF (no %PDF header)")
    reader = _pdfium_pages if check_pdf_engine(engine) == "pdfium" else _pypdf_pages
    return [clean_text(text) for text in resolve_soft_hyphens(reader(data, max_pages))]


def resolve_soft_hyphens(pages: Sequence[str]) -> list[str]:
    """PDFium's line-break hyphens (``PDFIUM_HYPHEN``, U+FFFE, inside the joined word): removed
    where the joined word occurs elsewhere in the document ("according"), else a plain "-" ("low-level")."""
    if not any(PDFIUM_HYPHEN in page for page in pages):
        return list(pages)
    words = {word.lower() for page in pages for word in _WORD.findall(page.replace(PDFIUM_HYPHEN, "-"))}

    def join(match: re.Match[str]) -> str:
        head, tail = match.group(1), match.group(2)
        return head + tail if (head + tail).lower() in words else f"{head}-{tail}"

    return [_SOFT_HYPHENATED.sub(join, page).replace(PDFIUM_HYPHEN, "-") for page in pages]


def pdf_page_count(data: bytes) -> int:
    """How many pages a PDF has, without reading their text (PDFium: about a millisecond); 0 when it cannot
    be opened (reading it says why)."""
    import pypdfium2 as pdfium

    with _PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError:
            return 0
        try:
            return len(document)
        finally:
            document.close()


def _check_count(count: int, max_pages: int) -> None:
    if count == 0:
        raise PdfError("PDF has no pages")
    if count > max_pages:
        raise PdfError(f"too many pages ({count} > {max_pages})")


def _pdfium_pages(data: bytes, max_pages: int) -> list[str]:
    import pypdfium2 as pdfium

    with pdfium_lock():
        try:
            document = pdfium.PdfDocument(data)  # tries the empty password, as SEC filings need
        except pdfium.PdfiumError as error:
            if "password" in str(error).lower():
                raise PdfError("PDF is encrypted with a password") from error
            raise PdfError(broken(data, error)) from error
        try:
            _check_count(len(document), max_pages)
            return [
                _page_text(lambda i=index: _pdfium_page(document, i), index) for index in range(len(document))
            ]
        finally:
            document.close()


def _pdfium_page(document: object, index: int) -> str:
    page = document[index]  # type: ignore[index]
    try:
        text_page = page.get_textpage()
        try:
            text = text_page.get_text_range()
            return text.replace("\r\n", "\n").replace("\r", "\n")
        finally:
            text_page.close()
    finally:
        page.close()


def _pypdf_pages(data: bytes, max_pages: int) -> list[str]:
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _decrypt_with_empty_password(reader):
            raise PdfError("PDF is encrypted with a password")
        count = len(reader.pages)
    except PdfError:
        raise
    except Exception as error:  # pypdf raises many types (PdfReadError, ValueError, KeyError, ...) for damage
        raise PdfError(broken(data, error)) from error
    _check_count(count, max_pages)
    return [_page_text(lambda i=index: reader.pages[i].extract_text() or "", index) for index in range(count)]


def _decrypt_with_empty_password(reader: object) -> bool:
    try:
        return bool(reader.decrypt(""))  # type: ignore[attr-defined]
    except Exception as error:  # pypdf raises several types here (missing crypto backend among them)
        raise PdfError(f"PDF is encrypted and cannot be opened ({first_line(error)})") from error


def _page_text(read: Callable[[], str], index: int) -> str:
    try:
        return read()
    except Exception as error:  # one unreadable page must not lose the document
        log.warning(
            "page %d: text extraction failed (%s); kept as an empty page", index + 1, first_line(error)
        )
        return ""


def broken(data: bytes, error: Exception) -> str:
    """The reason for a PDF the engine refused: truncated (no end-of-file marker) or otherwise damaged."""
    if b"%%EOF" not in data[-2048:]:
        return f"broken PDF: truncated, the end of the file is missing ({first_line(error)})"
    return f"broken PDF ({first_line(error)})"


def first_line(error: BaseException) -> str:
    """The first line of an error's message (its type name when empty), at most 200 characters."""
    message = str(error).strip().splitlines()
    return (message[0] if message else type(error).__name__)[:200]
