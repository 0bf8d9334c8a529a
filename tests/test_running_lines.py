"""Running headers and footers: recognised per document at ingest (both PDF engines, text with form feeds), left
out of what summaries, keywords and vectors read; the page text shown to people keeps them."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FINANCE, PDFS, SHARED

from drag_core.ingest.loading import load_bytes, load_path
from drag_core.ingest.running_lines import find_running_lines, line_key, page_bodies
from drag_core.ingest.tree import plan_tree
from drag_core.ingest.vector_text import leaf_text, titled
from drag_core.types import Node

DEV_DOCS = sorted((SHARED / "data" / "financebench-dev" / "docs").glob("*.pdf")) + sorted(
    (SHARED / "data" / "manuals-dev" / "docs").glob("*.pdf")
)
DEVREF_HEADER = "Debian Developer’s Reference, Release 12.18"


def _leaf(document, page, title: str) -> Node:
    return Node(
        0, -1, [], 0, document.doc_id, document.file_name, page.number, page.number, [], "", title=title
    )


@pytest.mark.parametrize("engine", ["pdfium", "pypdf"])
def test_a_manual_loses_its_running_header_and_page_numbers_in_the_body_only(engine: str) -> None:
    document = load_path(PDFS / "developers-reference.pdf", pdf_engine=engine)
    (line, pages), *_ = document.running_lines
    assert line_key(line) == line_key(DEVREF_HEADER) and pages >= 90
    assert document.page_numbers >= 100, "the footers '5.6. Uploading a package 33' go by their page numbers"
    headed = [
        page for page in document.pages if line_key(DEVREF_HEADER) in map(line_key, page.text.split("\n"))
    ]
    assert len(headed) >= 90, "the page text shown to people keeps the header"
    for page in headed:
        assert line_key(DEVREF_HEADER) not in map(line_key, page.body.split("\n")), page.number
    page = document.pages[40]
    assert page.text.splitlines()[0].strip().startswith("Debian Developer") and page.body != page.text
    assert set(page.body.split()) <= set(page.text.split()), "the body only leaves lines out"


@pytest.mark.parametrize("engine", ["pdfium", "pypdf"])
def test_a_filing_loses_its_letterhead_wherever_it_stands(engine: str) -> None:
    document = load_path(FINANCE / "JOHNSON_JOHNSON_2023_8K_dated-2023-08-30.pdf", pdf_engine=engine)
    recognised = {line_key(line): pages for line, pages in document.running_lines}
    assert recognised[line_key("Johnson & Johnson and Subsidiaries")] >= 15
    assert line_key("Reconciliation of Non-GAAP Financial Measures") in recognised
    for page in document.pages:
        assert not set(recognised) & {line_key(line) for line in page.body.split("\n") if line.strip()}


def test_both_engines_recognise_the_same_lines() -> None:
    lines = [
        {line_key(line) for line, _ in load_path(PDFS / "R-lang.pdf", pdf_engine=engine).running_lines}
        for engine in ("pdfium", "pypdf")
    ]
    assert lines[0] == lines[1] and lines[0]


def test_no_running_line_is_left_in_the_vectors_of_any_dev_document() -> None:
    """The target of issue 21 over the 22 development PDFs (PDFium; bench/running_lines.py adds pypdf)."""
    assert len(DEV_DOCS) == 22
    recognised = 0
    for path in DEV_DOCS:
        document = load_path(path)
        texts, bodies = [p.text for p in document.pages], [p.body for p in document.pages]
        found = find_running_lines(texts)
        assert page_bodies(texts, found) == bodies
        for page, title in zip(document.pages, plan_tree(document).page_titles):
            if page.body.strip():  # what the vectors read: the heading line, then the body
                leaf = _leaf(document, page, title)
                assert leaf_text(leaf, bodies, sparse=False) == titled(document.file_name, page.body)
                assert leaf_text(leaf, bodies, sparse=True) == titled(document.file_name, page.body, title)
        assert found.left_in(texts, bodies) == [], path.name
        recognised += len(found.left_in(texts, texts))
    assert recognised > 2000, "the page texts do hold them"


def test_text_with_form_feeds_is_paged_and_loses_its_running_lines() -> None:
    pdf = load_path(PDFS / "asymptote.pdf")
    text = "\f".join(page.text for page in pdf.pages) + "\f"  # pdftotext ends every page with a form feed
    document = load_bytes("asymptote.txt", text.encode())
    assert len(document.pages) == len(pdf.pages)
    assert document.running_lines == pdf.running_lines and document.page_numbers == pdf.page_numbers
    assert [p.body for p in document.pages] == [p.body for p in pdf.pages]
    assert [p.text for p in document.pages] == [p.text for p in pdf.pages]


def test_text_without_pages_keeps_every_line() -> None:
    readme = Path(__file__).resolve().parents[1] / "README.md"
    document = load_bytes("README.md", readme.read_bytes())
    assert document.running_lines == () and document.page_numbers == 0
    assert all(page.body == page.text for page in document.pages)
    two = load_bytes("two.txt", b"Page one says hello.\n1\fPage two says goodbye.\n2")
    assert len(two.pages) == 1, "fewer than 3 pages between form feeds: cut into sections as any text"


def test_repeated_lines_inside_a_page_and_page_numbers_in_a_sentence_stay() -> None:
    topics = ["rivers", "lakes", "stars", "planets", "bread", "butter", "trains", "tracks"]
    content = "Section {i} text about {topic}. See also page {n}.\nTip\nThat is all about {topic}."
    bodies = [content.format(i=i, topic=topic, n=i + 3) for i, topic in enumerate(topics)]
    pages = [f"Annual Report 2023\n{body}\n- {i + 1} -" for i, body in enumerate(bodies)]
    found = find_running_lines(pages)
    assert found.listed() == [("Annual Report 2023", 8), ("- N -", 8)]
    assert page_bodies(pages, found) == bodies, "a repeated line in mid-page is content"
