"""Extractive summaries that read as prose: code, tables, list debris and headings are never quoted; a parent's
summary reads as a table of contents (its sections by name, then prose that characterises the part; the root
says what the document is); PDFium's soft hyphens are resolved against the document's words."""

from __future__ import annotations

import re

import pytest
from conftest import FINANCE, PDFS

from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import MIN_SUMMARY_WORDS, ExtractiveSummarizer, characterises
from drag_core.ingest.describe.prose import LineKind, classify_line, is_prose, split_sentences
from drag_core.ingest.loading import load_path
from drag_core.ingest.pdf_text import PDFIUM_HYPHEN, resolve_soft_hyphens
from drag_core.ingest.pipeline import describe_tree
from drag_core.ingest.running_lines import line_key


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("int n=30; real a=1.5; real width=2a/n;", LineKind.CODE),
        ("> plot(x, y)", LineKind.CODE),
        ("bool interior(int n, pen p)", LineKind.CODE),
        ("Net cash provided by operating activities 145 323", LineKind.TABLE),
        ("$ 17,606 $ 15,785 $ 12,868", LineKind.TABLE),
        ("6.2 Paths and guides . . . . . . . . . . . . 37", LineKind.LEADER),
        ("•", LineKind.DEBRIS),
        ("Consolidated Balance Sheets", LineKind.HEADING),
        ("The most recent value in the history will be used to provide a default value.", LineKind.PROSE),
    ],
)
def test_lines_are_told_apart(line: str, kind: LineKind) -> None:
    assert classify_line(line) is kind


def test_sentences_split_at_ends_not_at_abbreviations() -> None:
    text = "Use e.g. the pen. Prof. Knuth wrote it, cf. Fig. 3. It works."
    assert split_sentences(text) == ["Use e.g. the pen.", "Prof. Knuth wrote it, cf. Fig. 3.", "It works."]
    assert not is_prose("real xpart(pair z) returns z.x; real ypart(pair z);")
    assert not is_prose("Revenue 2022 2021 1,234 5,678 grew.")
    assert is_prose("One way to fit a nonlinear model is by minimizing the sum of the squared errors.")


def _tree(path):
    document = load_path(path)
    return document, describe_tree(document, Describer(ExtractiveSummarizer(), DescriptionCache(None)))


def test_summaries_quote_prose_and_no_running_header() -> None:
    quoted = prose = 0
    for path in (PDFS / "asymptote.pdf", PDFS / "R-intro.pdf", FINANCE / "AMCOR_2023Q2_10Q.pdf"):
        document, nodes = _tree(path)
        recognised = {line_key(line) for line, _ in document.running_lines if any(c.isalpha() for c in line)}
        for node in nodes:
            if node.level:
                continue  # a parent's first sentence is its contents line (test_parents_read_as_contents)
            sentences = split_sentences(node.summary)
            quoted += len(sentences)
            prose += sum(is_prose(s) for s in sentences)
            assert not any(key in line_key(node.summary) for key in recognised if len(key) > 12), node.summary
            kinds = {classify_line(s) for s in sentences}
            assert not kinds & {LineKind.CODE, LineKind.DEBRIS, LineKind.LEADER}, node.summary
    assert prose >= 0.9 * quoted, "the rest name what a page without prose holds"


def test_a_code_page_is_summarised_by_its_prose() -> None:
    document, nodes = _tree(PDFS / "asymptote.pdf")
    page = next(n for n in nodes if n.level == 0 and n.page_start == 42)
    assert "int n=30" in document.pages[41].text
    assert page.summary and "=" not in page.summary and "Chapter 6" not in page.summary


def test_a_table_page_is_named_by_its_headings() -> None:
    document, nodes = _tree(FINANCE / "AMCOR_2023Q2_10Q.pdf")
    tables = [n for n in nodes if n.level == 0 and "— table." in n.summary]
    assert len(tables) >= 10, "statements pages say what they hold"
    for node in tables:
        label = node.summary.split(" — table.")[0]
        assert all(classify_line(part) is not LineKind.TABLE for part in label.split("; ")), label
    assert "Condensed Consolidated Balance Sheets" in next(n.summary for n in tables if n.page_start == 7)


def _sections_of(document, node) -> set[str]:
    """Outline titles of the sections a node is in on its first page (every level) or that start on its pages."""
    first, last = node.page_start - 1, node.page_end - 1
    path: list = []
    for entry in document.outline:
        if entry.page > first:
            break
        path = [e for e in path if e.level < entry.level] + [entry]
    return {e.title for e in path} | {e.title for e in document.outline if first < e.page <= last}


@pytest.mark.parametrize("name", ["R-FAQ.pdf", "R-lang.pdf"])
def test_parents_read_as_contents(name: str) -> None:
    document, nodes = _tree(PDFS / name)
    by_id = {n.id: n for n in nodes}
    for parent in (n for n in nodes[:-1] if n.level):
        sections = set().union(*(_sections_of(document, by_id[c]) for c in parent.child_ids))
        first, *prose = split_sentences(parent.summary)
        if sections:
            assert any(title in first for title in sections), parent.summary
        else:
            assert first == "Front matter, before the first section.", parent.summary
        pages = document.pages[parent.page_start - 1 : parent.page_end]
        bodies = " ".join(" ".join(page.body.split()) for page in pages)
        rest = parent.summary[len(first) :]
        assert all(characterises(s) for s in prose), parent.summary
        assert all(piece in bodies for piece in re.split(r"(?<=[.!?])\s+", rest.strip()) if piece), rest
    chapters = [e.title for e in document.outline if e.level == 0]
    root = nodes[-1].summary
    assert root.startswith(
        f"{document.pages[0].body.splitlines()[0]}, a manual of {len(document.pages)} pages."
    )
    assert f"Contents: {chapters[0]}, {chapters[1]}," in root


def test_characterising_sentences_are_plain_prose() -> None:
    assert characterises("The path is drawn with the current pen unless another pen is given.")
    for sentence in (
        "See https://cran.r-project.org for the sources of every package there.",
        "The options are described on page 42 of the reference manual here.",
        "Call draw(p) to draw the path p with the default pen and no arrows.",
        "The values 1, 2, 3 and 4 are accepted for the level of detail shown.",
        "The function package.skeleton sets up the directories for a new package.",
        "the sentence starts in lower case because it was cut from a longer one.",
    ):
        assert not characterises(sentence), sentence


def test_no_outline_parents_name_their_pages_and_keywords() -> None:
    _, nodes = _tree(FINANCE / "AMCOR_2023Q2_10Q.pdf")
    for parent in (n for n in nodes if n.level and n is not nodes[-1]):
        assert parent.summary.startswith(f"Pages {parent.page_start}–{parent.page_end} on "), parent.summary
        assert parent.keywords[0] in parent.summary.split(".")[0], parent.summary
    assert nodes[-1].summary.startswith("AMCOR_2023Q2_10Q.pdf, a quarterly report on Form 10-Q of ")


def test_every_summary_has_at_least_four_words() -> None:
    for path in (PDFS / "R-data.pdf", FINANCE / "AMCOR_2023Q2_10Q.pdf"):
        _, nodes = _tree(path)
        short = [n.summary for n in nodes if len(n.summary.split()) < MIN_SUMMARY_WORDS]
        assert not short, short


def test_soft_hyphens_join_known_words_and_keep_others() -> None:
    pages = [f"ac{PDFIUM_HYPHEN}cording to the S{PDFIUM_HYPHEN}Plus manual", "according to plan"]
    assert resolve_soft_hyphens(pages) == ["according to the S-Plus manual", "according to plan"]
    document = load_path(PDFS / "R-intro.pdf")
    text = "\n".join(page.text for page in document.pages)
    assert PDFIUM_HYPHEN not in text and "pack-ages" not in text and "re-spectively" not in text
    assert "S-Plus" in text
