"""The document tree as an icicle over its pages, coloured by what a search did with each node."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from drag_core.app.figures.style import FONT, HOVER_CHARS, escaped_lines, node_label, snippet
from drag_core.search import SearchResult
from drag_core.text import page_span
from drag_core.types import Node

__all__ = ["CHARS_ACROSS", "MARKS", "node_marks", "selected_node_id", "tree_figure"]

CHARS_ACROSS = 70  # characters of a bar label that fit across the chart (about 470 px wide at 1000 px)

#: Node marks in the tree, weakest first, with their legend text and colour.
MARKS: dict[str, tuple[str, str]] = {
    "other": ("not ranked", "#e3e6ea"),
    "visited": ("ranked, not kept", "#a6dbe0"),
    "kept": ("kept on the way", "#00798c"),
    "final": ("returned", "#d1495b"),
}


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
    (root on top), the root labelled by its file, a parent by its section title where the document has an
    outline (by its pages where not, or where the title does not fit). Bars are coloured by ``marks`` (see ``MARKS``); ``selected``
    is outlined by a last, empty bar. Each bar's ``customdata`` is its node id."""
    marks = marks or {}
    levels = sorted({n.level for n in nodes})
    pages = max((n.page_end for n in nodes), default=1)
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
            text=[_bar_text(n, pages) for n in group],
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


def _bar_text(node: Node, pages: int) -> str:
    """A bar's label: a page's number; the root's file name (it covers every section); a parent's section in
    short ("6 Programming", "graph", "1 Description …"), when the bar is wide enough for it (about
    ``CHARS_ACROSS`` characters span the chart), else its pages."""
    if node.level == 0:
        return str(node.page_start)
    short = node.file_name if node.is_root else _short_title(node.title)
    if short and len(short) <= CHARS_ACROSS * len(node.pages) / max(1, pages):
        return html.escape(short)
    return page_span(node.page_start, node.page_end)


def _short_title(title: str) -> str:
    """The name of the section a title is about: before its list of subsections, the last of its path, the
    first of several."""
    name = title.split(": ")[0].split(" › ")[-1]
    return name.split(", ")[0].removesuffix(" …") + " …" if ", " in name else name


def _node_hover(node: Node) -> str:
    keywords = ", ".join(node.keywords[:8])
    parts = [f"<b>{html.escape(node.file_name)} · {html.escape(node_label(node))}</b>"]
    if node.title:
        parts.append(f"<b>{escaped_lines(node.title)}</b>")
    if node.summary:
        parts.append(escaped_lines(snippet(node.summary, HOVER_CHARS)))
    if keywords:
        parts.append(f"<i>{escaped_lines(keywords)}</i>")
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
