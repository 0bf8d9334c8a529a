"""The "kept vs sensitivity" line under the knee panels, drawn as inline SVG: one small panel per knee step
showing how many items every slider sensitivity would keep, the current one marked.

An image (SVG as a data URI; ``st.html`` keeps no inline SVG) rather than a Plotly figure: it changes on
every slider step (the mark moves), and the browser swaps a few KB of image where Plotly redrew its whole
grid (~110 ms a step). The values are in each image's tooltip."""

from __future__ import annotations

import html
from urllib.parse import quote

from drag_core.app.figures.steps import CURVE_COLUMNS, FATES, KNEE_COLOR
from drag_core.knee import find_knee
from drag_core.search import SearchResult
from drag_core.search.base import Step
from drag_core.search.explain import SENSITIVITIES, kept_by_sensitivity, step_title

__all__ = ["BOTTOM", "CSS", "HEIGHT", "LEFT", "MAX_PX", "RIGHT", "TOP", "WIDTH", "sensitivity_html"]

#: The image's own size: drawn 1:1 in the narrowest column (1000 px window) and at most ``MAX_PX`` wide.
WIDTH, HEIGHT = 260, 92
LEFT, RIGHT, TOP, BOTTOM = 28, 8, 8, 30
MAX_PX = 360
CSS = f"""<style>
.drag-kvs{{display:grid;gap:0.25rem 4%;margin:0 0 0.5rem 0}}
.drag-kvs .panel{{min-width:0;text-align:center}}
.drag-kvs .title{{font-size:12px;color:#495057;overflow-wrap:anywhere}}
.drag-kvs img{{width:100%;max-width:{MAX_PX}px;height:auto}}
</style>"""


def _x(s: float) -> float:
    low, high = SENSITIVITIES[0] - 0.15, SENSITIVITIES[-1] + 0.15
    return LEFT + (s - low) / (high - low) * (WIDTH - LEFT - RIGHT)


def _panel(step: Step, result: SearchResult) -> str:
    params = result.params
    grid, kept, knees = kept_by_sensitivity(step, params)
    now = find_knee(step.curve, params.knee_method, params.sensitivity, step.least, step.most).keep
    top = max([*kept, now, 1])

    def y(k: int) -> float:
        return TOP + (1 - k / top) * (HEIGHT - TOP - BOTTOM)

    path = f"M{_x(grid[0]):.1f},{y(kept[0]):.1f}" + "".join(
        f"H{_x(s):.1f}V{y(k):.1f}" for s, k in zip(grid[1:], kept[1:])
    )
    points = "".join(
        f'<circle cx="{_x(s):.1f}" cy="{y(k):.1f}" r="2.5" fill="{FATES["kept"][1]}"/>'
        for s, k in zip(grid, kept)
    )
    cx, cy = _x(params.sensitivity), y(now)
    mark = (
        f'<path d="M{cx:.1f},{cy - 6:.1f}L{cx + 6:.1f},{cy:.1f}L{cx:.1f},{cy + 6:.1f}L{cx - 6:.1f},{cy:.1f}Z" '
        f'fill="{KNEE_COLOR}"/>'
    )
    base = HEIGHT - BOTTOM
    ticks = "".join(
        f'<text x="{_x(s):.1f}" y="{base + 12}" text-anchor="middle">{s:g}</text>' for s in range(6)
    )
    axes = (
        f'<path d="M{LEFT},{TOP}V{base}H{WIDTH - RIGHT}" stroke="#adb5bd" fill="none"/>'
        f'<text x="{LEFT - 4}" y="{TOP + 4}" text-anchor="end">{top}</text>'
        f'<text x="{LEFT - 4}" y="{base}" text-anchor="end">0</text>'
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 3}" text-anchor="middle">sensitivity S (kept ↑)</text>'
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans,Arial,'
        f'sans-serif" font-size="11" fill="#495057">{axes}{ticks}'
        f'<path d="{path}" stroke="{FATES["kept"][1]}" stroke-width="1.5" fill="none"/>{points}{mark}</svg>'
    )
    title = f"kept vs sensitivity · {html.escape(step_title(step))}"
    summary = ", ".join(
        f"S {s:g}: {k}" + ("" if r is None else f" (knee {r})") for s, k, r in zip(grid, kept, knees)
    )
    return (
        f'<div class="panel"><div class="title" title="{title}">{title}</div>'
        f'<img class="kvs" src="data:image/svg+xml,{quote(svg)}" alt="{title}" title="kept: {summary}; now S = '
        f'{params.sensitivity:g}, kept {now}" data-sensitivity="{params.sensitivity:g}" data-kept="{now}"></div>'
    )


def sensitivity_html(result: SearchResult) -> str | None:
    """For each knee step of a search, in the places of its step panels: how many items every sensitivity of
    the slider would keep (the knee's rank in the tooltip), the current sensitivity marked. None when no step
    was cut at a knee."""
    steps = result.trace
    if not any(step.curve for step in steps):
        return None
    columns = max(1, min(CURVE_COLUMNS, len(steps)))
    panels = "".join(_panel(step, result) if step.curve else '<div class="panel"></div>' for step in steps)
    style = f"grid-template-columns:repeat({columns},minmax(0,1fr))"
    return f'{CSS}<div class="drag-kvs" style="{style}">{panels}</div>'
