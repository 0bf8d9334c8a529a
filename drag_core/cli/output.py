"""What the commands print for people: tables with headers (rich), page spans, summaries cut at a word.

rich renders the tables and the ingest progress (``progress.py``): one well-kept library for both, which drops
colour and live redrawing by itself when the output is not a terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from drag_core.text import counted, cut, page_span

if TYPE_CHECKING:
    from drag_core.engine import DocumentInfo
    from drag_core.evidence import Snippet
    from drag_core.evidence.view import PageView
    from drag_core.search import SearchResult
    from drag_core.types import Node

__all__ = [
    "LEGEND",
    "PIPE_WIDTH",
    "SNIPPET_CHARS",
    "SUMMARY_CHARS",
    "console",
    "docs_table",
    "page_json",
    "score_cell",
    "search_table",
]

SUMMARY_CHARS = 100
SNIPPET_CHARS = 160
#: What the score columns mean, under every result table.
LEGEND = (
    "cosine: MiniLM similarity of question and node (higher is closer); BM25: term-match score (– shares no "
    "term); #n: rank in that list; fused: RRF, the sum of 1/(k + rank) over both lists"
)
#: Width of a table written to a pipe or a file (a terminal uses its own width).
PIPE_WIDTH = 160


def console(stream: object = None) -> Console:
    """A console on stdout (or ``stream``), as wide as the terminal, or ``PIPE_WIDTH`` when piped."""
    target = stream or sys.stdout
    is_tty = getattr(target, "isatty", lambda: False)()
    return Console(file=target, width=None if is_tty else PIPE_WIDTH, highlight=False, soft_wrap=False)


def score_cell(score: float | None, rank: int | None, digits: int) -> str:
    """``0.612 #2``: a list's score and the node's rank in that list (``–``: not in that list)."""
    return "–" if score is None else f"{score:.{digits}f} #{rank}" if rank else f"{score:.{digits}f}"


def search_table(result: SearchResult, snippets: Mapping[int, tuple[Node, Snippet]] | None = None) -> Table:
    """The results for people: rank, file, pages, level, cosine and BM25 with each list's rank, the fused
    score, and the section title with the snippet (the summary when the page shares no word with the
    question)."""
    pages = len(result.pages)
    table = Table(
        title=f"{result.strategy}: {counted(len(result.nodes), 'node')}, {counted(pages, 'page')}, "
        f"{result.latency_ms:.0f} ms",
        title_justify="left",
        caption=LEGEND,
        caption_justify="left",
    )
    for name, justify in (("#", "right"), ("file", "left"), ("pages", "left"), ("level", "right")):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for name in ("cosine", "BM25", "fused"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("title / snippet", ratio=1)
    final = result.final_candidates()
    snippets = snippets or {}
    for rank, node in enumerate(result.nodes, 1):
        fused = result.scores.get(node.id)
        c = final.get(node.id)
        page, found = snippets.get(node.id, (node, None))
        where = f" (p.{page.page_start})" if node.level and found and found.text else ""
        words = f"{found.text}{where}" if found and found.text else f"summary: {node.summary}"
        table.add_row(
            str(rank),
            node.file_name,
            page_span(node.page_start, node.page_end),
            str(node.level),
            score_cell(c.dense_score, c.dense_rank, 3) if c else "–",
            score_cell(c.sparse_score, c.sparse_rank, 2) if c else "–",
            f"{fused:.4f}" if fused is not None else "–",
            cut(f"{node.title} — {words}" if node.title else words, SNIPPET_CHARS),
        )
    return table


def docs_table(docs: Sequence[DocumentInfo]) -> Table:
    table = Table(show_footer=True, title="indexed documents", title_justify="left")

    def total(attr: str) -> str:
        return str(sum(getattr(d, attr) for d in docs))

    table.add_column("file", footer=counted(len(docs), "document"))
    for name, attr in (("pages", "pages"), ("empty", "empty_pages"), ("nodes", "nodes")):
        table.add_column(name, footer=total(attr), justify="right")
    table.add_column("levels", justify="right")
    table.add_column("sections", footer=total("sections"), justify="right")
    table.add_column("running lines", justify="right")
    table.add_column("LLM fallbacks", footer=total("fallbacks"), justify="right")
    table.add_column("built")
    for d in docs:
        built = "current" if d.current else f"{d.stale_reason}: ingest again"
        running = len(d.running_lines)
        row = (
            d.file_name,
            d.pages,
            d.empty_pages,
            d.nodes,
            d.levels,
            d.sections,
            running,
            d.fallbacks,
            built,
        )
        table.add_row(*map(str, row))
    return table


def page_json(shown: PageView, png: str | None, ms: float) -> dict[str, object]:
    """What ``drag page --json`` prints."""
    image = shown.image
    return {
        "file_name": shown.file_name,
        "page": shown.page,
        "pages": shown.pages,
        "title": shown.title,
        "snippet": shown.snippet.text,
        "highlights": [list(s) for s in shown.snippet.highlights],
        "marks": [list(s) for s in shown.snippet.marks],
        "png": png if image else None,
        "width": image.width if image else None,
        "height": image.height if image else None,
        "boxes": image.boxes if image else 0,
        "note": shown.note,
        "ms": round(ms, 1),
    }
