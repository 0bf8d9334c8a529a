"""Loading files into pages: PDF by PDFium or pypdf (one page = one unit, ``pdf_text``), TXT/MD split into
page-sized sections (a text file with form feeds, as ``pdftotext`` writes, into its pages).

Paged documents (PDFs, text with form feeds) get their running headers and footers recognised
(``running_lines``): each page's ``body`` leaves them out. PDFs bring their outline and Markdown files their
headings (``outline``). Every failure is a ``LoadError`` with a one-line, user-facing reason; nothing is
half-loaded.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from drag_core.config import DEFAULT_PDF_ENGINE
from drag_core.errors import DragError
from drag_core.ingest.clean_text import clean_text
from drag_core.ingest.outline import OutlineEntry, markdown_outline, pdf_outline
from drag_core.ingest.pdf_text import PdfError, pdf_page_count, pdf_pages
from drag_core.ingest.running_lines import find_running_lines, page_bodies
from drag_core.types import Page

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_PAGES",
    "MARKDOWN_SUFFIXES",
    "MIN_FORM_FEED_PAGES",
    "PDF_SUFFIXES",
    "SECTION_CHARS",
    "SUPPORTED_SUFFIXES",
    "TEXT_SUFFIXES",
    "LoadError",
    "LoadedDocument",
    "clean_file_name",
    "decode_text",
    "document_id",
    "expected_pages",
    "form_feed_pages",
    "load_bytes",
    "load_path",
    "paged_document",
    "section_spans",
    "split_sections",
]

PDF_SUFFIXES = frozenset({".pdf"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})
TEXT_SUFFIXES = frozenset({".txt", ".text"}) | MARKDOWN_SUFFIXES
SUPPORTED_SUFFIXES = PDF_SUFFIXES | TEXT_SUFFIXES
SECTION_CHARS = 3000
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
DEFAULT_MAX_PAGES = 3000
MIN_FORM_FEED_PAGES = 3  # a text file with fewer pages between form feeds is cut into sections

_NON_BLANK = re.compile(r"\S")
_HEADING = re.compile(r"^(#{1,6}\s|\S.*\n[=-]{3,}\s*$)", re.MULTILINE)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class LoadError(DragError):
    """A file that cannot be turned into pages; ``str(error)`` is a one-line reason."""


@dataclass(frozen=True)
class LoadedDocument:
    """A file split into pages.

    Attributes:
        file_name: the file's base name, cleaned of directories.
        doc_id: hash of the file's bytes (identifies this version of the document).
        pages: the pages, in order; empty pages are kept.
        running_lines: the running headers and footers left out of the pages' bodies: (an example line, on
            how many pages), most pages first.
        page_numbers: pages whose printed page number was left out of the body.
        outline: the document's sections (PDF bookmarks, Markdown headings), in order; empty without any.
    """

    file_name: str
    doc_id: str
    pages: list[Page]
    running_lines: tuple[tuple[str, int], ...] = ()
    page_numbers: int = 0
    outline: tuple[OutlineEntry, ...] = ()

    @property
    def empty_pages(self) -> int:
        return sum(1 for page in self.pages if not page.text.strip())


def clean_file_name(name: str) -> str:
    """The base name of ``name`` with directories, ``..`` and control characters removed."""
    base = PureWindowsPath(PurePosixPath(name.replace("\\", "/")).name).name
    base = "".join(ch for ch in unicodedata.normalize("NFC", base) if unicodedata.category(ch)[0] != "C")
    base = base.strip().strip(".")
    if not base:
        raise LoadError(f"unusable file name {name!r}")
    return base


def document_id(data: bytes) -> str:
    """Content hash that identifies one version of a document."""
    return hashlib.sha256(data).hexdigest()[:32]


def expected_pages(name: str, data: bytes) -> int:
    """How many pages loading the file gives, for a progress estimate, without reading a PDF's text (its page
    count) — a text file is cut into its sections (string work only); at least 1."""
    if Path(name).suffix.lower() in PDF_SUFFIXES:
        return max(1, pdf_page_count(data))
    try:
        return max(1, len(split_sections(decode_text(data), limit=DEFAULT_MAX_PAGES)))
    except LoadError:  # not text: loading it says why
        return 1


def load_path(
    path: Path,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_pages: int = DEFAULT_MAX_PAGES,
    pdf_engine: str = DEFAULT_PDF_ENGINE,
) -> LoadedDocument:
    """Load a file from disk (see ``load_bytes``)."""
    if not path.is_file():
        raise LoadError("not a file" if path.exists() else "file not found")
    size = path.stat().st_size
    if size > max_bytes:
        raise LoadError(_too_large(size, max_bytes))
    return load_bytes(path.name, path.read_bytes(), max_bytes, max_pages, pdf_engine)


def load_bytes(
    name: str,
    data: bytes,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_pages: int = DEFAULT_MAX_PAGES,
    pdf_engine: str = DEFAULT_PDF_ENGINE,
) -> LoadedDocument:
    """Split the bytes of a PDF (read by ``pdf_engine``, see ``pdf_text``), TXT or MD file into pages.
    Raises ``LoadError`` with a one-line reason."""
    file_name = clean_file_name(name)
    suffix = Path(file_name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise LoadError(f"unsupported file type {suffix or '(none)'}; use PDF, TXT or MD")
    if not data:
        raise LoadError("empty file (0 bytes)")
    if len(data) > max_bytes:
        raise LoadError(_too_large(len(data), max_bytes))
    doc_id = document_id(data)
    if suffix in PDF_SUFFIXES:
        try:
            texts = pdf_pages(data, max_pages, pdf_engine)
        except PdfError as error:
            raise LoadError(str(error)) from error
        if not any(text.strip() for text in texts):
            raise LoadError("no extractable text (scanned images only, or an empty document)")
        return paged_document(file_name, doc_id, texts, pdf_outline(data))
    text = _normalised(decode_text(data))
    paged = form_feed_pages(text)
    if paged is not None:
        if len(paged) > max_pages:
            raise LoadError(f"too many pages ({len(paged)} > {max_pages})")
        return paged_document(file_name, doc_id, paged)
    spans = section_spans(text, limit=max_pages)
    if not spans:
        raise LoadError("no text: only blank lines and spaces")
    if len(spans) > max_pages:
        raise LoadError(f"text too long (more than {max_pages} sections of {SECTION_CHARS} characters)")
    pages = [Page(file_name, i + 1, text[a:b]) for i, (a, b) in enumerate(spans)]
    outline = markdown_outline(text, [a for a, _ in spans]) if suffix in MARKDOWN_SUFFIXES else []
    return LoadedDocument(file_name, doc_id, pages, outline=tuple(outline))


def paged_document(
    file_name: str, doc_id: str, texts: list[str], outline: list[OutlineEntry] | None = None
) -> LoadedDocument:
    """A document of real pages: each page's body leaves out the running headers and footers."""
    found = find_running_lines(texts)
    bodies = page_bodies(texts, found)
    pages = [Page(file_name, i + 1, text, body) for i, (text, body) in enumerate(zip(texts, bodies))]
    return LoadedDocument(
        file_name, doc_id, pages, tuple(found.listed()), found.page_numbers, tuple(outline or ())
    )


def form_feed_pages(text: str) -> list[str] | None:
    """The pages of a text with form feeds (``pdftotext`` output; a final form feed ends the last page), or
    None when it has fewer than ``MIN_FORM_FEED_PAGES`` pages with text."""
    if "\f" not in text:
        return None
    pages = text.split("\f")
    if not pages[-1].strip():
        pages.pop()
    return pages if sum(1 for page in pages if page.strip()) >= MIN_FORM_FEED_PAGES else None


def _too_large(size: int, limit: int) -> str:
    return f"file too large ({size / 2**20:.1f} MiB > {limit / 2**20:.0f} MiB)"


def decode_text(data: bytes) -> str:
    """Decode text bytes: a BOM wins, then UTF-8, then Windows-1252/Latin-1. Binary data is refused."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as error:
                raise LoadError(f"text has a {encoding} byte-order mark but does not decode") from error
    if _looks_binary(data):
        raise LoadError("binary data, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError:
            return data.decode("latin-1")


def _looks_binary(data: bytes) -> bool:
    sample = data[:8192]
    if b"\x00" in sample:
        return True
    controls = sum(1 for byte in sample if byte < 32 and byte not in (9, 10, 12, 13))
    return controls > len(sample) * 0.05


def _normalised(text: str) -> str:
    return clean_text(text).rstrip()


def split_sections(text: str, size: int = SECTION_CHARS, limit: int | None = None) -> list[str]:
    """Cut text into sections of about ``size`` characters (see ``section_spans``)."""
    text = _normalised(text)
    return [text[a:b] for a, b in section_spans(text, size, limit)]


def section_spans(text: str, size: int = SECTION_CHARS, limit: int | None = None) -> list[tuple[int, int]]:
    """Where to cut text (line ends already normalised) into sections of about ``size`` characters, as (start, end)
    offsets of each section without its surrounding blanks: preferring headings, then paragraph breaks, then
    line ends, then spaces; a section is never longer than ``size``. With ``limit``, stop after ``limit + 1``
    sections (enough to tell that a text is too long without cutting all of it)."""
    spans: list[tuple[int, int]] = []
    start = _next_text(text, 0)
    while start < len(text) and (limit is None or len(spans) <= limit):
        window = text[start : start + size + 1]
        cut = len(window) if len(window) <= size else _best_cut(window, size)
        spans.append((start, start + len(window[:cut].rstrip())))
        start = _next_text(text, start + cut)
    return spans


def _next_text(text: str, position: int) -> int:
    """Index of the first non-blank character at or after ``position`` (``len(text)`` when none)."""
    found = _NON_BLANK.search(text, position)
    return found.start() if found else len(text)


def _best_cut(text: str, size: int) -> int:
    window = text[: size + 1]
    floor = size // 2
    headings = [m.start() for m in _HEADING.finditer(window) if floor <= m.start() <= size]
    if headings:
        return headings[-1]
    for separator in ("\n\n", "\n", ". ", " "):
        position = window.rfind(separator, floor, size)
        if position > 0:
            return position + len(separator)
    return size
