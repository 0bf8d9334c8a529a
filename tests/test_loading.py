"""Loading real PDFs and text files into pages."""

from __future__ import annotations

import io

import pytest
from conftest import FINANCE, PDFS
from pypdf import PdfReader, PdfWriter

from drag_core.config import DEFAULT_PDF_ENGINE, PDF_ENGINES, Settings
from drag_core.ingest.loading import SECTION_CHARS, LoadError, load_bytes, load_path, split_sections

engines = pytest.mark.parametrize("engine", PDF_ENGINES)


@engines
def test_pdf_pages_are_one_based_and_keep_text(engine: str) -> None:
    doc = load_path(FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf", pdf_engine=engine)
    assert [p.number for p in doc.pages] == list(range(1, 10))
    assert all(p.file_name == "AMCOR_2022_8K_dated-2022-07-01.pdf" for p in doc.pages)
    assert "SECURITIES AND EXCHANGE COMMISSION" in doc.pages[0].text
    assert len(doc.doc_id) == 32


@engines
def test_pages_without_text_are_kept_and_counted(engine: str) -> None:
    doc = load_path(PDFS / "live-manual.en.pdf", pdf_engine=engine)
    assert len(doc.pages) == 64
    assert 30 < doc.empty_pages < 64
    assert [p.number for p in doc.pages] == list(range(1, 65))


def _encrypted_copy(source: bytes, user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(source)))
    writer.encrypt(user_password=user_password, owner_password="owner", algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@engines
def test_aes_encrypted_pdf_with_empty_password_opens(engine: str) -> None:
    source = (FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf").read_bytes()
    plain = load_bytes("plain.pdf", source, pdf_engine=engine)
    encrypted = load_bytes("locked.pdf", _encrypted_copy(source, ""), pdf_engine=engine)
    assert [p.text for p in encrypted.pages] == [p.text for p in plain.pages]


@engines
def test_real_encrypted_filing_opens(engine: str) -> None:
    doc = load_path(FINANCE / "NETFLIX_2015_10K.pdf", pdf_engine=engine)
    assert len(doc.pages) == 72
    assert doc.empty_pages < 5
    assert any("Netflix" in p.text for p in doc.pages[:3])


def test_pdfium_keeps_the_spaces_pypdf_loses() -> None:
    """debian-reference.en.pdf places words without space characters: pypdf glues them together."""
    pages = {
        engine: load_path(PDFS / "debian-reference.en.pdf", pdf_engine=engine).pages[40].text
        for engine in PDF_ENGINES
    }
    sentence = "There are two methods of associating a file"
    assert sentence in pages["pdfium"]
    assert sentence.replace(" ", "") in pages["pypdf"].replace(" ", "")


def test_pdfium_gives_hyphens_as_hyphens() -> None:
    text = "\n".join(p.text for p in load_path(FINANCE / "AMCOR_2023Q2_10Q.pdf", pdf_engine="pdfium").pages)
    assert "\ufffe" not in text
    assert "non-controlling" in text.lower()


def test_the_pdf_engine_is_a_setting() -> None:
    assert Settings.from_env(env={}).pdf_engine == DEFAULT_PDF_ENGINE == "pdfium"
    assert Settings.from_env(env={"DRAG_PDF_ENGINE": "PyPDF"}).pdf_engine == "pypdf"
    with pytest.raises(ValueError, match="pdfium, pypdf"):
        Settings.from_env(env={"DRAG_PDF_ENGINE": "poppler"})
    with pytest.raises(ValueError, match="unknown PDF engine"):
        load_bytes("a.pdf", b"%PDF-1.7", pdf_engine="poppler")


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
