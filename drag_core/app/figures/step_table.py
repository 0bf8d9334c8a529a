"""The table under a strategy's ranking steps: one row per step (``explain.step_rows``: what was ranked, the
knee rule, the knee, the cut and why, how many were kept, how long it took), drawn as HTML of a fixed layout so
it fits its column at any width: a long file name wraps inside its cell instead of pushing the last columns
out of sight (``st.table`` sizes columns by their longest word)."""

from __future__ import annotations

import html

from drag_core.search import SearchResult
from drag_core.search.explain import step_rows

__all__ = ["COLUMNS", "STEP_TABLE_CSS", "step_table_html"]

#: Each column's share of the table's width, in percent, in the order of ``step_rows``; numbers align right.
COLUMNS: dict[str, int] = {
    "step": 23,
    "ranked": 10,
    "knee rule": 15,
    "knee at": 9,
    "cut": 25,
    "kept": 8,
    "ms": 10,
}
_NUMBERS = {"ranked", "knee at", "kept", "ms"}
STEP_TABLE_CSS = """<style>
.drag-steps{width:100%;table-layout:fixed;border-collapse:collapse;font-size:0.8rem;margin:0 0 1rem 0}
.drag-steps th,.drag-steps td{border:1px solid rgba(49,51,63,0.1);padding:0.3rem 0.4rem;vertical-align:top;
overflow-wrap:anywhere}
.drag-steps th{font-weight:400;color:rgba(49,51,63,0.6);text-align:left}
.drag-steps .n{text-align:right;font-variant-numeric:tabular-nums}
</style>"""


def step_table_html(result: SearchResult) -> str:
    """The steps of ``result`` as one fixed-layout HTML table (every text escaped)."""
    rows = step_rows(result)
    names = list(COLUMNS)
    widths = "".join(f'<col style="width:{COLUMNS[n]}%">' for n in names)
    head = "".join(f'<th class="{"n" if n in _NUMBERS else ""}">{html.escape(n)}</th>' for n in names)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="{"n" if n in _NUMBERS else ""}">{html.escape(str(row.get(n, "")))}</td>'
            for n in names
        )
        + "</tr>"
        for row in rows
    )
    return f'{STEP_TABLE_CSS}<table class="drag-steps"><colgroup>{widths}</colgroup><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
