"""Writers of small PDFs for tests: text pages, image-only ("scanned") pages, encrypted and damaged files.

The text and image PDFs are written by hand (PDF 1.4, one Helvetica font, uncompressed streams) so each test
builds exactly the input it needs without any PDF-making dependency.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from pypdf import PdfReader, PdfWriter

PAGE_WIDTH, PAGE_HEIGHT = 612, 792
LINE_CHARS = 90


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _lines(text: str) -> list[str]:
    """``text`` wrapped at ``LINE_CHARS`` on spaces (a PDF text operator draws one line)."""
    lines: list[str] = []
    for paragraph in text.splitlines():
        line = ""
        for word in paragraph.split():
            if line and len(line) + 1 + len(word) > LINE_CHARS:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
    return lines


def _text_stream(text: str) -> bytes:
    shown = " T* ".join(f"({_escape(line)}) Tj" for line in _lines(text))
    return f"BT /F1 10 Tf 12 TL 50 {PAGE_HEIGHT - 60} Td {shown} ET".encode("latin-1")


def _image_stream() -> bytes:
    return f"q {PAGE_WIDTH - 100} 0 0 {PAGE_HEIGHT - 100} 50 50 cm /Im1 Do Q".encode()


def _write(contents: Sequence[bytes], with_image: bool) -> bytes:
    """A PDF with one page per content stream; pages share one font and (optionally) one grey image."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, filled in once the page object numbers are known
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    resources = "/Font << /F1 3 0 R >>"
    if with_image:
        pixels = bytes((x * 7 + y * 13) % 256 for y in range(32) for x in range(32))
        objects.append(
            b"<< /Type /XObject /Subtype /Image /Width 32 /Height 32 /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Length %d >>\nstream\n%s\nendstream" % (len(pixels), pixels)
        )
        resources += " /XObject << /Im1 4 0 R >>"
    kids = []
    for content in contents:
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {PAGE_WIDTH} {PAGE_HEIGHT}] "
            f"/Resources << {resources} >> /Contents {len(objects)} 0 R >>".encode()
        )
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def text_pdf(pages: Sequence[str]) -> bytes:
    """A PDF whose page i shows ``pages[i]`` (Latin-1 text, wrapped into lines)."""
    return _write([_text_stream(text) for text in pages], with_image=False)


def scanned_pdf(page_count: int = 3) -> bytes:
    """A PDF of image-only pages, like a scan without OCR: no extractable text at all."""
    return _write([_image_stream()] * page_count, with_image=True)


def encrypted_pdf(source: bytes, password: str = "secret") -> bytes:
    """``source`` encrypted (AES-256) with a real user password."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(source)))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def truncated(path: Path, fraction: float = 0.5) -> bytes:
    """The first ``fraction`` of a real file's bytes (an interrupted download)."""
    data = path.read_bytes()
    return data[: int(len(data) * fraction)]


def numbered_pages(count: int) -> list[str]:
    """``count`` cheap, distinct page texts (a few sentences each)."""
    return [
        f"Page {n} of the long report. Section {n // 10} covers topic {n % 7} and item {n * 13 % 101}. "
        f"The measurement for unit {n} was recorded in ledger {n % 11}."
        for n in range(1, count + 1)
    ]
