"""The figure of a strategy's ranking steps: one panel per ranking, its curves, every candidate coloured by
its fate, the knee starred and the cut dashed, the reason in the title (the reasons themselves come from
``drag_core.search.explain``)."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from textwrap import wrap
from typing import Any

import plotly.graph_objects as go

from drag_core.app.figures.style import FONT, node_label
from drag_core.params import ScoreSource
from drag_core.search import SearchResult
from drag_core.search.base import Step
from drag_core.search.explain import CURVE_NAMES, CutReason, Fate, explain, fates, step_title
from drag_core.store import Candidate

__all__ = ["COSINE_COLOR", "CURVE_COLUMNS", "FATES", "KNEE_COLOR", "LINE_CHARS", "RRF_COLOR", "steps_figure"]

#: How each fate of a candidate is drawn: legend text and colour.
FATES: dict[Fate, tuple[str, str]] = {
    Fate.KEPT: ("kept", "#00798c"),
    Fate.DROPPED: ("dropped (suppressed / not followed)", "#edae49"),
    Fate.KNEE: ("cut by the knee", "#adb5bd"),
    Fate.CAP: ("cut by a cap (max-keep / roots)", "#7b2cbf"),
    Fate.COVERED: ("already in the answer (its document is)", "#90be6d"),
}
KNEE_COLOR = "#d1495b"
RRF_COLOR = "#495057"
COSINE_COLOR = "#3d5a80"
#: Panels side by side: two stay readable from the narrowest window (1000 px, ~540 px of figure) up.
CURVE_COLUMNS = 2
#: Share of the figure's width between two panels: the left one's cosine ticks and the right one's RRF ticks.
GAP = 0.24
PANEL_PX, TICKS_PX, LINE_PX = 220, 60, 16
#: Characters per line of a panel title: a bold 12 px title (~7.5 px a character, more in capitals and
#: digits: file names) over the narrowest panel (~188 px at a 1000 px window) wraps there.
LINE_CHARS = 24
#: Pixels between a panel's top and its title's last line: clear of the top tick label, which rises half its
#: height above the panel.
TITLE_GAP = 9
#: Ticks on the rank axis at most (its labels never rotate).
RANK_TICKS = 5


@dataclass(frozen=True)
class _Cell:
    """The axes of one step's panel (numbers of plotly's ``xaxisN`` / ``yaxisN``; a cosine y is ``y + 1``)."""

    x: int
    y: int

    def ref(self, axis: str, number: int) -> str:
        return axis if number == 1 else f"{axis}{number}"


@dataclass(frozen=True)
class _Grid:
    """Panels in rows of at most ``CURVE_COLUMNS``, each ``block`` pixels tall, the plot ``top`` pixels down
    in its block."""

    count: int
    block: int
    top: int
    height: int

    @property
    def columns(self) -> int:
        return max(1, min(CURVE_COLUMNS, self.count))

    @property
    def rows(self) -> int:
        return max(1, math.ceil(self.count / self.columns))

    def domains(self, index: int) -> tuple[list[float], list[float]]:
        """The x and y domains (paper fractions) of panel ``index``."""
        gap = GAP if self.columns > 1 else 0.0
        width = (1 - gap * (self.columns - 1)) / self.columns
        row, col = divmod(index, self.columns)
        total = self.block * self.rows
        top = row * self.block + self.top
        return [col * (width + gap), col * (width + gap) + width], [
            1 - (top + self.height) / total,
            1 - top / total,
        ]

    def layout(self, legend: bool) -> dict[str, Any]:
        """The figure's layout; the legend sits above the panels and the top margin grows to hold it in as
        many rows as the width needs (Plotly's automargin)."""
        return {
            "height": self.block * self.rows + 30,
            "margin": {"l": 10, "r": 36, "t": 10, "b": 20, "autoexpand": True},  # r: room for the last title
            "font": FONT,
            "plot_bgcolor": "#ffffff",
            "showlegend": legend,
            "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "yref": "paper", "x": 0},
            "hovermode": "closest",
            "annotations": [],
            "shapes": [],
        }


def steps_figure(result: SearchResult) -> go.Figure:
    """One panel per ranking step of a search: its RRF (fused) curve with every candidate coloured by what
    happened to it, the cosine curve too when the knee read it, the knee starred on the curve it was found
    on (the curve the step records it read: never guessed from the parameters), the cut as a dashed line,
    and in the title why the cut is there.

    Built as plain data (axes placed here, no ``make_subplots``) and wrapped without validation. It does not
    show the current sensitivity (``figures.sensitivity.sensitivity_html`` does), so a slider step that does not move a cut
    draws the same figure and the browser has nothing to redraw."""
    steps = result.trace
    reasons = [explain(step) for step in steps]
    titles = [_title_lines(step, why) for step, why in zip(steps, reasons)]
    title_px = LINE_PX * max((len(a) + len(b) for a, b in titles), default=2) + 12 + TITLE_GAP
    grid = _Grid(len(steps), title_px + PANEL_PX + TICKS_PX, title_px, PANEL_PX)
    layout = grid.layout(legend=True)
    data: list[dict[str, Any]] = []
    shown: set[str] = set()
    for index, (step, why) in enumerate(zip(steps, reasons)):
        x_domain, y_domain = grid.domains(index)
        cell = _Cell(x=index + 1, y=2 * index + 1)
        layout["annotations"].append(_title(titles[index], why, sum(x_domain) / 2, y_domain[1]))
        _draw_step(data, layout, step, why, cell, shown)
        column = index % grid.columns
        _axes(layout, cell, x_domain, y_domain)
        _name_outer_axes_only(
            layout, cell, first=column == 0, last=column == grid.columns - 1 or step is steps[-1]
        )
    return go.Figure(data=data, layout=layout, _validate=False)


def _title_lines(step: Step, why: CutReason) -> tuple[list[str], list[str]]:
    """A panel's title as lines that fit the narrowest panel: what was ranked (with its documents), then why
    the cut is where it is (``→ kept 3`` on a line of its own). Wrapped, never cut short."""
    name = wrap(step_title(step), LINE_CHARS, break_on_hyphens=False) or [""]
    parts = why.text.split(" → ")
    reason = [line for n, part in enumerate(parts) for line in wrap(("→ " if n else "") + part, LINE_CHARS)]
    return name, reason


def _title(lines: tuple[list[str], list[str]], why: CutReason, x: float, y: float) -> dict[str, Any]:
    colour = FATES[Fate.CAP][1] if why.capped else (KNEE_COLOR if why.knee_rank else "#495057")
    name, reason = lines
    return {
        "text": "<br>".join(f"<b>{html.escape(line)}</b>" for line in name)
        + f"<br><span style='color:{colour}'>{'<br>'.join(html.escape(line) for line in reason)}</span>",
        "x": x,
        "y": y,
        "xref": "paper",
        "yref": "paper",
        "xanchor": "center",
        "yanchor": "bottom",
        "yshift": TITLE_GAP,
        "showarrow": False,
        "font": {"size": 12},
    }


def _axes(layout: dict[str, Any], cell: _Cell, x_domain: list[float], y_domain: list[float]) -> None:
    xa, ya, ya2 = f"xaxis{cell.x}", f"yaxis{cell.y}", f"yaxis{cell.y + 1}"
    layout[xa] = {
        "domain": x_domain,
        "anchor": cell.ref("y", cell.y),
        "title": {"text": "rank", "standoff": 4},
        "showgrid": False,
        **layout.pop(xa, {}),
    }
    layout[ya] = {"domain": y_domain, "anchor": cell.ref("x", cell.x), **layout.pop(ya, {})}
    if ya2 in layout:
        layout[ya2] |= {"overlaying": cell.ref("y", cell.y), "side": "right", "anchor": cell.ref("x", cell.x)}


def _name_outer_axes_only(layout: dict[str, Any], cell: _Cell, first: bool, last: bool) -> None:
    """Panels side by side share the gap between them: only the first of a row names its RRF axis and only
    the last its cosine axis (the legend names both lines), so no two axis names overlap."""
    if not first:
        layout[f"yaxis{cell.y}"].pop("title", None)
    if not last and f"yaxis{cell.y + 1}" in layout:
        layout[f"yaxis{cell.y + 1}"].pop("title", None)


def _ticks(values: list[float]) -> dict[str, Any]:
    """Axis settings whose tick labels differ: as many decimals as the range needs."""
    low, high = min(values), max(values)
    spread = high - low or abs(high) or 1.0
    decimals = max(0, 1 - math.floor(math.log10(spread / 3)))
    return {"tickformat": f".{min(decimals, 6)}f", "nticks": 5}


def _draw_step(
    data: list[dict[str, Any]],
    layout: dict[str, Any],
    step: Step,
    why: CutReason,
    cell: _Cell,
    shown: set[str],
) -> None:
    fused = [c.fused for c in step.candidates]
    x, y, y2 = cell.ref("x", cell.x), cell.ref("y", cell.y), cell.ref("y", cell.y + 1)
    cosine = bool(step.curve) and step.curve_source == ScoreSource.DENSE
    ranks = list(range(1, len(fused) + 1))
    data.append(_line(ranks, fused, "RRF (fused)", RRF_COLOR, "solid", x, y, shown))
    marks = fates(step, why)
    for fate, (legend, colour) in FATES.items():
        chosen = [i for i, m in enumerate(marks) if m == fate]
        if chosen:
            data.append(
                {
                    "type": "scatter",
                    "x": [i + 1 for i in chosen],
                    "y": [fused[i] for i in chosen],
                    "xaxis": x,
                    "yaxis": y,
                    "mode": "markers",
                    "marker": {"color": colour, "size": 8, "line": {"color": "#ffffff", "width": 1}},
                    "name": legend,
                    "legendgroup": fate,
                    "showlegend": _first(fate, shown),
                    "hovertext": [_hover(step.candidates[i], fused[i], i) for i in chosen],
                    "hoverinfo": "text",
                }
            )
    layout[f"yaxis{cell.y}"] = {"title": {"text": "RRF", "standoff": 2}, **_ticks(fused or [0.0])}
    layout[f"xaxis{cell.x}"] = {
        "tick0": 1,
        "dtick": max(1, math.ceil(len(fused) / RANK_TICKS)),
        "tickangle": 0,
        "range": [0.5, max(1, len(fused)) + 0.5],
    }
    knee_curve, knee_axis = (step.curve, y2) if cosine else (step.curve or fused, y)
    if cosine:
        data.append(
            _line(ranks, step.curve, "cosine (sorted), read by the knee", COSINE_COLOR, "dot", x, y2, shown)
        )
        layout[f"yaxis{cell.y + 1}"] = {
            "title": {"text": "cosine", "standoff": 2, "font": {"color": COSINE_COLOR}},
            "tickfont": {"color": COSINE_COLOR},
            "showgrid": False,
            **_ticks(step.curve),
        }
    if why.knee_rank is not None and why.knee_rank <= len(knee_curve):
        k = why.knee_rank
        data.append(
            {
                "type": "scatter",
                "x": [k],
                "y": [knee_curve[k - 1]],
                "xaxis": x,
                "yaxis": knee_axis,
                "mode": "markers",
                "marker": {
                    "symbol": "star",
                    "size": 17,
                    "color": KNEE_COLOR,
                    "line": {"color": "#ffffff", "width": 1},
                },
                "name": "knee",
                "legendgroup": "knee",
                "showlegend": _first("knee", shown),
                "hovertext": [f"knee at rank {k} ({CURVE_NAMES.get(step.curve_source or '', 'RRF')} curve)"],
                "hoverinfo": "text",
            }
        )
    if why.kept is not None and 0 < why.kept < len(fused):
        colour = FATES[Fate.CAP][1] if why.capped else KNEE_COLOR
        layout["shapes"].append(
            {
                "type": "line",
                "xref": x,
                "yref": f"{y} domain",
                "x0": why.kept + 0.5,
                "x1": why.kept + 0.5,
                "y0": 0,
                "y1": 1,
                "line": {"color": colour, "dash": "dash", "width": 1.5},
            }
        )


def _first(name: str, shown: set[str]) -> bool:
    """Whether a legend entry is drawn for the first time (then it is marked as shown)."""
    first = name not in shown
    shown.add(name)
    return first


def _line(
    x: list[int], y: list[float], name: str, colour: str, dash: str, xref: str, yref: str, shown: set[str]
) -> dict[str, Any]:
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "xaxis": xref,
        "yaxis": yref,
        "mode": "lines",
        "line": {"color": colour, "width": 1.5, "dash": dash},
        "name": name,
        "legendgroup": name,
        "showlegend": _first(name, shown),
        "hoverinfo": "skip",
    }


def _hover(candidate: Candidate, value: float, index: int) -> str:
    ranks = f"dense #{candidate.dense_rank or '—'}, sparse #{candidate.sparse_rank or '—'}"
    cosine = "" if candidate.dense_score is None else f", cosine {candidate.dense_score:.3f}"
    name = html.escape(f"{candidate.file_name} · {node_label(candidate)}")
    return f"rank {index + 1}: RRF {value:.4f}{cosine}<br>{name}<br>{ranks}"
