"""Showing the evidence, on real PDFs: page text ↔ PDFium characters (both engines), a page rendered with its
snippet highlighted (a real PNG whose highlighted pixels are tinted), the render cache, every bad input as a
one-line message, the units and the BM25 snippets (checked against ``bm25s``), the extractive answer, the page
viewer over a real index, and the originals the store keeps."""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from conftest import FINANCE, PDFS
from pdf_factory import encrypted_pdf, text_pdf, truncated

from drag_core.engine import Engine
from drag_core.evidence import PageError, PageImages, extract_answer, page_units, snippet
from drag_core.evidence.align import char_map, char_runs, text_indices
from drag_core.evidence.render import NO_TEXT_LAYER
from drag_core.evidence.snippets import SnippetMemo, bm25_scores, node_snippets, terms
from drag_core.evidence.view import NOT_KEPT, view_page
from drag_core.ingest.clean_text import SPACING_ACCENTS, clean_text
from drag_core.ingest.pdf_text import PDFIUM_HYPHEN, pdf_pages
from drag_core.ingest.units import unit_spans, units_at
from drag_core.types import Node

ULTA = FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf"
ADOBE = FINANCE / "ADOBE_2022_10K.pdf"
LIVE = PDFS / "live-manual.en.pdf"  # page 11 (and 41 others) is an image without a text layer
QUERY = "What was net sales growth in the fourth quarter?"


def png_pixels(data: bytes) -> np.ndarray:
    """Decode a PNG written by ``evidence.png`` (8-bit RGB, filter 0) back into pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks[kind] = chunks.get(kind, b"") + body
        position += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour) == (8, 2)
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), dtype=np.uint8).reshape(height, width * 3 + 1)
    assert not rows[:, 0].any(), "filter 0 on every row"
    return rows[:, 1:].reshape(height, width, 3)


def raw_texts(path: Path) -> list[str]:
    document = pdfium.PdfDocument(path.read_bytes())
    try:
        texts = []
        for page in document:
            text_page = page.get_textpage()
            texts.append(text_page.get_text_range())
            text_page.close()
            page.close()
        return texts
    finally:
        document.close()


#: Characters that start a clean-up spanning characters: a soft hyphen to join (PDFium's or Unicode's), a TeX
#: accent to join to its letter, a combining mark to join or drop.
SPANNING = {PDFIUM_HYPHEN, "\u00ad", *SPACING_ACCENTS, *map(chr, range(0x300, 0x370))}


@pytest.mark.parametrize("path", [ULTA, ADOBE, PDFS / "R-intro.pdf", LIVE])
def test_every_character_of_the_page_text_the_index_holds_has_its_pdfium_character(path: Path) -> None:
    texts = pdf_pages(path.read_bytes(), 3000)
    for raw, text in zip(raw_texts(path), texts, strict=True):
        mapped, index = char_map(raw)
        assert len(index) == len(mapped) and index == sorted(index) and all(i < len(raw) for i in index)
        if not SPANNING.intersection(raw):  # no clean-up rule that spans characters can apply
            assert mapped == text
        found = text_indices(text, raw)
        visible = [i for i, ch in enumerate(text) if not ch.isspace() and ch != "-"]
        # each visible character comes from its PDFium character, cleaned (NFKC: "ﬁ" gives "f" and "i"); one
        # that a rule spanning characters made ("ç" of "¸c") has none, and is boxed between its neighbours
        partnered = [i for i in visible if found[i] >= 0]
        assert all(text[i] in clean_text(raw[found[i]]) for i in partnered)  # a scanned page has none
        assert len(partnered) == len(visible) or (
            SPANNING.intersection(raw) and len(visible) - len(partnered) <= 0.01 * len(visible)
        )
        visible = partnered
        assert [found[i] for i in visible] == sorted(found[i] for i in visible)


def test_spans_of_pypdf_text_reach_the_same_words_on_the_page() -> None:
    pdfium_texts = raw_texts(ULTA)
    pypdf_texts = pdf_pages(ULTA.read_bytes(), 3000, engine="pypdf")
    checked = 0
    for raw, text in zip(pdfium_texts, pypdf_texts, strict=True):
        indices = text_indices(text, raw)
        for unit in page_units(text)[:20]:
            ((first, count),) = char_runs([(unit.start, unit.end)], indices)
            on_page = "".join(raw[first : first + count].split()).replace("-", "")
            wanted = "".join(text[unit.start : unit.end].split()).replace("-", "")
            assert on_page[:10] == wanted[:10] and on_page[-6:] == wanted[-6:], (wanted, on_page)
            checked += 1
    assert checked > 50


def test_a_page_is_rendered_with_its_snippet_highlighted_and_remembered() -> None:
    data = ULTA.read_bytes()
    text = pdf_pages(data, 3000)[1]
    found = snippet(QUERY, text)
    assert found.units and all(
        text[a:b].lower() in ("net", "sales", "fourth", "quarter", "growth") for a, b in found.marks
    )
    images = PageImages()
    reads: list[int] = []

    def read() -> bytes:
        reads.append(1)
        return data

    plain = png_pixels(images.image("ulta", read, 2).png)
    shown = images.image("ulta", read, 2, text, found.highlights, found.marks)
    pixels = png_pixels(shown.png)
    assert (shown.width, shown.height, shown.pages, shown.has_text) == (918, 1188, 9, True)
    assert shown.boxes >= len(found.units)
    changed = np.any(pixels != plain, axis=2)
    assert 0.005 < changed.mean() < 0.25, "the snippet's lines are tinted, not the page"
    tinted = pixels[changed].astype(int)
    assert (tinted[:, 2] < tinted[:, 0]).mean() > 0.9, "a yellow marker: less blue than red"
    assert len(reads) == 1, "the second image of the page reused the render"
    from PIL import Image  # fastembed's dependency: an independent decoder of the banded PNG

    assert np.array_equal(np.asarray(Image.open(io.BytesIO(shown.png)).convert("RGB")), pixels)
    assert images.image("ulta", read, 2, text, found.highlights, found.marks) is shown


def test_a_scanned_page_renders_with_a_note_and_no_boxes() -> None:
    shown = PageImages().image("live", LIVE.read_bytes, 11, "", [(0, 10)])
    assert not shown.has_text and shown.boxes == 0 and shown.note == NO_TEXT_LAYER
    assert png_pixels(shown.png).std() > 5, "the scan itself is drawn"


@pytest.mark.parametrize(
    ("data", "page", "message"),
    [
        (lambda: ULTA.read_bytes(), 0, "page 0 does not exist: the document has 9 pages"),
        (lambda: ULTA.read_bytes(), 10, "page 10 does not exist: the document has 9 pages"),
        (lambda: encrypted_pdf(text_pdf(["secret page"])), 1, "the PDF is protected by a password"),
        (lambda: truncated(ULTA, 0.3), 1, "the PDF is damaged and its pages cannot be shown"),
        (lambda: b"%PDF-1.7 not really", 1, "the PDF is damaged"),
        (lambda: b"just text", 1, "the file is not a PDF"),
    ],
)
def test_bad_pages_are_one_line_messages(data: Callable[[], bytes], page: int, message: str) -> None:
    with pytest.raises(PageError) as raised:
        PageImages().image("x", data, page)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)


def test_units_point_at_their_text_and_cover_tables_and_sentences() -> None:
    text = pdf_pages(ADOBE.read_bytes(), 3000)[53]  # the income statement
    units = page_units(text)
    assert any(not u.prose and u.text.startswith("Total revenue 17,606") for u in units), "a table row"
    for unit in units:
        assert (
            " ".join(text[unit.start : unit.end].split()) == unit.text or "-" in text[unit.start : unit.end]
        )
    prose = page_units("First sentence here, e.g. with an abbreviation. Second one follows\nover a line.\n")
    assert [u.text for u in prose] == [
        "First sentence here, e.g. with an abbreviation.",
        "Second one follows over a line.",
    ]


@pytest.mark.parametrize("path", [ADOBE, PDFS / "R-intro.pdf"])
def test_units_stored_at_ingest_are_the_units_a_fresh_cut_makes(path: Path) -> None:
    texts = [t for t in pdf_pages(path.read_bytes(), 3000) if t.strip()]
    questions = (QUERY, "How do I read a data frame from a file?", "total revenue and operating income")
    for text in texts:
        cut = page_units(text)
        stored = tuple(unit_spans(cut))
        assert len(stored) == 3 * len(cut) and units_at(text, list(stored)) == cut
        for question in questions:
            assert snippet(question, text, stored) == snippet(question, text)


def test_the_snippet_is_the_best_units_in_reading_order() -> None:
    text = (
        "The weather was pleasant all week long in the valley.\n\n"
        "Net sales grew 16.6% in the fourth quarter, driven by strong demand.\n\n"
        "Our stores opened new locations across the region this spring.\n"
    )
    found = snippet(QUERY, text)
    assert found.text == "Net sales grew 16.6% in the fourth quarter, driven by strong demand."
    assert [text[a:b] for a, b in found.marks] == ["Net", "sales", "fourth", "quarter"]
    assert found.highlights == [(text.index("Net"), text.index("demand.") + len("demand."))]
    assert snippet("zebra migration", text).units == ()


def test_bm25_scores_agree_with_bm25s() -> None:
    """``bm25s`` (Lucene's BM25) leaves out the classic (k1 + 1) numerator the index's BM25 keeps."""
    import bm25s

    units = page_units(pdf_pages(ULTA.read_bytes(), 3000)[1])
    documents = [terms(u.text) for u in units]
    query = list(dict.fromkeys(terms(QUERY)))
    reference = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    reference.index(documents, show_progress=False)
    expected = reference.get_scores(query)
    assert np.count_nonzero(expected) > 3
    assert np.allclose(bm25_scores(query, documents), 2.2 * expected, rtol=1e-4)


def test_the_extractive_answer_cites_the_pages_it_quotes() -> None:
    texts = pdf_pages(ULTA.read_bytes(), 3000)
    pages = [Node(i, -1, [], 0, "d", ULTA.name, i, i, [], "", text=texts[i - 1]) for i in (1, 2, 3)]
    extracts = extract_answer(QUERY, pages)
    assert 1 <= len(extracts) <= 3
    scores = [e.score for e in extracts]
    assert scores == sorted(scores, reverse=True)
    for e in extracts:
        assert e.citation == f"[{ULTA.name} p.{e.page}]"
        assert " ".join(texts[e.page - 1][e.start : e.end].split()) == e.text
    assert extract_answer("zebra migration", pages) == []


def test_no_extracted_sentence_starts_inside_a_reference() -> None:
    """A page break inside "(see page 225–226)" leaves a unit "226) lie within …": never quoted as a sentence;
    a numbered step of a list is quoted."""
    text = (
        "The points of the plot region are clipped to the frame (see the section on page 225–\n\n"
        "226) lie within the frame when the plot region is clipped to the frame of the device.\n\n"
        "1) Clip the plot region to the frame with the clip option of the device.\n"
    )
    units = page_units(text)
    assert [u.fragment for u in units] == [False, True, False], [u.text for u in units]
    page = Node(1, -1, [], 0, "d", "m.pdf", 1, 1, [], "", text=text)
    quoted = [
        e.text for e in extract_answer("which points lie within the frame when the region is clipped", [page])
    ]
    assert quoted and not any(q.startswith("226)") for q in quoted), quoted


def test_a_parent_gets_the_snippet_of_its_best_page() -> None:
    texts = [
        "Nothing to see on this page at all, really.",
        "Net sales grew in the fourth quarter of the year.",
    ]
    pages = [Node(10 + i, 9, [], 0, "d", "f.pdf", i + 1, i + 1, [], "", text=t) for i, t in enumerate(texts)]
    parent = Node(9, -1, [10, 11], 1, "d", "f.pdf", 1, 2, [], "")
    memo = SnippetMemo()
    found = node_snippets(QUERY, [parent, pages[0]], pages, memo)
    assert found[9][0].page_start == 2 and "fourth quarter" in found[9][1].text
    assert found[10][1].units == ()
    assert set(memo.snippets) == {(QUERY, 10), (QUERY, 11)}, "each page cut once"


def test_the_page_viewer_over_an_index(make_engine: Callable[..., Engine], tmp_path: Path) -> None:
    engine = make_engine(store=str(tmp_path / "qdrant"))
    notes = tmp_path / "notes.md"
    notes.write_text("# Results\n\nNet sales grew in the fourth quarter.\n\nThe weather was fine.\n")
    assert all(r.ok for r in engine.ingest_paths([ULTA, notes]))
    for number in range(1, 10):  # every page keeps the units it was cut into at ingest, through the store
        page = engine.page(ULTA.name, number)
        assert page.units == unit_spans(page_units(page.text)) and (page.units or not page.text.strip())
    images = PageImages()
    shown = view_page(engine, images, ULTA.name, 2, QUERY)
    assert shown.image is not None and shown.image.boxes and shown.note == ""
    assert shown.pages == 9 and shown.text == engine.page(ULTA.name, 2).text
    text = view_page(engine, images, notes.name, 1, QUERY)
    assert text.image is None and text.snippet.text == "Net sales grew in the fourth quarter."
    for name, page, message in (
        (ULTA.name, 10, "page 10 does not exist"),
        ("gone.pdf", 1, "gone.pdf is not indexed"),
    ):
        with pytest.raises(PageError, match=message):
            view_page(engine, images, name, page, QUERY)
    doc_id = engine.document(ULTA.name).doc_id
    kept = engine.originals.path(doc_id)
    assert kept is not None
    kept.write_bytes(truncated(ULTA, 0.3))  # the copy damaged on disk
    damaged = view_page(engine, PageImages(), ULTA.name, 2, QUERY)
    assert damaged.image is None and damaged.snippet.units and damaged.text
    assert damaged.note.startswith("the PDF is damaged") and damaged.note.endswith(
        "its text is shown instead"
    )
    engine.originals.remove(doc_id)
    kept_away = view_page(engine, PageImages(), ULTA.name, 2, QUERY)
    assert kept_away.image is None and kept_away.note == NOT_KEPT and kept_away.snippet.units


def test_the_store_keeps_each_original_until_its_last_document_goes(
    make_engine: Callable[..., Engine], tmp_path: Path
) -> None:
    engine = make_engine(store=str(tmp_path / "qdrant"))
    twin = tmp_path / "twin.pdf"
    twin.write_bytes(ULTA.read_bytes())
    assert all(r.ok for r in engine.ingest_paths([ULTA]))
    assert engine.ingest_bytes(twin.name, twin.read_bytes()).ok
    doc_id = engine.document(ULTA.name).doc_id
    assert engine.original(doc_id) == ULTA.read_bytes()
    assert [p.name for p in (tmp_path / "qdrant" / "originals").iterdir()] == [doc_id], "one copy per content"
    engine.remove(ULTA.name)
    assert engine.original(doc_id) is not None, "twin.pdf still holds these bytes"
    engine.remove(twin.name)
    assert engine.original(doc_id) is None and not list((tmp_path / "qdrant" / "originals").iterdir())
    memory = make_engine()  # a throw-away index keeps them in memory
    assert memory.ingest_bytes(ULTA.name, ULTA.read_bytes()).ok
    assert memory.original(doc_id) == ULTA.read_bytes()
