"""The strategy cards of the Compare page: one HTML block, so a knob step redraws one element.

Every text from a document is HTML-escaped.
"""

from __future__ import annotations

import html

from drag_core.app.compare import Comparison
from drag_core.app.figures.style import snippet
from drag_core.text import counted, page_span
from drag_core.types import Node

__all__ = ["CARD_CSS", "cards_html"]

CARD_CSS = """<style>
.drag-cards{display:grid;gap:0.75rem;margin-bottom:0.5rem}
.drag-card{border:1px solid rgba(49,51,63,0.2);border-radius:0.5rem;padding:0.75rem;min-width:0}
.drag-card h3{font-size:1.25rem;font-weight:600;margin:0 0 0.4rem 0;padding:0}
.drag-card .stats{font-size:0.9rem;margin-bottom:0.5rem}
.drag-card ol{margin:0;padding:0 0.25rem 0 0;list-style:none;overflow-y:auto;font-size:0.85rem}
.drag-card li{margin:0 0 0.6rem 0;overflow-wrap:anywhere}
.drag-card .summary{color:rgba(49,51,63,0.6)}
</style>"""


def _bold_count(n: int, noun: str) -> str:
    """``<b>1</b> page``, ``<b>3</b> pages``: a card's count in bold, its noun in the right number."""
    number, words = counted(n, noun).split(" ", 1)
    return f"<b>{number}</b> {words}"


def _result_item(rank: int, node: Node, score: float, summary_chars: int) -> str:
    where = f"{page_span(node.page_start, node.page_end)} · L{node.level}"
    return (
        f"<li><b>{rank}.</b> {html.escape(node.file_name)} · {where} · {score:.4f}<br>"
        f'<span class="summary">{html.escape(snippet(node.summary, summary_chars))}</span></li>'
    )


def cards_html(comparison: Comparison, per_row: int, results_px: int, summary_chars: int) -> str:
    """Every strategy as one card — nodes, pages, tokens, latency, and each result's rank, file, pages, level,
    score and the start of its summary — in one HTML block, ``per_row`` cards to a row."""
    cards = []
    for name, run in comparison.runs.items():
        result = run.result
        items = [
            _result_item(rank, node, result.scores.get(node.id, 0.0), summary_chars)
            for rank, node in enumerate(result.nodes, start=1)
        ]
        cards.append(
            f'<div class="drag-card" data-strategy="{html.escape(name)}"><h3>{html.escape(name)}</h3>'
            f'<div class="stats">{_bold_count(len(result.nodes), "node")} · {_bold_count(run.pages, "page")}<br>'
            f"<b>≈ {run.tokens:,}</b> tokens · <b>{result.latency_ms:.0f}</b> ms</div>"
            f'<ol style="max-height:{results_px}px">{"".join(items) or "<li><i>nothing returned</i></li>"}</ol>'
            "</div>"
        )
    columns = f"grid-template-columns:repeat({per_row},minmax(0,1fr))"
    return f'{CARD_CSS}<div class="drag-cards" style="{columns}">{"".join(cards)}</div>'
