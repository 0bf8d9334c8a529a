"""Plotly figures of evaluation reports and sweeps (used by the CLI's HTML output and the Evaluate page)."""

from __future__ import annotations

import plotly.graph_objects as go

from drag_core.evaluation.runner import Report, Summary
from drag_core.evaluation.sweep import Sweep

RECALL = "right_sized_recall"
PAGES = "pages_returned"
TITLES = {RECALL: "page recall (everything returned)", PAGES: "pages returned per query"}


def _error(summary: Summary, metric: str) -> dict:
    mean, bounds = summary.means.get(metric), summary.intervals.get(metric)
    if mean is None or bounds is None:
        return {"visible": False}
    return {"type": "data", "symmetric": False, "array": [bounds[1] - mean], "arrayminus": [mean - bounds[0]]}


def recall_vs_pages(report: Report, recall: str = RECALL) -> go.Figure:
    """One point per run: mean pages returned against mean recall, both with bootstrap 95 % intervals."""
    figure = go.Figure()
    for s in report.summaries:
        figure.add_trace(
            go.Scatter(
                x=[s.means.get(PAGES)],
                y=[s.means.get(recall)],
                error_x=_error(s, PAGES),
                error_y=_error(s, recall),
                mode="markers+text",
                text=[s.spec.label],
                textposition="top center",
                name=s.spec.label,
            )
        )
    figure.update_layout(
        title=f"{report.dataset}: recall against pages returned ({report.n_queries} queries, 95 % intervals)",
        xaxis_title=TITLES[PAGES],
        yaxis_title=TITLES.get(recall, recall),
    )
    return figure


def sweep_figure(sweep: Sweep, recall: str = RECALL) -> go.Figure:
    """One line per strategy through the swept values: pages returned against recall, values as labels."""
    figure = go.Figure()
    by_base: dict[str, list[Summary]] = {}
    for s in sweep.report.summaries:
        by_base.setdefault(sweep.points[s.spec.label][0], []).append(s)
    for base, summaries in by_base.items():
        figure.add_trace(
            go.Scatter(
                x=[s.means.get(PAGES) for s in summaries],
                y=[s.means.get(recall) for s in summaries],
                mode="lines+markers+text",
                text=[f"{sweep.points[s.spec.label][1]}" for s in summaries],
                textposition="top center",
                name=base,
            )
        )
    figure.update_layout(
        title=f"{sweep.report.dataset}: sweep of {sweep.param} ({sweep.report.n_queries} queries)",
        xaxis_title=TITLES[PAGES],
        yaxis_title=TITLES.get(recall, recall),
    )
    return figure


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
