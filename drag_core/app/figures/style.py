"""What every figure shares: the font, and the short plain-text names and snippets of nodes.

Plotly renders a subset of HTML in titles, labels and hover text, so every text that comes from a document
(file names, summaries, keywords) is HTML-escaped before it goes into a figure (``escaped_lines``).
"""

from __future__ import annotations

import html
import textwrap

from drag_core.store import Candidate
from drag_core.text import page_span
from drag_core.types import Node

__all__ = [
    "FONT",
    "HOVER_CHARS",
    "SNIPPET_CHARS",
    "TITLE_CHARS",
    "escaped_lines",
    "node_label",
    "snippet",
    "titled_label",
]

SNIPPET_CHARS = 200
HOVER_CHARS = 320
TITLE_CHARS = 70
FONT = {"family": "DejaVu Sans, Arial, sans-serif", "size": 12}


def node_label(node: Node | Candidate) -> str:
    """Short plain-text name of a node: level and pages (and ``root``); ``titled_label`` adds its section."""
    root = " · root" if node.parent_id == -1 else ""
    return f"L{node.level} · {page_span(node.page_start, node.page_end)}{root}"


def titled_label(node: Node) -> str:
    """``node_label`` with the node's section title, when the document has an outline: "L2 · p.27–50 — 6
    Programming: Arrays, Casts …"."""
    label = node_label(node)
    return f"{label} — {snippet(node.title, TITLE_CHARS)}" if node.title else label


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else textwrap.shorten(flat, limit, placeholder=" …")


def escaped_lines(text: str, width: int = 60) -> str:
    """``text`` wrapped at ``width`` characters, each line HTML-escaped, joined by ``<br>``."""
    return "<br>".join(html.escape(line) for line in textwrap.wrap(text, width))
