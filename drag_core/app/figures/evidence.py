"""HTML of the evidence: a snippet with the question's words marked, a link that opens a page in the page
viewer, an extractive or generated answer whose citations open their pages, and a text page with its
highlights. Every text from a document (or an LLM) is HTML-escaped; a link carries its page as JSON in
``data-open``, which the app's link component (``ui.page_links``) turns into a click the page viewer opens.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence

from drag_core.evidence import Extract, Snippet
from drag_core.text import citation

__all__ = [
    "EVIDENCE_CSS",
    "answer_html",
    "cited_html",
    "marked_html",
    "open_link",
    "snippet_html",
]

EVIDENCE_CSS = """<style>
.drag-open{color:inherit;text-decoration:underline dotted;cursor:pointer}
.drag-open:hover{text-decoration:underline}
mark.drag-hl{background:rgba(255,214,0,0.45);padding:0 1px;border-radius:2px;color:inherit}
mark.drag-term{background:rgba(255,140,0,0.55);padding:0 1px;border-radius:2px;color:inherit}
.drag-answer{line-height:1.6}
.drag-answer .cite{white-space:nowrap;font-size:0.9em}
.drag-page-text{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:0.85rem;line-height:1.45}
</style>"""
_CITATION = re.compile(r"\[([^\[\]]+?)\s+p\.(\d+)(?:\s*[–-]\s*(\d+))?\]")


def open_link(file_name: str, page: int, label: str, spans: Sequence[tuple[int, int]] = ()) -> str:
    """A link that opens ``page`` of ``file_name`` in the page viewer (``label`` is HTML already), with the
    character ``spans`` of its text highlighted when given (else the page's snippet)."""
    opened: dict[str, object] = {"file": file_name, "page": page}
    if spans:
        opened["spans"] = [list(span) for span in spans]
    target = html.escape(json.dumps(opened), quote=True)
    return f'<a href="#" class="drag-open" data-open="{target}">{label}</a>'


def _marked(text: str, spans: Iterable[tuple[int, int]], css: str) -> str:
    """``text`` escaped, with each span (non-overlapping, inside ``text``) in a ``<mark>``."""
    out, position = [], 0
    for start, end in sorted(spans):
        if start < position:
            continue
        out += [
            html.escape(text[position:start]),
            f'<mark class="{css}">{html.escape(text[start:end])}</mark>',
        ]
        position = end
    out.append(html.escape(text[position:]))
    return "".join(out)


def snippet_html(page_text: str, found: Snippet, limit: int | None = None) -> str:
    """The snippet's units, the question's words marked, joined by `` … `` (line breaks folded); with
    ``limit``, the units after the first are left out once ``limit`` characters are shown (a trailing ``…``
    says so)."""
    parts, shown = [], 0
    for unit in found.units:
        if parts and limit is not None and shown + len(unit.text) > limit:
            parts.append("")
            break
        inside = [
            (a - unit.start, b - unit.start) for a, b in found.marks if unit.start <= a and b <= unit.end
        ]
        parts.append(" ".join(_marked(page_text[unit.start : unit.end], inside, "drag-term").split()))
        shown += len(unit.text)
    return " … ".join(parts).rstrip()


def marked_html(text: str, highlights: Sequence[tuple[int, int]], marks: Sequence[tuple[int, int]]) -> str:
    """A page's whole text (a TXT or MD section, or a PDF page without its image) with the snippet's units and
    the question's words marked, line breaks kept."""
    pieces, position = [], 0
    for start, end in sorted(highlights):
        if start < position:
            continue
        inside = [(a - start, b - start) for a, b in marks if start <= a and b <= end]
        pieces += [
            html.escape(text[position:start]),
            f'<mark class="drag-hl">{_marked(text[start:end], inside, "drag-term")}</mark>',
        ]
        position = end
    pieces.append(html.escape(text[position:]))
    return f'{EVIDENCE_CSS}<div class="drag-page-text">{"".join(pieces)}</div>'


def answer_html(extracts: Sequence[Extract]) -> str:
    """An extractive answer, labelled as extracted: its sentences best first, each followed by its citation,
    which opens the page with the sentence highlighted."""
    items = "".join(
        f"<li>{html.escape(e.text)} "
        f'<span class="cite">{open_link(e.file_name, e.page, html.escape(e.citation), [(e.start, e.end)])}</span></li>'
        for e in extracts
    )
    return (
        f'{EVIDENCE_CSS}<div class="drag-answer"><b>Extracted answer</b> (the sentences quoted as they are, best '
        f"first; nothing is generated)<ol>{items}</ol></div>"
    )


def cited_html(text: str, pages: Iterable[tuple[str, int]]) -> str:
    """A generated answer with each citation ``[file p.N]`` / ``[file p.N–M]`` of a page it was given (``pages``:
    (file, page) pairs) turned into a link to that page (its first page for a range); other text escaped."""
    known = set(pages)
    out, position = [], 0
    for match in _CITATION.finditer(text):
        name, first = match.group(1).strip(), int(match.group(2))
        if (name, first) not in known:
            continue
        last = int(match.group(3) or first)
        label = html.escape(citation(name, first, last))
        out += [
            html.escape(text[position : match.start()]),
            f'<span class="cite">{open_link(name, first, label)}</span>',
        ]
        position = match.end()
    out.append(html.escape(text[position:]))
    body = "".join(out).replace("\n", "<br>")
    return f'{EVIDENCE_CSS}<div class="drag-answer">{body}</div>'
