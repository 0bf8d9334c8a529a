"""``drag_core.views``: figures and rows from real trees and search results, and document text kept inert."""

from __future__ import annotations

import pytest

from drag_core import views
from drag_core.compare import Comparer, Comparison
from drag_core.engine import Engine
from drag_core.search import SearchParams, SearchResult
from drag_core.search.base import Step, StepKind
from drag_core.store import Candidate
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
    figure = views.tree_figure(tree)
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
    marks = views.node_marks(result)
    assert {n.id for n in result.nodes} == {i for i, m in marks.items() if m == "final"}
    kept = {i for s in result.trace for i in s.kept} - {n.id for n in result.nodes}
    assert kept == {i for i, m in marks.items() if m == "kept"}
    root = tree[-1]
    figure = views.tree_figure(tree, marks, selected=root.id)
    legends = {bar.name: set(bar.customdata) for bar in _bars(figure)}
    in_tree = {n.id for n in tree}
    for mark, (legend, _) in views.MARKS.items():
        expected = {i for i in in_tree if marks.get(i, "other") == mark}
        assert legends.get(legend, set()) == expected, mark
    outline = figure.data[-1]
    assert outline.name == "selected" and list(outline.customdata) == [root.id]
    assert (outline.base[0] + 0.5, outline.x[0]) == (root.page_start, len(root.pages))
    assert not [t for t in views.tree_figure(tree, marks).data if t.name == "selected"]


def test_document_text_is_escaped_in_figures() -> None:
    hostile = '<a href="https://evil.example">click</a> <img src=x onerror=alert(1)>'
    node = _node(1, 0, 1, 1, summary=hostile, parent_id=-1, keywords=["<b>bold</b>"])
    hover = views.tree_figure([node]).data[0].hovertext[0]
    assert "<a" not in hover and "<img" not in hover and "<b>bold" not in hover
    assert "&lt;a href=" in hover and "&lt;b&gt;bold" in hover
    candidate = Candidate(1, -1, (), 0, "<script>x</script>.pdf", 1, 1, 0.5, 1, 1, 0.9)
    step = Step("leaves", [candidate], kept=[1])
    result = SearchResult("flat", "q", [node], {1: 0.5}, [step], 1.0, 1, SearchParams())
    hovers = [h for trace in views.curve_figure(result).data if trace.hovertext for h in trace.hovertext]
    assert hovers and all("<script>" not in h for h in hovers)
    assert any("&lt;script&gt;" in h for h in hovers)


def test_curve_figure_has_a_panel_per_step_with_knees_and_cuts(comparison: Comparison) -> None:
    result = comparison.runs["adaptive"].result
    figure = views.curve_figure(result)
    titles = [a.text for a in figure.layout.annotations]
    assert len(titles) == len(result.trace)
    knees = [t for t in figure.data if t.name == "knee"]
    with_knee = [s for s in result.trace if s.knee_index is not None]
    assert len(knees) == len(with_knee)
    for trace, step in zip(knees, with_knee, strict=True):
        assert list(trace.x) == [step.knee_index + 1]
    cuts = [s for s in result.trace if s.cut is not None and 0 < s.cut < len(s.candidates)]
    assert len(figure.layout.shapes) == len(cuts)
    for title, step in zip(titles, result.trace, strict=True):
        assert f"kept {len(step.kept)}/{len(step.candidates)}" in title
        if step.knee_index is not None:
            assert f"knee at {step.knee_index + 1}" in title
    points = sum(len(t.x) for t in figure.data if t.mode == "markers" and t.name != "knee")
    assert points == sum(len(s.candidates) for s in result.trace)


def test_point_marks_follow_the_step() -> None:
    candidates = [Candidate(i, -1, (), 0, "f", i, i, 1.0 / (60 + i), i, i, 0.9 - i / 10) for i in range(1, 6)]
    step = Step(
        "generation 1", candidates, curve=[c.fused for c in candidates], knee_index=2, cut=3, kept=[1, 3]
    )
    assert views.point_marks(step, "rrf") == ["kept", "dropped", "kept", "cut", "cut"]
    assert views.point_marks(step, "dense") == ["kept", "kept", "kept", "cut", "cut"]
    assert views.point_marks(Step("roots", candidates[:2], kept=[2]), "rrf") == ["dropped", "kept"]


def test_step_rows_and_titles_name_parents_by_their_pages(comparison: Comparison) -> None:
    result = comparison.runs["branch"].result
    rows = views.step_rows(result)
    assert [r["ranked"] for r in rows] == [len(s.candidates) for s in result.trace]
    assert [r["kept"] for r in rows] == [len(s.kept) for s in result.trace]
    parents = [r["step"] for r in rows if r["step"].startswith("parent")]
    assert parents and all("p." in p and "(L" in p for p in parents)
    assert views.step_title(Step("parent 99", [])) == "parent 99"
    parent = Candidate(99, -1, (7, 8), 1, "a.pdf", 3, 4, 0.5, 1, 1, 0.9)
    assert (
        views.step_title(Step("parent 99", [parent], kind=StepKind.PARENT, node_id=99)) == "parent p.3–4 (L1)"
    )
    assert views.step_title(Step("parent 99", [parent])) == "parent 99", "the kind decides, not the name"


def test_node_rows_list_the_final_nodes(comparison: Comparison) -> None:
    result = comparison.runs["flat"].result
    rows = views.node_rows(result)
    assert [r["#"] for r in rows] == list(range(1, len(result.nodes) + 1))
    assert [r["file"] for r in rows] == [n.file_name for n in result.nodes]
    assert all(len(r["summary"]) <= views.SNIPPET_CHARS for r in rows)
    assert rows[0]["score"] >= rows[-1]["score"]


def test_overlap_figure_is_symmetric_with_a_unit_diagonal(comparison: Comparison) -> None:
    heatmap = views.overlap_figure(comparison).data[0]
    z = [list(row) for row in heatmap.z]
    n = len(comparison.runs)
    assert len(z) == n and all(z[i][i] == 1.0 for i in range(n))
    assert all(z[i][j] == z[j][i] for i in range(n) for j in range(n))


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
    assert views.selected_node_id(points) == expected


def test_small_helpers() -> None:
    assert views.page_span(3, 3) == "p.3" and views.page_span(3, 7) == "p.3–7"
    assert views.node_label(_node(1, 2, 1, 9, parent_id=-1)) == "L2 · p.1–9 · root"
    assert views.snippet("a  b\n c") == "a b c"
    assert len(views.snippet("word " * 100, 50)) <= 50


def test_a_dense_knee_draws_sorted_cosines_and_a_beam_its_fused_ranking(small_engine: Engine) -> None:
    comparison = Comparer().compare(
        small_engine, QUERY, ["beam", "adaptive"], SearchParams(score_source="dense")
    )
    beam, adaptive = (views.curve_figure(comparison.runs[s].result) for s in ("beam", "adaptive"))
    assert beam.layout.yaxis.title.text == "RRF score"
    assert adaptive.layout.yaxis.title.text == "cosine (sorted)"
    last = comparison.runs["adaptive"].result.trace[-1]
    assert last.curve == sorted(last.curve, reverse=True)
    cosines = sorted((c.dense_score for c in last.candidates), reverse=True)
    assert last.curve == pytest.approx(cosines)
