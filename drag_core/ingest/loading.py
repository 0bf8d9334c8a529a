"""Loading files into pages: PDF by PDFium or pypdf (one page = one unit, ``pdf_text``), TXT/MD split into
page-sized sections.

Every failure is a ``LoadError`` with a one-line, user-facing reason; nothing is half-loaded.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from drag_core.errors import DragError
from drag_core.ingest.pdf_text import DEFAULT_PDF_ENGINE, PdfError, pdf_page_count, pdf_pages
from drag_core.types import Page

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_PAGES",
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
    "load_bytes",
    "load_path",
    "split_sections",
]

PDF_SUFFIXES = frozenset({".pdf"})
TEXT_SUFFIXES = frozenset({".txt", ".md", ".markdown", ".text"})
SUPPORTED_SUFFIXES = PDF_SUFFIXES | TEXT_SUFFIXES
SECTION_CHARS = 3000
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
DEFAULT_MAX_PAGES = 3000

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
    """

    file_name: str
    doc_id: str
    pages: list[Page]

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
    if suffix in PDF_SUFFIXES:
        try:
            texts = pdf_pages(data, max_pages, pdf_engine)
        except PdfError as error:
            raise LoadError(str(error)) from error
        if not any(text.strip() for text in texts):
            raise LoadError("no extractable text (scanned images only, or an empty document)")
    else:
        texts = split_sections(decode_text(data), limit=max_pages)
        if not texts:
            raise LoadError("no text: only blank lines and spaces")
        if len(texts) > max_pages:
            raise LoadError(f"text too long (more than {max_pages} sections of {SECTION_CHARS} characters)")
    pages = [Page(file_name=file_name, number=i + 1, text=text) for i, text in enumerate(texts)]
    return LoadedDocument(file_name=file_name, doc_id=document_id(data), pages=pages)


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


def split_sections(text: str, size: int = SECTION_CHARS, limit: int | None = None) -> list[str]:
    """Cut text into sections of about ``size`` characters, preferring headings, then paragraph breaks,
    then line ends, then spaces; a section is never longer than ``size``. With ``limit``, stop after
    ``limit + 1`` sections (enough to tell that a text is too long without cutting all of it)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").rstrip()
    sections: list[str] = []
    start = _next_text(text, 0)
    while start < len(text) and (limit is None or len(sections) <= limit):
        window = text[start : start + size + 1]
        cut = len(window) if len(window) <= size else _best_cut(window, size)
        sections.append(window[:cut].strip())
        start = _next_text(text, start + cut)
    return [s for s in sections if s]


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
