"""The recall-against-pages chart of an evaluation or a sweep, as data (``Chart``: titled series of points with
their 95 % intervals), and drawn as a self-contained SVG page for ``eval --plot`` / ``sweep --plot``.

The app draws the same ``Chart`` interactively with plotly (``drag_core.app.figures.evaluation``); the core
draws it without any plotting package, so the CLI writes its plot from a plain install.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

from drag_core.evaluation.runner import Report, Summary
from drag_core.evaluation.sweep import Sweep

__all__ = [
    "PAGES",
    "RECALL",
    "TITLES",
    "Chart",
    "Series",
    "chart_html",
    "chart_svg",
    "recall_chart",
    "sweep_chart",
]

RECALL = "right_sized_recall"
PAGES = "pages_returned"
TITLES = {RECALL: "page recall (everything returned)", PAGES: "pages returned per query"}
WIDTH, HEIGHT = 900, 560
LEFT, RIGHT, TOP, BOTTOM = 70, 230, 50, 60
COLOURS = ("#00798c", "#d1495b", "#edae49", "#3d5a80", "#7b2cbf", "#2a9d8f", "#8d6e63", "#e76f51", "#495057")


@dataclass(frozen=True)
class Series:
    """One line or set of points of a chart.

    Attributes:
        name: the legend entry.
        x, y: the points (None: undefined, not drawn).
        x_error, y_error: each point's (low, high) interval, or None.
        labels: a text beside each point (a run's label, a swept value).
        line: whether the points are joined.
        baseline: the flat top-k curve the runs are judged against (drawn grey, under the others).
    """

    name: str
    x: list[float | None]
    y: list[float | None]
    x_error: list[tuple[float, float] | None] = field(default_factory=list)
    y_error: list[tuple[float, float] | None] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    line: bool = False
    baseline: bool = False


@dataclass(frozen=True)
class Chart:
    """Pages returned (log axis) against a recall metric.

    Attributes:
        title: what is plotted, for people.
        y_title: the recall metric's name.
        series: the flat curve (if any) first, then one series per run or per swept strategy.
    """

    title: str
    y_title: str
    series: list[Series]


def _flat_series(report: Report) -> list[Series]:
    """Flat hybrid top-k for k = 1…depth (mean recall against k pages), when the report carries it."""
    curve = report.flat.mean_curve() if report.flat.recall else []
    if not curve:
        return []
    name = f"flat top-k (k = 1…{len(curve)})"
    return [Series(name, [float(k) for k in range(1, len(curve) + 1)], list(curve), line=True, baseline=True)]


def _series(name: str, summaries: list[Summary], labels: list[str], recall: str, line: bool) -> Series:
    return Series(
        name,
        [s.means.get(PAGES) for s in summaries],
        [s.means.get(recall) for s in summaries],
        [s.intervals.get(PAGES) for s in summaries],
        [s.intervals.get(recall) for s in summaries],
        labels,
        line=line,
    )


def recall_chart(report: Report, recall: str = RECALL) -> Chart:
    """One point per run (mean pages against mean recall, with their intervals) over the flat top-k curve:
    a point above the curve beats flat at its own budget."""
    runs = [_series(s.spec.label, [s], [s.spec.label], recall, False) for s in report.summaries]
    flat = _flat_series(report) if recall == RECALL else []
    title = f"{report.dataset}: recall against pages returned ({report.n_queries} queries, 95 % intervals)"
    return Chart(title, TITLES.get(recall, recall), [*flat, *runs])


def sweep_chart(sweep: Sweep, recall: str = RECALL) -> Chart:
    """One line per strategy through the swept values (the values as labels), over the flat curve."""
    lines: dict[str, tuple[list[Summary], list[str]]] = {}
    for s in sweep.report.summaries:
        base, value = sweep.points[s.spec.label]
        summaries, labels = lines.setdefault(base, ([], []))
        summaries.append(s)
        labels.append(str(value))
    runs = [_series(name, summaries, labels, recall, True) for name, (summaries, labels) in lines.items()]
    flat = _flat_series(sweep.report) if recall == RECALL else []
    report = sweep.report
    title = f"{report.dataset}: sweep of {sweep.param} ({report.n_queries} queries, 95 % intervals)"
    return Chart(title, TITLES.get(recall, recall), [*flat, *runs])


class _Axes:
    """Data → pixel positions: log pages across, recall up."""

    def __init__(self, chart: Chart) -> None:
        xs = [x for s in chart.series for x in s.x if x] + [
            b for s in chart.series for e in s.x_error if e for b in e if b > 0
        ]
        ys = [y for s in chart.series for y in s.y if y is not None] + [
            b for s in chart.series for e in s.y_error if e for b in e
        ]
        self.x_low = math.log10(max(0.8, min(xs, default=1.0) * 0.8))
        self.x_high = math.log10(max(xs, default=10.0) * 1.25)
        self.y_low, self.y_high = 0.0, max(1.0, max(ys, default=1.0))

    def x(self, value: float) -> float:
        share = (math.log10(max(value, 1e-9)) - self.x_low) / (self.x_high - self.x_low)
        return LEFT + share * (WIDTH - LEFT - RIGHT)

    def y(self, value: float) -> float:
        share = (value - self.y_low) / (self.y_high - self.y_low)
        return HEIGHT - BOTTOM - share * (HEIGHT - TOP - BOTTOM)

    def x_ticks(self) -> list[float]:
        ticks = [m * 10**e for e in range(-1, 5) for m in (1, 2, 5)]
        return [t for t in ticks if self.x_low <= math.log10(t) <= self.x_high]


def _grid(axes: _Axes, chart: Chart) -> list[str]:
    base, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    out = [f'<path d="M{LEFT},{TOP}V{base}H{right}" stroke="#adb5bd" fill="none"/>']
    for tick in axes.x_ticks():
        x = axes.x(tick)
        out.append(f'<path d="M{x:.1f},{base}v5" stroke="#adb5bd"/>')
        out.append(f'<text x="{x:.1f}" y="{base + 18}" text-anchor="middle">{tick:g}</text>')
    for i in range(6):
        value = axes.y_low + i * (axes.y_high - axes.y_low) / 5
        y = axes.y(value)
        out.append(f'<path d="M{LEFT},{y:.1f}H{right}" stroke="#eef0f2"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{value:.1f}</text>')
    middle = (LEFT + right) / 2
    out.append(f'<text x="{middle}" y="{HEIGHT - 15}" text-anchor="middle">{TITLES[PAGES]} (log)</text>')
    out.append(
        f'<text transform="translate(18,{(TOP + base) / 2}) rotate(-90)" text-anchor="middle">'
        f"{html.escape(chart.y_title)}</text>"
    )
    out.append(f'<text x="{LEFT}" y="28" font-size="15" font-weight="bold">{html.escape(chart.title)}</text>')
    return out


def _draw(series: Series, colour: str, axes: _Axes) -> list[str]:
    out: list[str] = []
    points = [(x, y, i) for i, (x, y) in enumerate(zip(series.x, series.y)) if x and y is not None]
    for x, y, i in points:
        for error, vertical in ((series.x_error, False), (series.y_error, True)):
            bounds = error[i] if i < len(error) else None
            if bounds is None:
                continue
            low, high = bounds
            if vertical:
                out.append(
                    f'<path d="M{axes.x(x):.1f},{axes.y(low):.1f}V{axes.y(high):.1f}" stroke="{colour}"/>'
                )
            elif low > 0:
                out.append(
                    f'<path d="M{axes.x(low):.1f},{axes.y(y):.1f}H{axes.x(high):.1f}" stroke="{colour}"/>'
                )
    if series.line and len(points) > 1:
        path = "M" + "L".join(f"{axes.x(x):.1f},{axes.y(y):.1f}" for x, y, _ in points)
        width = 3 if series.baseline else 1.5
        out.append(f'<path d="{path}" stroke="{colour}" stroke-width="{width}" fill="none"/>')
    for x, y, i in points:
        title = f"{series.name}: {x:.1f} pages, recall {y:.3f}"
        out.append(
            f'<circle cx="{axes.x(x):.1f}" cy="{axes.y(y):.1f}" r="{2.5 if series.baseline else 4}" '
            f'fill="{colour}"><title>{html.escape(title)}</title></circle>'
        )
        if i < len(series.labels):
            out.append(
                f'<text x="{axes.x(x) + 6:.1f}" y="{axes.y(y) - 6:.1f}">{html.escape(series.labels[i])}</text>'
            )
    return out


def chart_svg(chart: Chart) -> str:
    """The chart as one SVG element: grid, every series with its intervals, a legend on the right."""
    axes = _Axes(chart)
    body = _grid(axes, chart)
    legend: list[str] = []
    colours = iter(COLOURS * (1 + len(chart.series) // len(COLOURS)))
    for row, series in enumerate(chart.series):
        colour = "#c8cdd2" if series.baseline else next(colours)
        body += _draw(series, colour, axes)
        y = TOP + 18 * row
        legend.append(f'<rect x="{WIDTH - RIGHT + 15}" y="{y - 9}" width="12" height="12" fill="{colour}"/>')
        legend.append(f'<text x="{WIDTH - RIGHT + 32}" y="{y + 1}">{html.escape(series.name)}</text>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12" fill="#1f2933">'
        f"{''.join(body)}{''.join(legend)}</svg>"
    )


def chart_html(chart: Chart) -> str:
    """A self-contained HTML page holding the chart (no script, no outside request)."""
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(chart.title)}</title></head>"
        f"<body>{chart_svg(chart)}</body></html>\n"
    )
