"""The "kept vs sensitivity" line under the knee panels, drawn as inline SVG: one small panel per knee step
showing how many items every slider sensitivity would keep, the current one marked.

An image (SVG as a data URI; ``st.html`` keeps no inline SVG) rather than a Plotly figure: it changes on
every slider step (the mark moves), and the browser swaps a few KB of image where Plotly redrew its whole
grid (~110 ms a step). The values are in each image's tooltip."""

from __future__ import annotations

import html
from urllib.parse import quote

from drag_core.app.figures.steps import CURVE_COLUMNS, FATES, KNEE_COLOR
from drag_core.search import SearchResult
from drag_core.search.base import Step
from drag_core.search.explain import kept_by_sensitivity, step_title

__all__ = ["BOTTOM", "CSS", "HEIGHT", "LEFT", "MAX_PX", "RIGHT", "TICKS", "TOP", "WIDTH", "sensitivity_html"]

#: The image's own size: drawn 1:1 in the narrowest column (1000 px window) and at most ``MAX_PX`` wide.
WIDTH, HEIGHT = 260, 92
LEFT, RIGHT, TOP, BOTTOM = 28, 8, 8, 30
MAX_PX = 360
#: Most tick labels under one line.
TICKS = 6
CSS = f"""<style>
.drag-kvs{{display:grid;gap:0.25rem 4%;margin:0 0 0.5rem 0}}
.drag-kvs .panel{{min-width:0;text-align:center}}
.drag-kvs .title{{font-size:12px;color:#495057;overflow-wrap:anywhere}}
.drag-kvs img{{width:100%;max-width:{MAX_PX}px;height:auto}}
</style>"""


def _position(grid: list[float], s: float) -> float:
    """Where ``s`` sits on the slider: its index among the grid's values (the slider spaces them evenly),
    interpolated between neighbours for a value the grid lacks."""
    if s <= grid[0]:
        return 0.0
    for i, (low, high) in enumerate(zip(grid, grid[1:])):
        if s <= high:
            return i + (s - low) / (high - low)
    return float(len(grid) - 1)


def _panel(step: Step) -> str:
    grid, kept, knees = kept_by_sensitivity(step)
    now, current = step.cut or 0, float(step.sensitivity or 0.0)
    top = max([*kept, now, 1])
    span = max(1, len(grid) - 1)

    def x(position: float) -> float:
        return LEFT + (position + 0.5) / (span + 1) * (WIDTH - LEFT - RIGHT)

    def y(k: int) -> float:
        return TOP + (1 - k / top) * (HEIGHT - TOP - BOTTOM)

    path = f"M{x(0):.1f},{y(kept[0]):.1f}" + "".join(
        f"H{x(i):.1f}V{y(k):.1f}" for i, k in enumerate(kept) if i
    )
    points = "".join(
        f'<circle cx="{x(i):.1f}" cy="{y(k):.1f}" r="2.5" fill="{FATES["kept"][1]}"/>'
        for i, k in enumerate(kept)
    )
    cx, cy = x(_position(grid, current)), y(now)
    mark = (
        f'<path d="M{cx:.1f},{cy - 6:.1f}L{cx + 6:.1f},{cy:.1f}L{cx:.1f},{cy + 6:.1f}L{cx - 6:.1f},{cy:.1f}Z" '
        f'fill="{KNEE_COLOR}"/>'
    )
    base = HEIGHT - BOTTOM
    every = -(-len(grid) // TICKS)
    ticks = "".join(
        f'<text x="{x(i):.1f}" y="{base + 12}" text-anchor="middle">{s:g}</text>'
        for i, s in enumerate(grid)
        if i % every == 0
    )
    arrow = "↓" if kept[-1] < kept[0] else "↑"
    axes = (
        f'<path d="M{LEFT},{TOP}V{base}H{WIDTH - RIGHT}" stroke="#adb5bd" fill="none"/>'
        f'<text x="{LEFT - 4}" y="{TOP + 4}" text-anchor="end">{top}</text>'
        f'<text x="{LEFT - 4}" y="{base}" text-anchor="end">0</text>'
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 3}" text-anchor="middle">'
        f"{html.escape(step.method or '')} sensitivity S (kept {arrow})</text>"
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
        f'{current:g}, kept {now}" data-sensitivity="{current:g}" data-kept="{now}"></div>'
    )


def sensitivity_html(result: SearchResult) -> str | None:
    """For each knee step of a search, in the places of its step panels: how many items every sensitivity of
    the slider would keep (the knee's rank in the tooltip), the current sensitivity marked — each step's own
    detector, grid and sensitivity, as its trace records them. None when no step was cut at a knee. (The
    Compare page draws none for a strategy whose knee the slider cannot move: ``compare.knee_pinned``.)"""
    steps = result.trace
    if not any(step.curve for step in steps):
        return None
    columns = max(1, min(CURVE_COLUMNS, len(steps)))
    panels = "".join(_panel(step) if step.curve else '<div class="panel"></div>' for step in steps)
    style = f"grid-template-columns:repeat({columns},minmax(0,1fr))"
    return f'{CSS}<div class="drag-kvs" style="{style}">{panels}</div>'
