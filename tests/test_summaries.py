"""Extractive summaries that read as prose: code, tables, list debris and headings are never quoted; a parent's
summary covers its children; PDFium's soft hyphens are resolved against the document's words."""

from __future__ import annotations

import pytest
from conftest import FINANCE, PDFS

from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer, group_summary
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


def test_a_parent_summary_covers_its_children() -> None:
    _, nodes = _tree(PDFS / "R-intro.pdf")
    by_id = {n.id: n for n in nodes}
    covered, from_first = [], []
    for parent in (n for n in nodes if n.child_ids):
        children = [by_id[c] for c in parent.child_ids]
        sentences = split_sentences(parent.summary)
        quoting = {i for i, child in enumerate(children) for s in sentences if s and s in child.summary}
        covered.append(len(quoting) / min(len(children), 5))
        from_first.append(sum(s in children[0].summary for s in sentences) / max(1, len(sentences)))
    assert sum(covered) / len(covered) > 0.8, "most children are quoted"
    assert sum(from_first) / len(from_first) < 0.4, "not the first child's sentences"


def test_group_summary_takes_each_childs_best_sentence_in_order() -> None:
    children = [
        "Rivers carry water to the sea over long distances. Net sales 1,234 5,678 9,012 were reported.",
        "Glaciers move slowly down the valleys of the mountains.",
        "Orchards grow apples and pears in the warm valleys.",
    ]
    summary = group_summary(children, ["valleys"])
    assert split_sentences(summary) == [
        "Rivers carry water to the sea over long distances.",
        "Glaciers move slowly down the valleys of the mountains.",
        "Orchards grow apples and pears in the warm valleys.",
    ]
    many = [f"Part {word} tells the story of the {word} in several long sentences." for word in "abcdefghi"]
    assert len(split_sentences(group_summary(many, []))) == 5, "at most five"


def test_soft_hyphens_join_known_words_and_keep_others() -> None:
    pages = [f"ac{PDFIUM_HYPHEN}cording to the S{PDFIUM_HYPHEN}Plus manual", "according to plan"]
    assert resolve_soft_hyphens(pages) == ["according to the S-Plus manual", "according to plan"]
    document = load_path(PDFS / "R-intro.pdf")
    text = "\n".join(page.text for page in document.pages)
    assert PDFIUM_HYPHEN not in text and "pack-ages" not in text and "re-spectively" not in text
    assert "S-Plus" in text
