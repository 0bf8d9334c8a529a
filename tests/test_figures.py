"""``drag_core.app.figures``: figures and rows from real trees and search results, and document text kept inert."""

from __future__ import annotations

import html
import json

import pytest

from drag_core.app.compare import Comparer, Comparison
from drag_core.app.figures.cards import cards_html
from drag_core.app.figures.overlap import overlap_figure
from drag_core.app.figures.style import node_label, snippet, titled_label
from drag_core.app.figures.tree import MARKS, node_marks, selected_node_id, tree_figure
from drag_core.engine import Engine
from drag_core.search import SearchParams
from drag_core.search.base import Step, StepKind
from drag_core.search.explain import step_title
from drag_core.store import Candidate
from drag_core.text import counted, page_span
from drag_core.types import Node

QUERY = "What was net sales growth in the fourth quarter?"


@pytest.fixture(scope="module")
def comparison(small_engine: Engine) -> Comparison:
    strategies = ["flat", "flat-knee", "branch", "beam", "adaptive"]
    return Comparer().compare(small_engine, QUERY, strategies, SearchParams())


@pytest.fixture(scope="module")
def tree(small_engine: Engine) -> list[Node]:
    document = next(d for d in small_engine.documents() if d.pages > 5)
    return small_engine.tree(document.file_name)


def _node(node_id: int, level: int, start: int, end: int, summary: str = "", **extra: object) -> Node:
    return Node(
        node_id,
        extra.pop("parent_id", 0),
        list(extra.pop("child_ids", [])),
        level,
        "d",
        "f.pdf",
        start,
        end,
        list(extra.pop("keywords", [])),
        summary,
    )


def _bars(figure) -> list:
    """The node bars (not the outline of the selected node)."""
    return [trace for trace in figure.data if trace.type == "bar" and trace.name != "selected"]


def test_tree_figure_draws_every_node_once_over_its_pages(tree: list[Node]) -> None:
    figure = tree_figure(tree)
    ids = [i for bar in _bars(figure) for i in bar.customdata]
    assert sorted(ids) == sorted(n.id for n in tree)
    by_id = {n.id: n for n in tree}
    for bar in _bars(figure):
        for node_id, base, width, level in zip(bar.customdata, bar.base, bar.x, bar.y, strict=True):
            node = by_id[node_id]
            assert (base + 0.5, base + width - 0.5) == (node.page_start, node.page_end)
            assert level == f"L{node.level}"
    root_level = max(n.level for n in tree)
    assert list(figure.layout.yaxis.categoryarray) == [f"L{i}" for i in range(root_level + 1)]


def test_tree_figure_colours_what_a_search_did_and_outlines_the_selection(
    tree: list[Node], comparison: Comparison
) -> None:
    result = comparison.runs["beam"].result
    marks = node_marks(result)
    assert {n.id for n in result.nodes} == {i for i, m in marks.items() if m == "final"}
    kept = {i for s in result.trace for i in s.kept} - {n.id for n in result.nodes}
    assert kept == {i for i, m in marks.items() if m == "kept"}
    root = tree[-1]
    figure = tree_figure(tree, marks, selected=root.id)
    legends = {bar.name: set(bar.customdata) for bar in _bars(figure)}
    in_tree = {n.id for n in tree}
    for mark, (legend, _) in MARKS.items():
        expected = {i for i in in_tree if marks.get(i, "other") == mark}
        assert legends.get(legend, set()) == expected, mark
    outline = figure.data[-1]
    assert outline.name == "selected" and list(outline.customdata) == [root.id]
    assert (outline.base[0] + 0.5, outline.x[0]) == (root.page_start, len(root.pages))
    assert not [t for t in tree_figure(tree, marks).data if t.name == "selected"]


def test_document_text_is_escaped_in_figures() -> None:
    hostile = '<a href="https://evil.example">click</a> <img src=x onerror=alert(1)>'
    node = _node(1, 0, 1, 1, summary=hostile, parent_id=-1, keywords=["<b>bold</b>"])
    hover = tree_figure([node]).data[0].hovertext[0]
    assert "<a" not in hover and "<img" not in hover and "<b>bold" not in hover
    assert "&lt;a href=" in hover and "&lt;b&gt;bold" in hover


def test_overlap_figure_is_symmetric_with_a_unit_diagonal(comparison: Comparison) -> None:
    heatmap = overlap_figure(comparison).data[0]
    z = [list(row) for row in heatmap.z]
    n = len(comparison.runs)
    assert len(z) == n and all(z[i][i] == 1.0 for i in range(n))
    assert all(z[i][j] == z[j][i] for i in range(n) for j in range(n))


def test_one_page_is_one_page_in_the_overlap_and_the_cards(small_engine: Engine) -> None:
    one = Comparer().compare(small_engine, QUERY, ["flat", "flat-dense"], SearchParams(top_k=1))
    diagonal = overlap_figure(one).data[0].text
    assert [diagonal[i][i] for i in range(2)] == ["1.00<br>1 page"] * 2
    card = cards_html(one, 2, 100, 50)
    assert card.count("<b>1</b> node · <b>1</b> page<br>") == 2 and "pages<br>" not in card


def test_counts_read_in_the_right_number() -> None:
    assert [counted(n, "page") for n in (0, 1, 2, 1200)] == ["0 pages", "1 page", "2 pages", "1,200 pages"]
    assert counted(1, "leaf", "leaves") == "1 leaf" and counted(3, "leaf", "leaves") == "3 leaves"


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        ([], None),
        ([{"customdata": 7}], 7),
        ([{"customdata": [8, "x"]}], 8),
        ([{"x": 1}, {"customdata": 9}], 9),
    ],
)
def test_selected_node_id_reads_plotly_points(points: list, expected: int | None) -> None:
    assert selected_node_id(points) == expected


def test_parents_are_named_by_their_section_where_they_are_wide_enough() -> None:
    wide = _node(1, 2, 1, 80)
    wide.title = "6 Programming: Arrays, Casts & <Import>"
    section = _node(5, 1, 1, 40)
    section.title = "8 Base <modules> › graph"
    narrow = _node(2, 1, 81, 82)
    narrow.title = "7 LaTeX usage"
    page = _node(3, 0, 83, 83)
    page.title = "8 Base modules › graph"
    root = _node(6, 3, 1, 83, parent_id=-1)
    root.title = "Acknowledgements, 1 Introduction, 6 Programming"  # every section: named by its file
    figure = tree_figure([wide, narrow, page, section, root])
    labels = dict(zip(figure.data[0].customdata, figure.data[0].text))
    assert labels.pop(6) == "f.pdf"
    assert labels.pop(5) == "graph"
    assert labels == {1: "6 Programming", 2: "p.81–82", 3: "83"}
    hovers = dict(zip(figure.data[0].customdata, figure.data[0].hovertext))
    assert "<b>7 LaTeX usage</b>" in hovers[2] and "&lt;Import&gt;" in hovers[1]
    assert (
        titled_label(page) == "L0 · p.83 — 8 Base modules › graph"
        and titled_label(_node(4, 0, 1, 1)) == "L0 · p.1"
    )


def test_small_helpers() -> None:
    assert page_span(3, 3) == "p.3" and page_span(3, 7) == "p.3–7"
    assert node_label(_node(1, 2, 1, 9, parent_id=-1)) == "L2 · p.1–9 · root"
    assert snippet("a  b\n c") == "a b c"
    assert len(snippet("word " * 100, 50)) <= 50


def test_every_step_is_titled_with_its_documents() -> None:
    assert step_title(Step("parent 99", [])) == "parent 99"
    parent = Candidate(99, -1, (7, 8), 1, "a.pdf", 3, 4, 0.5, 1, 1, 0.9)
    titled = step_title(Step("parent 99", [parent], kind=StepKind.PARENT, node_id=99))
    assert titled == "parent p.3–4 (L1) · a.pdf"
    assert step_title(Step("parent 99", [parent])) == "parent 99 · a.pdf", (
        "the kind decides the pages, not the name"
    )
    others = [Candidate(i, -1, (), 0, f"{name}.pdf", 1, 1, 0.5, 1, 1, 0.9) for i, name in enumerate("bcd")]
    assert step_title(Step("generation 2", [parent, *others[:1]], kind=StepKind.GENERATION)) == (
        "generation 2 · a.pdf, b.pdf"
    )
    assert step_title(Step("generation 2", [parent, *others], kind=StepKind.GENERATION)) == (
        "generation 2 · 4 documents"
    )
    assert step_title(Step("roots", [parent], kind=StepKind.ROOTS)) == "roots (all documents)"
    assert step_title(Step("seed pages (all documents)", [parent], kind=StepKind.SEEDS)) == (
        "seed pages (all documents)"
    )
    assert step_title(Step("pages of a.pdf", [parent], kind=StepKind.PAGES)) == "pages of a.pdf"


def test_a_range_opens_its_first_page_and_its_best_page_is_a_link_of_its_own(comparison: Comparison) -> None:
    """A card's ``file · p.3–6`` opens p.3, the page its label names; the section's best page (its
    snippet's) is a link of its own, ``best p.5``; each link carries the badge of its own page."""
    marks = {}
    sections = []
    for run in comparison.runs.values():
        for node in run.result.nodes:
            page, found = run.snippets.get(node.id, (node, None))
            if node.level and found and found.units and page.page_start != node.page_start:
                sections.append((node, page.page_start))
                marks[(node.file_name, node.page_start)] = True
    assert sections, "the comparison holds a section whose best page is not its first"
    card = cards_html(comparison, 3, 400, 100, marks)
    for node, best in sections:
        span = html.escape(f"{node.file_name} · {page_span(node.page_start, node.page_end)}")
        opens = html.escape(json.dumps({"file": node.file_name, "page": node.page_start}), quote=True)
        assert f'data-open="{opens}">{span}</a><span class="label yes">' in card
        best_opens = html.escape(json.dumps({"file": node.file_name, "page": best}), quote=True)
        assert f'data-open="{best_opens}">best p.{best}</a>' in card
