"""Cost against index size from ``bench/scale.py --json``, as a self-contained SVG (no plotting package).

Run: ``.venv/bin/python bench/scale_plot.py RESULTS.json docs/scale-cost.svg``. Both axes are logarithmic: nodes
across, each cost up as a multiple of its value at the smallest size, beside the index's own growth (the
dashed diagonal), so a line under the diagonal grows slower than the index.
"""

from __future__ import annotations

import argparse
import html
import json
import math
from pathlib import Path

WIDTH, HEIGHT = 860, 520
LEFT, RIGHT, TOP, BOTTOM = 70, 250, 50, 60
COLOURS = ("#00798c", "#d1495b", "#edae49", "#3d5a80", "#7b2cbf", "#2a9d8f", "#8d6e63")
#: (label, how to read the cost from one size's row)
COSTS = (
    ("flat p95", lambda row: row["p95_ms"]["flat"]),
    ("adaptive p95", lambda row: row["p95_ms"]["adaptive"]),
    ("open", lambda row: row["open_s"]),
    ("resident memory", lambda row: row["rss_mib"]),
    ("disk", lambda row: row["disk_mib"]),
    ("ingest of 100 pages", lambda row: row["ingest_100_pages_s"]),
)


def _position(value: float, low: float, high: float, start: float, end: float) -> float:
    share = (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low))
    return start + share * (end - start)


def svg(rows: list[dict]) -> str:
    """The plot: one line per cost (its multiple of the smallest index's), the index's growth dashed."""
    nodes = [row["nodes"] for row in rows]
    lines = {label: [read(row) for row in rows] for label, read in COSTS if read(rows[0])}
    ratios = {label: [v / values[0] for v in values] for label, values in lines.items()}
    growth = [n / nodes[0] for n in nodes]
    top = max([*growth, *(r for values in ratios.values() for r in values)]) * 1.3
    bottom = min([1.0, *(r for values in ratios.values() for r in values)]) / 1.3

    def x(n: float) -> float:
        return _position(n, nodes[0] / 1.3, nodes[-1] * 1.3, LEFT, WIDTH - RIGHT)

    def y(r: float) -> float:
        return _position(r, bottom, top, HEIGHT - BOTTOM, TOP)

    out = [f'<path d="M{LEFT},{TOP}V{HEIGHT - BOTTOM}H{WIDTH - RIGHT}" stroke="#adb5bd" fill="none"/>']
    for n in nodes:
        out.append(f'<text x="{x(n):.1f}" y="{HEIGHT - BOTTOM + 18}" text-anchor="middle">{n:,}</text>')
    for e in range(math.floor(math.log10(bottom)), math.ceil(math.log10(top)) + 1):
        for m in (1, 3):
            r = m * 10.0**e
            if bottom <= r <= top:
                out.append(f'<path d="M{LEFT},{y(r):.1f}H{WIDTH - RIGHT}" stroke="#eef0f2"/>')
                out.append(f'<text x="{LEFT - 8}" y="{y(r) + 4:.1f}" text-anchor="end">{r:g}×</text>')
    diagonal = "M" + "L".join(f"{x(n):.1f},{y(g):.1f}" for n, g in zip(nodes, growth))
    out.append(f'<path d="{diagonal}" stroke="#868e96" stroke-dasharray="6 4" fill="none"/>')
    legend = [f'<text x="{WIDTH - RIGHT + 32}" y="{TOP + 1}">index size (nodes)</text>']
    legend.append(f'<path d="M{WIDTH - RIGHT + 12},{TOP - 3}h16" stroke="#868e96" stroke-dasharray="4 3"/>')
    for row_number, (label, values) in enumerate(ratios.items(), start=1):
        colour = COLOURS[(row_number - 1) % len(COLOURS)]
        path = "M" + "L".join(f"{x(n):.1f},{y(r):.1f}" for n, r in zip(nodes, values))
        out.append(f'<path d="{path}" stroke="{colour}" stroke-width="2" fill="none"/>')
        for n, r, raw in zip(nodes, values, lines[label]):
            tip = html.escape(f"{label}: {raw:.4g} at {n:,} nodes ({r:.2f}× the smallest)")
            out.append(
                f'<circle cx="{x(n):.1f}" cy="{y(r):.1f}" r="3.5" fill="{colour}"><title>{tip}</title></circle>'
            )
        top_y = TOP + 18 * row_number
        legend.append(
            f'<rect x="{WIDTH - RIGHT + 15}" y="{top_y - 9}" width="12" height="12" fill="{colour}"/>'
        )
        legend.append(f'<text x="{WIDTH - RIGHT + 32}" y="{top_y + 1}">{html.escape(label)}</text>')
    out.append(
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 15}" text-anchor="middle">nodes (log)</text>'
    )
    out.append(
        f'<text transform="translate(18,{(TOP + HEIGHT - BOTTOM) / 2}) rotate(-90)" text-anchor="middle">'
        "cost ÷ cost at the smallest index (log)</text>"
    )
    out.append(f'<text x="{LEFT}" y="28" font-size="15" font-weight="bold">Cost against index size</text>')
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12" fill="#1f2933">'
        f"{''.join(out)}{''.join(legend)}</svg>\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="the JSON of bench/scale.py --json")
    parser.add_argument("svg", type=Path)
    args = parser.parse_args()
    args.svg.write_text(svg(json.loads(args.results.read_text())["sizes"]))


if __name__ == "__main__":
    main()
