"""Sections from the outline: PDF bookmarks through PDFium (whichever engine reads the text), Markdown headings;
the tree's groups follow them and every node carries its section title; files without one keep the
similarity grouping."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import FINANCE, PDFS

from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.loading import LoadedDocument, load_bytes, load_path
from drag_core.ingest.outline import OutlineEntry, markdown_outline, pdf_outline
from drag_core.ingest.pipeline import describe_tree
from drag_core.ingest.sections import Sections
from drag_core.ingest.tree import GROUP_MAX, GROUP_MIN, group_count, plan_section_groups, plan_tree

MANUALS = [PDFS / "asymptote.pdf", PDFS / "R-intro.pdf", PDFS / "developers-reference.pdf"]


def test_pdf_bookmarks_with_levels_and_pages() -> None:
    entries = pdf_outline((PDFS / "asymptote.pdf").read_bytes())
    assert len(entries) == 100 and {e.level for e in entries} == {0, 1, 2}
    assert entries[0] == OutlineEntry(0, "1 Description", 5)
    assert [e.page for e in entries] == sorted(e.page for e in entries), "in document order"
    preface = pdf_outline((PDFS / "R-intro.pdf").read_bytes())[0]
    assert (preface.title, preface.page) == ("Preface", 6), "0-based: the 7th page, printed page 1"


@pytest.mark.parametrize(
    "data", [(FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf").read_bytes(), b"%PDF-1.4 junk"]
)
def test_no_outline_is_no_sections(data: bytes) -> None:
    assert pdf_outline(data) == []


def test_the_outline_is_read_whichever_engine_reads_the_text() -> None:
    outlines = [load_path(PDFS / "R-data.pdf", pdf_engine=engine).outline for engine in ("pdfium", "pypdf")]
    assert outlines[0] == outlines[1] and len(outlines[0]) == 43


def test_markdown_headings_on_their_sections() -> None:
    text = "# Title\n\nintro\n\n```\n# not a heading\n```\nSetext\n------\n\nbody\n## Deep one ##\nend"
    assert markdown_outline(text, [0, text.index("Setext")]) == [
        OutlineEntry(0, "Title", 0),
        OutlineEntry(1, "Setext", 1),
        OutlineEntry(1, "Deep one", 1),
    ]
    body = "\n\n".join(f"## Step {i}\n\n" + f"Words about step {i}. " * 200 for i in range(6))
    document = load_bytes("guide.md", f"# Guide\n\n{body}".encode())
    assert [e.title for e in document.outline] == ["Guide"] + [f"Step {i}" for i in range(6)]
    for entry in document.outline:
        assert entry.title in document.pages[entry.page].text
    assert load_bytes("guide.txt", f"# Guide\n\n{body}".encode()).outline == (), "headings count in .md only"


def test_titles_of_pages_and_spans() -> None:
    entries = [
        OutlineEntry(0, "1 Intro", 1),
        OutlineEntry(0, "2 Paths", 3),
        OutlineEntry(1, "2.1 Curves", 4),
        OutlineEntry(2, "2.1.1 Bezier", 5),
        OutlineEntry(1, "2.2 Cycles", 6),
    ]
    sections = Sections(entries, 8)
    assert [sections.page_title(p) for p in range(8)] == [
        "",
        "1 Intro",
        "1 Intro",
        "2 Paths",
        "2 Paths › 2.1 Curves",
        "2.1 Curves › 2.1.1 Bezier",
        "2 Paths › 2.2 Cycles",
        "2 Paths › 2.2 Cycles",
    ]
    assert sections.span_title(3, 7) == "2 Paths: 2.1 Curves, 2.2 Cycles"
    assert sections.span_title(4, 5) == "2 Paths › 2.1 Curves"
    assert sections.span_title(0, 7) == "1 Intro, 2 Paths"
    assert [sections.boundary(p) for p in range(8)] == [0.0, 4.0, 0.0, 4.0, 2.0, 1.0, 2.0, 0.0]


def test_a_page_on_which_several_sections_start_is_titled_by_all_of_them() -> None:
    """Not by the last heading on it: a reference page holding four entries names the four."""
    entries = [
        OutlineEntry(0, "6 Programming", 1),
        OutlineEntry(1, "6.1 Paths", 2),
        OutlineEntry(1, "6.2 Pens", 2),
        OutlineEntry(1, "6.3 Transforms", 2),
        OutlineEntry(0, "7 Modules", 3),
        OutlineEntry(1, "7.1 graph", 3),
        OutlineEntry(2, "7.1.1 axes", 4),
    ]
    sections = Sections(entries, 6)
    assert [sections.page_title(p) for p in range(6)] == [
        "",
        "6 Programming",
        "6 Programming › 6.1 Paths · 6.2 Pens · 6.3 Transforms",
        "7 Modules · 7.1 graph",  # a chapter and its first section: nothing above them to share
        "7.1 graph › 7.1.1 axes",
        "7.1 graph › 7.1.1 axes",
    ]


def test_groups_cut_at_sections_and_merge_small_ones() -> None:
    flat = [0.5] * 11  # 12 nodes all alike
    assert plan_section_groups([0.0] * 11, flat) == [4, 4, 4]
    chapters = [0.0] * 11
    chapters[4] = chapters[8] = 4.0  # chapters start at nodes 5 and 9: 5 + 4 + 3
    assert plan_section_groups(chapters, flat) == [5, 4, 3]
    small = [2.0] * 11  # twelve one-node sections: runs of 3–5, no more groups than needed
    assert len(plan_section_groups(small, flat)) == group_count(12)


def _chapters_inside(document: LoadedDocument, outline: LoadedDocument) -> tuple[int, int]:
    starts = {e.page for e in outline.outline if e.level == 0 and e.page > 0}
    groups = plan_tree(document).levels[0]
    return sum(any(g.pages.start < s < g.pages.stop for g in groups) for s in starts), len(starts)


def test_manuals_are_grouped_by_their_chapters() -> None:
    inside_with = inside_without = chapters = 0
    for path in MANUALS:
        document = load_path(path)
        with_outline, chapters_here = _chapters_inside(document, document)
        inside_with += with_outline
        inside_without += _chapters_inside(replace(document, outline=()), document)[0]
        chapters += chapters_here
    assert chapters == 48
    assert inside_with <= inside_without / 2, (inside_with, inside_without)


def test_every_node_carries_its_section_title() -> None:
    document = load_path(PDFS / "asymptote.pdf")
    nodes = describe_tree(document, Describer(ExtractiveSummarizer(), DescriptionCache(None)))
    by_id = {n.id: n for n in nodes}
    assert nodes[-1].title.startswith("1 Description, 2 Installation")
    front = document.outline[0].page  # the cover and contents come before the first section
    assert all(not n.title for n in nodes if n.level == 0 and n.page_start <= front)
    assert all(n.title for n in nodes if n.page_start > front)
    page_41 = next(n for n in nodes if n.level == 0 and n.page_start == 41)
    assert page_41.title == "6 Programming › Paths and guides"
    parent = by_id[page_41.parent_id]
    assert "6 Programming" in parent.title
    for node in nodes:
        if node.child_ids and len([n for n in nodes if n.level == node.level - 1]) > 2:
            assert GROUP_MIN <= len(node.child_ids) <= GROUP_MAX


def test_without_an_outline_the_grouping_is_todays() -> None:
    document = load_path(FINANCE / "JOHNSON_JOHNSON_2022_10K.pdf")
    assert document.outline == ()
    plan = plan_tree(document)
    sizes, nodes = [len(level) for level in plan.levels], len(document.pages)
    for size in sizes:
        assert size == group_count(nodes), "the fewest groups that can hold the nodes"
        nodes = size
    assert all(not p.title for level in plan.levels for p in level) and not any(plan.page_titles)
