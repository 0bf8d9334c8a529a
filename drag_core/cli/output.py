"""What the commands print for people: tables with headers (rich), page spans, summaries cut at a word.

rich renders the tables and the ingest progress (``progress.py``): one well-kept library for both, which drops
colour and live redrawing by itself when the output is not a terminal.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from drag_core.text import counted, page_span

if TYPE_CHECKING:
    from drag_core.engine import DocumentInfo
    from drag_core.search import SearchResult
    from drag_core.types import Node

__all__ = [
    "KEYWORDS_SHOWN",
    "PIPE_WIDTH",
    "SUMMARY_CHARS",
    "TITLE_CHARS",
    "console",
    "cosines",
    "cut",
    "docs_table",
    "search_table",
    "short_ids",
    "tree_lines",
]

SUMMARY_CHARS = 100
TITLE_CHARS = 40
KEYWORDS_SHOWN = 6
#: Width of a table written to a pipe or a file (a terminal uses its own width).
PIPE_WIDTH = 160


def console(stream: object = None) -> Console:
    """A console on stdout (or ``stream``), as wide as the terminal, or ``PIPE_WIDTH`` when piped."""
    target = stream or sys.stdout
    is_tty = getattr(target, "isatty", lambda: False)()
    return Console(file=target, width=None if is_tty else PIPE_WIDTH, highlight=False, soft_wrap=False)


def cut(text: str, width: int = SUMMARY_CHARS) -> str:
    """``text`` on one line, cut at a word boundary to at most ``width`` characters."""
    return textwrap.shorten(" ".join(text.split()), width=width, placeholder="…")


def short_ids(ids: Iterable[int], least: int = 4) -> dict[int, str]:
    """The shortest hex suffixes (at least ``least`` digits) that still tell the ids apart."""
    hexes = {i: f"{i:x}" for i in ids}
    for digits in range(least, 17):
        shown = {i: h[-digits:] for i, h in hexes.items()}
        if len(set(shown.values())) == len(shown):
            return shown
    return hexes


def cosines(result: SearchResult) -> dict[int, float]:
    """Each final node's cosine to the query, from the last ranking it was in."""
    found: dict[int, float] = {}
    for step in result.trace:
        for candidate in step.candidates:
            if candidate.dense_score is not None:
                found[candidate.id] = candidate.dense_score
    return found


def search_table(result: SearchResult) -> Table:
    pages = len(result.pages)
    table = Table(
        title=f"{result.strategy}: {counted(len(result.nodes), 'node')}, {counted(pages, 'page')}, "
        f"{result.latency_ms:.0f} ms",
        title_justify="left",
    )
    for name, justify in (("#", "right"), ("file", "left"), ("pages", "left"), ("level", "right")):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    table.add_column("section", max_width=TITLE_CHARS)
    table.add_column("cosine", justify="right", no_wrap=True)
    table.add_column("fused", justify="right", no_wrap=True)
    table.add_column("summary", ratio=1)
    cosine = cosines(result)
    for rank, node in enumerate(result.nodes, 1):
        fused = result.scores.get(node.id)
        table.add_row(
            str(rank),
            node.file_name,
            page_span(node.page_start, node.page_end),
            str(node.level),
            cut(node.title, TITLE_CHARS) if node.title else "–",
            f"{cosine[node.id]:.3f}" if node.id in cosine else "–",
            f"{fused:.4f}" if fused is not None else "–",
            cut(node.summary),
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


def tree_lines(nodes: Sequence[Node]) -> list[str]:
    """A document's tree as an indented outline: page span, level, short id, section title (when the document
    has an outline) and keywords."""
    by_id = {n.id: n for n in nodes}
    ids = short_ids(by_id)
    width = max((len(page_span(n.page_start, n.page_end)) for n in nodes), default=0)
    lines: list[str] = []

    def walk(node: Node, depth: int) -> None:
        span = page_span(node.page_start, node.page_end)
        keywords = ", ".join(node.keywords[:KEYWORDS_SHOWN])
        title = f"{cut(node.title, TITLE_CHARS)} — " if node.title else ""
        lines.append(
            f"{'  ' * depth}{span:<{width}}  L{node.level}  #{ids[node.id]}  {title}{keywords}".rstrip()
        )
        for child in node.child_ids:
            if child in by_id:
                walk(by_id[child], depth + 1)

    for root in (n for n in nodes if n.is_root):
        walk(root, 0)
    return lines
