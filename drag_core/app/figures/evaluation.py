"""Plotly figures of evaluation reports and sweeps for the Evaluate page: the recall-against-pages chart of
``drag_core.evaluation.chart`` drawn interactively, and a per-query heat map whose rows are the questions."""

from __future__ import annotations

import html
import textwrap
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from drag_core.evaluation.chart import PAGES, RECALL, TITLES, Chart, Series, recall_chart, sweep_chart
from drag_core.evaluation.runner import Report
from drag_core.evaluation.sweep import Sweep

__all__ = [
    "LINE_CHARS",
    "NAME_LINES",
    "ROW_PX",
    "chart_figure",
    "per_query_figure",
    "recall_vs_pages",
    "sweep_figure",
]

#: A heat map row's name: its question on at most this many lines of this many characters (the whole question
#: in the hover).
NAME_LINES, LINE_CHARS = 2, 24
#: Pixels per row: two lines of a row's name.
ROW_PX = 36


def _error(values: list[float | None], bounds: list[tuple[float, float] | None]) -> dict:
    """Asymmetric error bars from the intervals (none where a value or an interval is missing)."""
    pairs = list(zip(values, bounds))
    if not pairs or any(v is None or b is None for v, b in pairs):
        return {"visible": False}
    return {
        "type": "data",
        "symmetric": False,
        "array": [high - v for v, (_, high) in pairs],  # type: ignore[misc]
        "arrayminus": [v - low for v, (low, _) in pairs],  # type: ignore[misc]
    }


def _trace(series: Series) -> go.Scatter:
    if series.baseline:
        return go.Scatter(
            x=series.x,
            y=series.y,
            mode="lines+markers",
            marker={"size": 4},
            line={"color": "lightgray", "width": 3},
            name=series.name,
            hovertemplate="flat top-%{x}: recall %{y:.3f}<extra></extra>",
        )
    return go.Scatter(
        x=series.x,
        y=series.y,
        error_x=_error(series.x, series.x_error),
        error_y=_error(series.y, series.y_error),
        mode="lines+markers+text" if series.line else "markers+text",
        text=series.labels,
        textposition="top center",
        name=series.name,
    )


def chart_figure(chart: Chart) -> go.Figure:
    """A ``Chart`` as a plotly figure: pages (log) against recall, 95 % error bars, the flat curve under."""
    figure = go.Figure([_trace(s) for s in chart.series])
    figure.update_layout(title=chart.title, xaxis_title=TITLES[PAGES], yaxis_title=chart.y_title)
    figure.update_xaxes(type="log")  # runs return from 1 to 100+ pages
    return figure


def recall_vs_pages(report: Report, recall: str = RECALL) -> go.Figure:
    """One point per run against the flat top-k curve (``chart.recall_chart``)."""
    return chart_figure(recall_chart(report, recall))


def sweep_figure(sweep: Sweep, recall: str = RECALL) -> go.Figure:
    """One line per strategy through the swept values (``chart.sweep_chart``)."""
    return chart_figure(sweep_chart(sweep, recall))


def _row_names(ids: Sequence[str], questions: Mapping[str, str]) -> list[str]:
    """Each row's name: its question (its id when the question is not known) on at most ``NAME_LINES`` lines
    of ``LINE_CHARS``, cut at a word with an ellipsis, a number in front so two questions that start alike stay
    two rows; narrow enough that six runs' names fit under the map in a 1000 px window."""
    return [
        "<br>".join(
            html.escape(line)
            for line in textwrap.wrap(
                f"{n}. {' '.join(questions.get(q, q).split())}",
                LINE_CHARS,
                max_lines=NAME_LINES,
                placeholder=" …",
            )
        )
        for n, q in enumerate(ids, start=1)
    ]


def per_query_figure(
    report: Report, metric: str = RECALL, questions: Mapping[str, str] | None = None
) -> go.Figure:
    """A heat map of one metric per query (rows) and run (columns). ``questions``: query id → question; a
    row is named by its question, cut short, the whole question and the id in its hover."""
    questions = questions or {}
    labels = [s.spec.label for s in report.summaries]
    queries = list(dict.fromkeys(o.query_id for o in report.outcomes))
    value = {(o.query_id, o.label): o.values.get(metric) for o in report.outcomes}
    names = _row_names(queries, questions)
    hover = [
        [
            f"{html.escape(questions.get(q, q))}<br>({html.escape(q)})<br>{html.escape(label)}"
            for label in labels
        ]
        for q in queries
    ]
    figure = go.Figure(
        go.Heatmap(
            z=[[value.get((q, label)) for label in labels] for q in queries],
            x=labels,
            y=names,
            customdata=hover,
            hovertemplate="%{customdata}: %{z:.3f}<extra></extra>",
            colorscale="Viridis",
            colorbar={"thickness": 12},
            zmin=0,
            zmax=1 if metric != PAGES else None,
        )
    )
    figure.update_layout(
        title=f"{TITLES.get(metric, metric)} per query",
        height=max(300, ROW_PX * len(queries) + 160),
        margin={"r": 10},
    )
    figure.update_yaxes(autorange="reversed", automargin=True)  # the first question on top, names whole
    return figure
