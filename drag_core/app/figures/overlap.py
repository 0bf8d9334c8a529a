"""How much the strategies agree: a heat map of the pages every two of them share."""

from __future__ import annotations

import plotly.graph_objects as go

from drag_core.app.compare import Comparison
from drag_core.app.figures.style import FONT
from drag_core.text import counted

__all__ = ["UPRIGHT_AFTER", "overlap_figure"]

#: Strategies whose names fit side by side under the map in the narrowest window.
UPRIGHT_AFTER = 6


def overlap_figure(comparison: Comparison) -> go.Figure:
    """Heatmap of the page overlap between every two strategies: each cell the Jaccard share (pages both
    return over pages either returns) and the shared page count."""
    names = list(comparison.runs)
    pages = {name: comparison.runs[name].pages for name in names}
    jaccard = {(name, name): 1.0 for name in names}
    shared = {(name, name): pages[name] for name in names}
    for o in comparison.overlaps():
        jaccard[o.a, o.b] = jaccard[o.b, o.a] = o.jaccard
        shared[o.a, o.b] = shared[o.b, o.a] = o.shared_pages
    z = [[jaccard[a, b] for b in names] for a in names]
    text = [[f"{jaccard[a, b]:.2f}<br>{counted(shared[a, b], 'page')}" for b in names] for a in names]
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
            showscale=False,  # every cell says its share; a colour bar would take the names' width
            hovertemplate="%{y} ∩ %{x}: %{text}<extra></extra>",
        )
    )
    figure.update_layout(
        height=120 + 45 * len(names),
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        font=FONT,
        yaxis={"autorange": "reversed"},
        # names side by side while they fit the narrowest window (1000 px); more stand upright, never slanted
        xaxis={"tickangle": 0 if len(names) <= UPRIGHT_AFTER else -90},
    )
    return figure
