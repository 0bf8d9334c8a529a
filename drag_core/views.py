"""What the app draws, as data: plotly figures and table rows built from trees, search results and
comparisons. Pure functions, no Streamlit.

Plotly renders a subset of HTML in titles, labels and hover text, so every text that comes from a document
(file names, summaries, keywords) is HTML-escaped before it goes into a figure. Table rows hold plain text.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from drag_core.compare import Comparison
from drag_core.search import SearchResult
from drag_core.search.base import Step, StepKind
from drag_core.store import Candidate
from drag_core.text import counted, page_span
from drag_core.types import Node

SNIPPET_CHARS = 200
HOVER_CHARS = 320

#: Node marks in the tree, weakest first, with their legend text and colour.
MARKS: dict[str, tuple[str, str]] = {
    "other": ("not ranked", "#e3e6ea"),
    "visited": ("ranked, not kept", "#a6dbe0"),
    "kept": ("kept on the way", "#00798c"),
    "final": ("returned", "#d1495b"),
}
FONT = {"family": "DejaVu Sans, Arial, sans-serif", "size": 12}


def node_label(node: Node | Candidate) -> str:
    """Short plain-text name of a node: level and pages (and ``root``)."""
    root = " · root" if node.parent_id == -1 else ""
    return f"L{node.level} · {page_span(node.page_start, node.page_end)}{root}"


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else textwrap.shorten(flat, limit, placeholder=" …")


def _escaped_lines(text: str, width: int = 60) -> str:
    return "<br>".join(html.escape(line) for line in textwrap.wrap(text, width))


# -- tree -------------------------------------------------------------------------------------------------


def node_marks(result: SearchResult) -> dict[int, str]:
    """How a search treated each node it saw: ``final`` (returned), ``kept`` (kept by some step) or
    ``visited`` (ranked in some step but never kept)."""
    marks: dict[int, str] = {}
    for step in result.trace:
        for candidate in step.candidates:
            marks.setdefault(candidate.id, "visited")
        for node_id in step.kept:
            marks[node_id] = "kept"
    for node in result.nodes:
        marks[node.id] = "final"
    return marks


def tree_figure(
    nodes: Sequence[Node], marks: Mapping[int, str] | None = None, selected: int | None = None
) -> go.Figure:
    """The document tree as an icicle over pages: one bar per node spanning its pages, one row per level
    (root on top). Bars are coloured by ``marks`` (see ``MARKS``); ``selected`` is outlined by a last, empty
    bar. Each bar's ``customdata`` is its node id."""
    marks = marks or {}
    levels = sorted({n.level for n in nodes})
    figure = go.Figure()
    for mark, (legend, colour) in MARKS.items():
        group = [n for n in nodes if marks.get(n.id, "other") == mark]
        if not group:
            continue
        figure.add_bar(
            orientation="h",
            y=[f"L{n.level}" for n in group],
            x=[n.page_end - n.page_start + 1 for n in group],
            base=[n.page_start - 0.5 for n in group],
            customdata=[n.id for n in group],
            text=[str(n.page_start) if n.level == 0 else page_span(n.page_start, n.page_end) for n in group],
            textposition="inside",
            textangle=0,
            insidetextanchor="middle",
            hovertext=[_node_hover(n) for n in group],
            hoverinfo="text",
            name=legend,
            showlegend=bool(marks),
            marker={"color": colour, "line": {"color": "#ffffff", "width": 1}},
        )
    chosen = [n for n in nodes if n.id == selected]
    if chosen:
        node = chosen[0]
        figure.add_bar(
            orientation="h",
            y=[f"L{node.level}"],
            x=[node.page_end - node.page_start + 1],
            base=[node.page_start - 0.5],
            customdata=[node.id],
            name="selected",
            showlegend=False,
            hoverinfo="skip",
            marker={"color": "rgba(0,0,0,0)", "line": {"color": "#111111", "width": 3}},
        )
    figure.update_layout(
        barmode="overlay",
        bargap=0.15,
        height=110 + 55 * max(1, len(levels)),
        margin={"l": 10, "r": 10, "t": 30, "b": 40},
        font=FONT,
        uniformtext={"minsize": 9, "mode": "hide"},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        xaxis={"title": "page", "rangemode": "tozero", "showgrid": False, "zeroline": False},
        yaxis={
            "categoryorder": "array",
            "categoryarray": [f"L{level}" for level in levels],
            "title": "level",
        },
        plot_bgcolor="#ffffff",
        clickmode="event+select",
    )
    return figure


def _node_hover(node: Node) -> str:
    keywords = ", ".join(node.keywords[:8])
    parts = [f"<b>{html.escape(node.file_name)} · {html.escape(node_label(node))}</b>"]
    if node.summary:
        parts.append(_escaped_lines(snippet(node.summary, HOVER_CHARS)))
    if keywords:
        parts.append(f"<i>{_escaped_lines(keywords)}</i>")
    return "<br>".join(parts)


def selected_node_id(points: Iterable[Mapping[str, Any]]) -> int | None:
    """The node id of the first clicked bar of :func:`tree_figure` (plotly's selection points), or None."""
    for point in points:
        data = point.get("customdata")
        if isinstance(data, list | tuple):
            data = data[0] if data else None
        if data is not None:
            return int(data)
    return None


# -- results and traces -----------------------------------------------------------------------------------


def step_title(step: Step) -> str:
    """Plain-text name of a step; a ``PARENT`` step is named by the parent's pages."""
    if step.kind is StepKind.PARENT:
        parent = next((c for c in step.candidates if c.id == step.node_id), None)
        if parent is not None:
            return f"parent {page_span(parent.page_start, parent.page_end)} (L{parent.level})"
    return step.name


def overlap_figure(comparison: Comparison) -> go.Figure:
    """Heatmap of the page overlap (Jaccard) between every two strategies, with the shared page counts."""
    names = list(comparison.runs)
    pages = {name: comparison.runs[name].pages for name in names}
    jaccard = {(name, name): 1.0 for name in names}
    shared = {(name, name): pages[name] for name in names}
    for o in comparison.overlaps():
        jaccard[o.a, o.b] = jaccard[o.b, o.a] = o.jaccard
        shared[o.a, o.b] = shared[o.b, o.a] = o.shared_pages
    z = [[jaccard[a, b] for b in names] for a in names]
    text = [[f"{jaccard[a, b]:.2f}<br>{counted(shared[a, b], 'page')}" for b in names] for a in names]
    figure = go.Figure(
        go.Heatmap(
            z=z,
            x=names,
            y=names,
            text=text,
            texttemplate="%{text}",
            zmin=0,
            zmax=1,
            colorscale=[[0, "#f1f3f5"], [1, "#00798c"]],
            colorbar={"title": "Jaccard"},
            hovertemplate="%{y} ∩ %{x}: %{text}<extra></extra>",
        )
    )
    figure.update_layout(
        height=120 + 45 * len(names),
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        font=FONT,
        yaxis={"autorange": "reversed"},
    )
    return figure


# -- strategy cards ---------------------------------------------------------------------------------------

CARD_CSS = """<style>
.drag-cards{display:grid;gap:0.75rem;margin-bottom:0.5rem}
.drag-card{border:1px solid rgba(49,51,63,0.2);border-radius:0.5rem;padding:0.75rem;min-width:0}
.drag-card h3{font-size:1.25rem;font-weight:600;margin:0 0 0.4rem 0;padding:0}
.drag-card .stats{font-size:0.9rem;margin-bottom:0.5rem}
.drag-card ol{margin:0;padding:0 0.25rem 0 0;list-style:none;overflow-y:auto;font-size:0.85rem}
.drag-card li{margin:0 0 0.6rem 0;overflow-wrap:anywhere}
.drag-card .summary{color:rgba(49,51,63,0.6)}
</style>"""


def _bold_count(n: int, noun: str) -> str:
    """``<b>1</b> page``, ``<b>3</b> pages``: a card's count in bold, its noun in the right number."""
    number, words = counted(n, noun).split(" ", 1)
    return f"<b>{number}</b> {words}"


def _result_item(rank: int, node: Node, score: float, summary_chars: int) -> str:
    where = f"{page_span(node.page_start, node.page_end)} · L{node.level}"
    return (
        f"<li><b>{rank}.</b> {html.escape(node.file_name)} · {where} · {score:.4f}<br>"
        f'<span class="summary">{html.escape(snippet(node.summary, summary_chars))}</span></li>'
    )


def cards_html(comparison: Comparison, per_row: int, results_px: int, summary_chars: int) -> str:
    """Every strategy as one card — nodes, pages, tokens, latency, and each result's rank, file, pages, level,
    score and the start of its summary — in one HTML block, ``per_row`` cards to a row."""
    cards = []
    for name, run in comparison.runs.items():
        result = run.result
        items = [
            _result_item(rank, node, result.scores.get(node.id, 0.0), summary_chars)
            for rank, node in enumerate(result.nodes, start=1)
        ]
        cards.append(
            f'<div class="drag-card" data-strategy="{html.escape(name)}"><h3>{html.escape(name)}</h3>'
            f'<div class="stats">{_bold_count(len(result.nodes), "node")} · {_bold_count(run.pages, "page")}<br>'
            f"<b>≈ {run.tokens:,}</b> tokens · <b>{result.latency_ms:.0f}</b> ms</div>"
            f'<ol style="max-height:{results_px}px">{"".join(items) or "<li><i>nothing returned</i></li>"}</ol>'
            "</div>"
        )
    columns = f"grid-template-columns:repeat({per_row},minmax(0,1fr))"
    return f'{CARD_CSS}<div class="drag-cards" style="{columns}">{"".join(cards)}</div>'
