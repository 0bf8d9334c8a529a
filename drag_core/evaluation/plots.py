"""Plotly figures of evaluation reports and sweeps (used by the CLI's HTML output and the Evaluate page)."""

from __future__ import annotations

import plotly.graph_objects as go

from drag_core.evaluation.runner import Report, Summary
from drag_core.evaluation.sweep import Sweep

RECALL = "right_sized_recall"
PAGES = "pages_returned"
TITLES = {RECALL: "page recall (everything returned)", PAGES: "pages returned per query"}


def _error(summaries: list[Summary], metric: str) -> dict:
    """Asymmetric error bars from each summary's bootstrap interval (none where a value is undefined)."""
    pairs = [(s.means.get(metric), s.intervals.get(metric)) for s in summaries]
    known = [(m, b) for m, b in pairs if m is not None and b is not None]
    if len(known) < len(pairs):
        return {"visible": False}
    return {
        "type": "data",
        "symmetric": False,
        "array": [high - m for m, (_, high) in known],
        "arrayminus": [m - low for m, (low, _) in known],
    }


def flat_trace(report: Report) -> go.Scatter | None:
    """Flat hybrid top-k for k = 1…depth (mean recall against k pages): the bar a run's point is judged by
    at its own page budget. None when the report carries no flat curve."""
    curve = report.flat.mean_curve() if report.flat.recall else []
    if not curve:
        return None
    return go.Scatter(
        x=list(range(1, len(curve) + 1)),
        y=curve,
        mode="lines+markers",
        marker={"size": 4},
        line={"color": "lightgray", "width": 3},
        name=f"flat top-k (k = 1…{len(curve)})",
        hovertemplate="flat top-%{x}: recall %{y:.3f}<extra></extra>",
    )


def _figure(
    lines: dict[str, tuple[list[Summary], list[str]]],
    recall: str,
    mode: str,
    title: str,
    under: go.Scatter | None = None,
) -> go.Figure:
    """Pages returned against recall with 95 % error bars: one trace per entry (name → summaries, labels),
    drawn over ``under`` (the flat curve) when given."""
    figure = go.Figure()
    if under is not None:
        figure.add_trace(under)
    for name, (summaries, labels) in lines.items():
        figure.add_trace(
            go.Scatter(
                x=[s.means.get(PAGES) for s in summaries],
                y=[s.means.get(recall) for s in summaries],
                error_x=_error(summaries, PAGES),
                error_y=_error(summaries, recall),
                mode=mode,
                text=labels,
                textposition="top center",
                name=name,
            )
        )
    figure.update_layout(title=title, xaxis_title=TITLES[PAGES], yaxis_title=TITLES.get(recall, recall))
    figure.update_xaxes(type="log")  # runs return from 1 to 100+ pages
    return figure


def recall_vs_pages(report: Report, recall: str = RECALL) -> go.Figure:
    """One point per run: mean pages returned against mean recall, both with bootstrap 95 % intervals, over
    the flat top-k curve (a point above the curve beats flat at its own budget)."""
    lines = {s.spec.label: ([s], [s.spec.label]) for s in report.summaries}
    title = f"{report.dataset}: recall against pages returned ({report.n_queries} queries, 95 % intervals)"
    return _figure(lines, recall, "markers+text", title, flat_trace(report) if recall == RECALL else None)


def sweep_figure(sweep: Sweep, recall: str = RECALL) -> go.Figure:
    """One line per strategy through the swept values: pages returned against recall, values as labels."""
    lines: dict[str, tuple[list[Summary], list[str]]] = {}
    for s in sweep.report.summaries:
        base, value = sweep.points[s.spec.label]
        summaries, labels = lines.setdefault(base, ([], []))
        summaries.append(s)
        labels.append(str(value))
    title = (
        f"{sweep.report.dataset}: sweep of {sweep.param} ({sweep.report.n_queries} queries, 95 % intervals)"
    )
    under = flat_trace(sweep.report) if recall == RECALL else None
    return _figure(lines, recall, "lines+markers+text", title, under)


def per_query_figure(report: Report, metric: str = RECALL) -> go.Figure:
    """A heat map of one metric per query (rows) and run (columns)."""
    labels = [s.spec.label for s in report.summaries]
    queries = list(dict.fromkeys(o.query_id for o in report.outcomes))
    value = {(o.query_id, o.label): o.values.get(metric) for o in report.outcomes}
    figure = go.Figure(
        go.Heatmap(
            z=[[value.get((q, label)) for label in labels] for q in queries],
            x=labels,
            y=queries,
            colorscale="Viridis",
            zmin=0,
            zmax=1 if metric != PAGES else None,
        )
    )
    figure.update_layout(title=f"{TITLES.get(metric, metric)} per query", height=max(300, 18 * len(queries)))
    return figure
