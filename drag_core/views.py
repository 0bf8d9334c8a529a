"""What the app draws, as data: plotly figures and table rows built from trees, search results and
comparisons. Pure functions, no Streamlit.

Plotly renders a subset of HTML in titles, labels and hover text, so every text that comes from a document
(file names, summaries, keywords) is HTML-escaped before it goes into a figure. Table rows hold plain text.
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from drag_core.compare import Comparison
from drag_core.search import SearchResult
from drag_core.search.base import Step, StepKind
from drag_core.store import Candidate
from drag_core.text import page_span
from drag_core.types import Node

SNIPPET_CHARS = 200
HOVER_CHARS = 320
CURVE_COLUMNS = 3

#: Node marks in the tree, weakest first, with their legend text and colour.
MARKS: dict[str, tuple[str, str]] = {
    "other": ("not ranked", "#e3e6ea"),
    "visited": ("ranked, not kept", "#a6dbe0"),
    "kept": ("kept on the way", "#00798c"),
    "final": ("returned", "#d1495b"),
}
#: What happened to each point of a ranking curve, with legend text and colour.
POINTS: dict[str, tuple[str, str]] = {
    "kept": ("kept", "#00798c"),
    "dropped": ("dropped (suppressed / not followed)", "#edae49"),
    "cut": ("cut by the knee", "#adb5bd"),
}
KNEE_COLOR = "#d1495b"
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


def node_rows(result: SearchResult) -> list[dict[str, Any]]:
    """The final nodes of a search as table rows: rank, pages, summary snippet, level, score, file."""
    return [
        {
            "#": rank,
            "pages": page_span(node.page_start, node.page_end),
            "summary": snippet(node.summary),
            "level": node.level,
            "score": round(result.scores.get(node.id, 0.0), 5),
            "file": node.file_name,
        }
        for rank, node in enumerate(result.nodes, start=1)
    ]


def step_title(step: Step) -> str:
    """Plain-text name of a step; a ``PARENT`` step is named by the parent's pages."""
    if step.kind is StepKind.PARENT:
        parent = next((c for c in step.candidates if c.id == step.node_id), None)
        if parent is not None:
            return f"parent {page_span(parent.page_start, parent.page_end)} (L{parent.level})"
    return step.name


def step_rows(result: SearchResult) -> list[dict[str, Any]]:
    """One row per step: what was ranked, where the knee was, how many were kept."""
    return [
        {
            "step": step_title(step),
            "ranked": len(step.candidates),
            "knee at": "—" if step.knee_index is None else step.knee_index + 1,
            "cut keeps": "—" if step.cut is None else step.cut,
            "kept": len(step.kept),
            "ms": f"{step.ms:.1f}",
        }
        for step in result.trace
    ]


def point_marks(step: Step, score_source: str) -> list[str]:
    """What happened to each point of a step's curve (a key of ``POINTS``).

    The fused curve is the ranking itself, so each point is a candidate. A dense curve is the cosines sorted
    on their own: its points are positions, kept up to the cut and cut after it.
    """
    cut = len(step.candidates) if step.cut is None else step.cut
    if _reads_dense(step, score_source):
        return ["kept" if i < cut else "cut" for i in range(len(step.curve))]
    kept = set(step.kept)
    return [
        "kept" if c.id in kept else ("dropped" if i < cut else "cut") for i, c in enumerate(step.candidates)
    ]


def curve_figure(result: SearchResult) -> go.Figure:
    """One panel per step: the curve the knee read (or the fused ranking when no knee was used), points
    coloured kept / dropped / cut, the knee starred and the cut drawn as a dashed line."""
    steps = result.trace
    source = result.params.score_source
    columns = max(1, min(CURVE_COLUMNS, len(steps)))
    rows = max(1, math.ceil(len(steps) / columns))
    figure = make_subplots(
        rows=rows,
        cols=columns,
        subplot_titles=[html.escape(_panel_title(step)) for step in steps] or [""],
        horizontal_spacing=0.06,
        vertical_spacing=min(0.25, 0.6 / rows),
    )
    shown: set[str] = set()
    for index, step in enumerate(steps):
        row, col = divmod(index, columns)
        _add_curve(figure, step, source, row + 1, col + 1, shown)
    y_title = "cosine (sorted)" if any(_reads_dense(step, source) for step in steps) else "RRF score"
    figure.update_yaxes(title_text=y_title, col=1, tickformat=".3~f")
    longest = max((len(step.candidates) for step in steps), default=1)
    figure.update_xaxes(tick0=1, dtick=max(1, math.ceil(longest / 8)))
    figure.update_xaxes(title_text="rank", row=rows)
    figure.update_layout(
        height=90 + 230 * rows,
        margin={"l": 10, "r": 10, "t": 80, "b": 40},
        font=FONT,
        plot_bgcolor="#ffffff",
        legend={"orientation": "h", "y": 1.0, "yanchor": "top", "yref": "container", "x": 0},
        hovermode="closest",
    )
    figure.update_annotations(font_size=12)
    return figure


def _panel_title(step: Step) -> str:
    knee = "no knee" if step.knee_index is None else f"knee at {step.knee_index + 1}"
    if step.cut is None:
        knee = "no knee cut"
    return f"{step_title(step)} · {knee} · kept {len(step.kept)}/{len(step.candidates)}"


def _reads_dense(step: Step, score_source: str) -> bool:
    """Whether the step's curve is the sorted cosines (a knee cut on dense scores), not the fused ranking."""
    return bool(step.curve) and score_source == "dense"


def _add_curve(figure: go.Figure, step: Step, source: str, row: int, col: int, shown: set[str]) -> None:
    values = list(step.curve) if step.curve else [c.fused for c in step.candidates]
    aligned = not _reads_dense(step, source)
    ranks = list(range(1, len(values) + 1))
    figure.add_scatter(
        x=ranks,
        y=values,
        mode="lines",
        line={"color": "#ced4da", "width": 1.5},
        hoverinfo="skip",
        showlegend=False,
        row=row,
        col=col,
    )
    marks = point_marks(step, source)
    for mark, (legend, colour) in POINTS.items():
        chosen = [i for i, m in enumerate(marks) if m == mark]
        if not chosen:
            continue
        hover = [
            _point_hover(step.candidates[i], values[i], i) if aligned else f"rank {i + 1}: {values[i]:.4f}"
            for i in chosen
        ]
        figure.add_scatter(
            x=[i + 1 for i in chosen],
            y=[values[i] for i in chosen],
            mode="markers",
            marker={"color": colour, "size": 8, "line": {"color": "#ffffff", "width": 1}},
            name=legend,
            legendgroup=mark,
            showlegend=mark not in shown,
            hovertext=hover,
            hoverinfo="text",
            row=row,
            col=col,
        )
        shown.add(mark)
    if step.knee_index is not None and step.knee_index < len(values):
        k = step.knee_index
        figure.add_scatter(
            x=[k + 1],
            y=[values[k]],
            mode="markers",
            marker={
                "symbol": "star",
                "size": 16,
                "color": KNEE_COLOR,
                "line": {"color": "#ffffff", "width": 1},
            },
            name="knee",
            legendgroup="knee",
            showlegend="knee" not in shown,
            hovertext=[f"knee at rank {k + 1}"],
            hoverinfo="text",
            row=row,
            col=col,
        )
        shown.add("knee")
    if step.cut is not None and 0 < step.cut < len(values):
        figure.add_vline(
            x=step.cut + 0.5, line={"color": KNEE_COLOR, "dash": "dash", "width": 1}, row=row, col=col
        )


def _point_hover(candidate: Candidate, value: float, index: int) -> str:
    ranks = f"dense #{candidate.dense_rank or '—'}, sparse #{candidate.sparse_rank or '—'}"
    name = html.escape(f"{candidate.file_name} · {node_label(candidate)}")
    return f"rank {index + 1}: {value:.4f}<br>{name}<br>{ranks}"


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
    text = [[f"{jaccard[a, b]:.2f}<br>{shared[a, b]} pages" for b in names] for a in names]
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
