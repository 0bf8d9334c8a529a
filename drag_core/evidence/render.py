"""A PDF page as an image, with passages of its text highlighted: rendered by PDFium (pypdfium2, the project's
PDF engine), boxes from PDFium's character positions, drawn with numpy, written as PNG by ``png``.

``PageImages`` keeps the plain render of recent pages (pixels, their PNG in bands, every character's box, per
document version, page and scale), so highlighting other passages of a page — another question, another
strategy — costs a blend and the re-compression of the bands the highlight touches, no PDFium call; and it
keeps the last PNGs it made, so a redraw of the same view costs nothing. Measured on a 99-page 10-K
(bench/evidence_render.py, docs/benchmarks.md): first highlighted page ~70–90 ms, again ~10 ms on this busy
2-core machine.

Every failure is a ``PageError`` with a one-line reason for people: not a PDF, protected by a password,
damaged, a page that does not exist. A page without a text layer (a scan) renders, with a note and no boxes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from drag_core.errors import DragError
from drag_core.evidence.align import char_runs, text_indices
from drag_core.evidence.png import BandedPng
from drag_core.ingest.pdf_text import first_line, pdfium_lock
from drag_core.lru import LRU

__all__ = [
    "HIGHLIGHT",
    "MARK",
    "NO_TEXT_LAYER",
    "SCALE",
    "PageError",
    "PageImage",
    "PageImages",
    "line_boxes",
]

SCALE = 1.5  # pixels per PDF point: a letter page is 918 × 1188
HIGHLIGHT = ((255, 214, 0), 0.38)  # the passages: colour and opacity
MARK = ((255, 120, 0), 0.45)  # the question's words inside them
PAD = 1.0  # PDF points around each box
PAGES_KEPT = 16  # plain renders kept (~3.3 MB each at SCALE)
IMAGES_KEPT = 32  # PNGs kept
NO_TEXT_LAYER = "this page has no text layer (a scanned image): nothing to highlight"

Box = tuple[float, float, float, float]


class PageError(DragError):
    """A page that cannot be shown; ``str(error)`` is a one-line reason for people."""


@dataclass(frozen=True)
class PageImage:
    """A rendered page.

    Attributes:
        png: the PNG file.
        width, height: its size in pixels.
        pages: pages in the document.
        boxes: highlight boxes drawn.
        has_text: the page has a text layer (False: a scanned image, nothing can be highlighted).
    """

    png: bytes
    width: int
    height: int
    pages: int
    boxes: int
    has_text: bool

    @property
    def note(self) -> str:
        """What to tell people about the page ("" when nothing)."""
        return "" if self.has_text else NO_TEXT_LAYER


@dataclass
class _Plain:
    """A page rendered once: its pixels and PNG, every PDFium character's box in pixels, its raw text."""

    pixels: np.ndarray
    png: BandedPng
    boxes: np.ndarray
    raw: str
    pages: int
    indices: dict[str, list[int]] = field(default_factory=dict)


def _open(data: bytes) -> object:
    import pypdfium2 as pdfium

    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise PageError("the file is not a PDF (no %PDF header), so it has no page image")
    try:
        return pdfium.PdfDocument(data)  # the empty password is tried, as SEC filings need
    except pdfium.PdfiumError as error:
        if "password" in str(error).lower():
            raise PageError("the PDF is protected by a password; its pages cannot be shown") from None
        raise PageError(f"the PDF is damaged and its pages cannot be shown ({first_line(error)})") from None


def _render(data: bytes, number: int, scale: float) -> _Plain:
    """Render page ``number`` (1-based) and read every character's box. Raises ``PageError``."""
    with pdfium_lock():
        document = _open(data)
        try:
            count = len(document)  # type: ignore[arg-type]
            if not 1 <= number <= count:
                plural = "s" * (count != 1)
                raise PageError(f"page {number} does not exist: the document has {count} page{plural}")
            page = document[number - 1]  # type: ignore[index]
            try:
                bitmap = page.render(scale=scale, rev_byteorder=True)  # RGB(A) byte order, as numpy reads it
                pixels = bitmap.to_numpy()[:, :, :3].copy()
                text_page = page.get_textpage()
                try:
                    chars = text_page.count_chars()
                    raw = text_page.get_text_range() if chars else ""
                    if len(raw) != chars:  # a character outside the BMP: one index, two code units
                        raw = "".join(_char(text_page, i) for i in range(chars))
                    points = np.array([text_page.get_charbox(i) for i in range(chars)], dtype=np.float64)
                finally:
                    text_page.close()
                boxes = _to_pixels(bitmap.get_posconv(page), page.get_size(), points.reshape(-1, 4))
            finally:
                page.close()
        finally:
            document.close()  # type: ignore[attr-defined]
    return _Plain(pixels, BandedPng(pixels), boxes, raw, count)


def _char(text_page: object, index: int) -> str:
    import pypdfium2.raw as raw

    code = raw.FPDFText_GetUnicode(text_page, index)
    return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else "\x00"


def _to_pixels(posconv: object, size: tuple[float, float], points: np.ndarray) -> np.ndarray:
    """Character boxes (left, bottom, right, top in PDF points) → (x0, y0, x1, y1) in pixels, through the
    page-to-bitmap mapping PDFium gives (rotation and crop box included), read off at three points."""
    width, height = size
    origin = np.array(posconv.to_bitmap(0, 0), dtype=np.float64)  # type: ignore[attr-defined]
    along_x = (np.array(posconv.to_bitmap(width, 0), dtype=np.float64) - origin) / width  # type: ignore[attr-defined]
    along_y = (np.array(posconv.to_bitmap(0, height), dtype=np.float64) - origin) / height  # type: ignore[attr-defined]
    left, bottom, right, top = (points[:, i : i + 1] for i in range(4))
    a = origin + (left - PAD) * along_x + (bottom - PAD) * along_y
    b = origin + (right + PAD) * along_x + (top + PAD) * along_y
    empty = ((right - left) <= 0) | ((top - bottom) <= 0)
    boxes = np.hstack([np.minimum(a, b), np.maximum(a, b)])
    boxes[empty[:, 0]] = 0.0  # generated spaces and line breaks have no box
    return boxes


def line_boxes(boxes: np.ndarray) -> list[Box]:
    """Character boxes (pixels, in text order) merged into one box per run of characters on a line; empty
    boxes are skipped."""
    merged: list[list[float]] = []
    for x0, y0, x1, y1 in boxes.tolist():
        if x1 - x0 < 0.5 or y1 - y0 < 0.5:
            continue
        if merged:
            m = merged[-1]
            overlap = min(m[3], y1) - max(m[1], y0)
            if overlap > 0.5 * min(m[3] - m[1], y1 - y0) and x0 >= m[0] - 2 and x0 - m[2] < 3 * (y1 - y0):
                m[0], m[1], m[2], m[3] = min(m[0], x0), min(m[1], y0), max(m[2], x1), max(m[3], y1)
                continue
        merged.append([x0, y0, x1, y1])
    return [(a, b, c, d) for a, b, c, d in merged]


def _blend(pixels: np.ndarray, boxes: Sequence[Box], colour: tuple[tuple[int, int, int], float]) -> None:
    """Tint the boxes like a marker (multiply: the text stays dark); overlapping boxes are tinted once. Only
    the region the boxes span is touched."""
    height, width = pixels.shape[:2]
    clipped = [
        (max(0, int(y0)), min(height, int(y1) + 1), max(0, int(x0)), min(width, int(x1) + 1))
        for x0, y0, x1, y1 in boxes
    ]
    if not clipped:
        return
    top, bottom = min(c[0] for c in clipped), max(c[1] for c in clipped)
    left, right = min(c[2] for c in clipped), max(c[3] for c in clipped)
    if bottom <= top or right <= left:
        return
    mask = np.zeros((bottom - top, right - left), dtype=bool)
    for y0, y1, x0, x1 in clipped:
        mask[y0 - top : y1 - top, x0 - left : x1 - left] = True
    rgb, alpha = colour
    tint = (1 - alpha) + alpha * np.array(rgb, dtype=np.float32) / 255.0
    region = pixels[top:bottom, left:right]
    region[mask] = (region[mask].astype(np.float32) * tint).astype(np.uint8)


class PageImages:
    """Rendered PDF pages, highlighted on request, remembered per document version, page and scale.

    Attributes:
        pages_kept: plain renders kept, least recently used out first.
        images_kept: PNGs kept.
    """

    def __init__(self, pages_kept: int = PAGES_KEPT, images_kept: int = IMAGES_KEPT) -> None:
        self.pages_kept = pages_kept
        self.images_kept = images_kept
        self._plain: LRU[Hashable, _Plain] = LRU(pages_kept)
        self._images: LRU[Hashable, PageImage] = LRU(images_kept)
        self._lock = threading.Lock()

    def image(
        self,
        doc_id: str,
        read: Callable[[], bytes],
        number: int,
        page_text: str = "",
        highlights: Sequence[tuple[int, int]] = (),
        marks: Sequence[tuple[int, int]] = (),
        scale: float = SCALE,
    ) -> PageImage:
        """Page ``number`` of the PDF ``read()`` returns (document version ``doc_id``), with ``highlights`` and
        ``marks`` (character spans of ``page_text``, the page's text as indexed) tinted. Raises ``PageError``."""
        key = (doc_id, number, scale, page_text, tuple(highlights), tuple(marks))
        with self._lock:
            known = self._images.get(key)
            if known is not None:
                return known
        plain = self._plain_page(doc_id, read, number, scale)
        pixels, drawn = plain.pixels, []
        if plain.raw and (highlights or marks):
            indices = plain.indices.get(page_text)
            if indices is None:
                indices = plain.indices[page_text] = text_indices(page_text, plain.raw)
            pixels = plain.pixels.copy()
            for spans, colour in ((highlights, HIGHLIGHT), (marks, MARK)):
                boxes = [
                    b
                    for first, n in char_runs(spans, indices)
                    for b in line_boxes(plain.boxes[first : first + n])
                ]
                _blend(pixels, boxes, colour)
                drawn += boxes
        rows = [(int(y0), int(y1) + 1) for _, y0, _, y1 in drawn]  # the bands to compress again
        png = plain.png.changed(pixels, rows) if drawn else plain.png.png
        height, width = pixels.shape[:2]
        made = PageImage(png, width, height, plain.pages, len(drawn), bool(plain.raw))
        with self._lock:
            self._images.put(key, made)
        return made

    def _plain_page(self, doc_id: str, read: Callable[[], bytes], number: int, scale: float) -> _Plain:
        key = (doc_id, number, scale)
        with self._lock:
            plain = self._plain.get(key)
            if plain is not None:
                return plain
        plain = _render(read(), number, scale)
        with self._lock:
            self._plain.put(key, plain)
        return plain
