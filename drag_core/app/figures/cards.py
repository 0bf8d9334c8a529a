"""The strategy cards of the Compare page: one HTML block, so a knob step redraws one element.

Each result shows where it is (file, pages — a link that opens the first page of its range, highlighted, in the
page viewer; a section's best page, the one its snippet is from, is a link of its own named "best p.N"), its
section title, its snippet (the sentences of its page that best match the question, the question's words
marked; the summary when the page shares no word with it), its cosine and BM25 score with its rank in each
list, and, one click away, its summary and fused score. A one-line legend says what the scores are. Every text
from a document is HTML-escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from drag_core.app.compare import Comparison, StrategyRun
from drag_core.app.figures.evidence import EVIDENCE_CSS, open_link, snippet_html
from drag_core.app.figures.style import snippet
from drag_core.llm.answer import CONTEXT_TOKENS
from drag_core.store import Candidate
from drag_core.text import counted, page_span
from drag_core.types import Node

__all__ = ["CARD_CSS", "LEGEND", "cards_html", "score_line", "tokens_warning"]

CARD_CSS = """<style>
.drag-cards{display:grid;gap:0.75rem;margin-bottom:0.5rem}
.drag-card{border:1px solid rgba(49,51,63,0.2);border-radius:0.5rem;padding:0.75rem;min-width:0}
.drag-card h3{font-size:1.25rem;font-weight:600;margin:0 0 0.4rem 0;padding:0}
.drag-card .stats{font-size:0.9rem;margin-bottom:0.5rem}
.drag-card .stats .warn{color:#b45309;font-weight:600}
.drag-card ol{margin:0;padding:0 0.25rem 0 0;list-style:none;overflow-y:auto;font-size:0.85rem}
.drag-card li{margin:0 0 0.7rem 0;overflow-wrap:anywhere}
.drag-card .title{font-style:italic}
.drag-card .snippet{margin:0.15rem 0}
.drag-card .summary,.drag-card .scores,.drag-card details{color:rgba(49,51,63,0.65)}
.drag-card .scores{font-size:0.8rem;font-variant-numeric:tabular-nums}
.drag-card details{font-size:0.8rem}
.drag-card summary{cursor:pointer}
.drag-card .label{font-size:0.75rem;border-radius:0.25rem;padding:0 0.3rem;margin-left:0.25rem}
.drag-card .label.yes{background:rgba(21,128,61,0.15);color:#15803d}
.drag-card .label.no{background:rgba(185,28,28,0.12);color:#b91c1c}
.drag-legend{font-size:0.8rem;color:rgba(49,51,63,0.65);margin:0 0 0.5rem 0}
</style>"""
SNIPPET_CHARS = 280  # a card shows the snippet's first units up to this length; the page viewer shows it all
LEGEND = (
    "cos: MiniLM cosine of question and result (higher is closer) · BM25: term-match score (– no word in "
    "common) · #n: the result's rank in that list of its last ranking · fused (in the details): RRF, Σ 1/(k + "
    "rank) over both lists · click a page to see it with the matching sentences highlighted"
)


def _bold_count(n: int, noun: str) -> str:
    """``<b>1</b> page``, ``<b>3</b> pages``: a card's count in bold, its noun in the right number."""
    number, words = counted(n, noun).split(" ", 1)
    return f"<b>{number}</b> {words}"


def tokens_warning(tokens: int, limit: int = CONTEXT_TOKENS) -> str | None:
    """What to say when a context of ``tokens`` nears (≥ 80 %) or passes what a typical model takes."""
    if tokens > limit:
        return f"more than the {limit // 1000}k tokens a typical model takes: an answer would read only a cut of it"
    if tokens >= 0.8 * limit:
        return f"close to the {limit // 1000}k tokens a typical model takes"
    return None


def score_line(candidate: Candidate | None) -> str:
    """``cos 0.612 #2 · BM25 7.31 #1`` (``–``: not in that list)."""
    if candidate is None:
        return "cos – · BM25 –"
    c = candidate
    cosine = (
        "–"
        if c.dense_score is None
        else f"{c.dense_score:.3f}" + (f" #{c.dense_rank}" if c.dense_rank else "")
    )
    bm25 = (
        "–"
        if c.sparse_score is None
        else f"{c.sparse_score:.2f}" + (f" #{c.sparse_rank}" if c.sparse_rank else "")
    )
    return f"cos {cosine} · BM25 {bm25}"


def _label(marks: Mapping[tuple[str, int], bool], node: Node, page: int) -> str:
    """A badge when the page was marked for the question."""
    if (node.file_name, page) not in marks:
        return ""
    yes = marks[(node.file_name, page)]
    return f'<span class="label {"yes" if yes else "no"}">{"✓ relevant" if yes else "✗ not relevant"}</span>'


def _result_item(
    rank: int,
    node: Node,
    run: StrategyRun,
    final: Mapping[int, Candidate],
    summary_chars: int,
    marks: Mapping[tuple[str, int], bool],
) -> str:
    result = run.result
    page, found = run.snippets.get(node.id, (node, None))
    first, best = node.page_start, page.page_start
    where = html.escape(f"{node.file_name} · {page_span(node.page_start, node.page_end)}")
    head = f"<b>{rank}.</b> {open_link(node.file_name, first, where)}{_label(marks, node, first)}"
    if best != first and found and found.units:  # the snippet's page, one click away and named as such
        head += f" · {open_link(node.file_name, best, f'best p.{best}')}{_label(marks, node, best)}"
    head += f" · L{node.level}"
    title = f'<div class="title">{html.escape(node.title)}</div>' if node.title else ""
    if found and found.units:
        body = f'<div class="snippet">{snippet_html(page.text, found, SNIPPET_CHARS)}</div>'
    else:
        body = f'<div class="summary">{html.escape(snippet(node.summary, summary_chars))}</div>'
    fused = result.scores.get(node.id, 0.0)
    details = f"<details><summary>summary · fused {fused:.4f}</summary>{html.escape(node.summary) or '(none)'}</details>"
    scores = f'<div class="scores">{score_line(final.get(node.id))}</div>'
    return f"<li>{head}{title}{body}{scores}{details}</li>"


def cards_html(
    comparison: Comparison,
    per_row: int,
    results_px: int,
    summary_chars: int,
    marks: Mapping[tuple[str, int], bool] | None = None,
) -> str:
    """Every strategy as one card — nodes, pages, tokens (with a warning near a typical model's context),
    latency, and each result (see the module docstring) — in one HTML block, ``per_row`` cards to a row, under
    the legend. ``marks``: the pages the user marked for this question ((file, page) → relevant)."""
    marks = marks or {}
    cards = []
    for name, run in comparison.runs.items():
        result = run.result
        final = result.final_candidates()
        items = [
            _result_item(rank, node, run, final, summary_chars, marks)
            for rank, node in enumerate(result.nodes, start=1)
        ]
        warning = tokens_warning(run.tokens)
        tokens = f"<b>≈ {run.tokens:,}</b> tokens"
        if warning:
            tokens = f'<span class="warn" title="{html.escape(warning)}">{tokens} ⚠</span>'
        cards.append(
            f'<div class="drag-card" data-strategy="{html.escape(name)}"><h3>{html.escape(name)}</h3>'
            f'<div class="stats">{_bold_count(len(result.nodes), "node")} · {_bold_count(run.pages, "page")}<br>'
            f"{tokens} · <b>{result.latency_ms:.0f}</b> ms</div>"
            f'<ol style="max-height:{results_px}px">{"".join(items) or "<li><i>nothing returned</i></li>"}</ol>'
            "</div>"
        )
    columns = f"grid-template-columns:repeat({per_row},minmax(0,1fr))"
    legend = f'<p class="drag-legend">{html.escape(LEGEND)}</p>'
    return f'{CARD_CSS}{EVIDENCE_CSS}{legend}<div class="drag-cards" style="{columns}">{"".join(cards)}</div>'
