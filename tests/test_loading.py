"""Loading real PDFs and text files into pages."""

from __future__ import annotations

import io

import pytest
from conftest import FINANCE, PDFS
from pypdf import PdfReader, PdfWriter

from drag_core.loading import SECTION_CHARS, LoadError, load_bytes, load_path, split_sections


def test_pdf_pages_are_one_based_and_keep_text() -> None:
    doc = load_path(FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf")
    assert [p.number for p in doc.pages] == list(range(1, 10))
    assert all(p.file_name == "AMCOR_2022_8K_dated-2022-07-01.pdf" for p in doc.pages)
    assert "SECURITIES AND EXCHANGE COMMISSION" in doc.pages[0].text
    assert len(doc.doc_id) == 32


def test_pages_without_text_are_kept_and_counted() -> None:
    doc = load_path(PDFS / "live-manual.en.pdf")
    assert len(doc.pages) == 64
    assert 30 < doc.empty_pages < 64
    assert [p.number for p in doc.pages] == list(range(1, 65))


def _encrypted_copy(source: bytes, user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(source)))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_aes_encrypted_pdf_with_empty_password_opens() -> None:
    source = (FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf").read_bytes()
    plain = load_bytes("plain.pdf", source)
    encrypted = load_bytes("locked.pdf", _encrypted_copy(source, ""))
    assert [p.text for p in encrypted.pages] == [p.text for p in plain.pages]


def test_real_encrypted_filing_opens() -> None:
    doc = load_path(FINANCE / "NETFLIX_2015_10K.pdf")
    assert len(doc.pages) == 72
    assert doc.empty_pages < 5
    assert any("Netflix" in p.text for p in doc.pages[:3])


def test_markdown_splits_at_headings_and_stays_under_the_section_size() -> None:
    parts = [f"# Part {i}\n\n" + f"Some sentence about topic {i}. " * 60 for i in range(6)]
    doc = load_bytes("notes.md", "\n\n".join(parts).encode())
    assert all(len(p.text) <= SECTION_CHARS for p in doc.pages)
    assert all(p.text.startswith("# Part") for p in doc.pages[1:])
    assert sum(p.text.count("# Part") for p in doc.pages) == 6


def test_text_without_breaks_is_cut_at_spaces() -> None:
    text = " ".join(f"word{i}" for i in range(3000))
    sections = split_sections(text)
    assert all(len(s) <= SECTION_CHARS for s in sections)
    assert " ".join(sections).split() == text.split()


def test_unsupported_type_is_refused_with_a_reason() -> None:
    with pytest.raises(LoadError, match="unsupported file type"):
        load_bytes("table.xlsx", b"PK\x03\x04")
