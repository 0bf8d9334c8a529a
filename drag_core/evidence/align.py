"""Spans of a page's text → PDFium character indices, so the passages a snippet quotes can be boxed on the page.

PDFium numbers the characters of a page (``count_chars``), generated spaces and line breaks included; on every
page of the shared PDFs ``get_text_range()`` has exactly one character per index. ``char_map`` repeats the
clean-up ``ingest.pdf_text`` applies to that text character by character (``\r\n`` and ``\r`` → ``\n``,
PDFium's line-break hyphen U+FFFE → ``-``; ``ingest.clean_text``'s NFKC, NUL and other control characters
dropped) and keeps each character's index (a ligature's letters share it), so for text read by PDFium the stored
page text and the map agree character for character — but where a clean-up rule spans characters (a TeX accent
joined to its letter, a soft hyphen at a line end). Where they do not agree (those, or pypdf read the text), the
visible characters of the two texts are aligned (``difflib``; whitespace and hyphens ignored, which is where pypdf
differs), and each character of the stored text gets the index of its partner.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from functools import lru_cache

from drag_core.ingest.clean_text import clean_text
from drag_core.ingest.pdf_text import PDFIUM_HYPHEN

__all__ = ["char_map", "char_runs", "text_indices"]


def char_map(raw: str) -> tuple[str, list[int]]:
    """The page text ``pdf_text`` makes of PDFium's raw text, and the PDFium index of each of its characters."""
    out: list[str] = []
    index: list[int] = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\r":
            out.append("\n")
            index.append(i)
            i += 2 if raw[i + 1 : i + 2] == "\n" else 1
            continue
        for part in _cleaned(ch):
            out.append(part)
            index.append(i)
        i += 1
    return "".join(out), index


@lru_cache(maxsize=4096)
def _cleaned(ch: str) -> str:
    """What the ingest clean-up makes of one character of PDFium's text (none, one or several characters)."""
    return "-" if ch == PDFIUM_HYPHEN else clean_text(ch)


def _visible(text: str) -> tuple[str, list[int]]:
    keep = [(ch, i) for i, ch in enumerate(text) if not ch.isspace() and ch not in "-\ufffe"]
    return "".join(ch for ch, _ in keep), [i for _, i in keep]


def text_indices(page_text: str, raw: str) -> list[int]:
    """For each character of ``page_text`` (the page text as stored), its PDFium character index in the page
    whose raw text is ``raw``; -1 where the character has no partner (then it is not boxed)."""
    cleaned, index = char_map(raw)
    if cleaned == page_text:
        return index
    a, a_pos = _visible(page_text)
    b, b_pos = _visible(cleaned)
    found = [-1] * len(page_text)
    if a == b:
        pairs = zip(a_pos, b_pos)
    else:
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        pairs = (
            (a_pos[m.a + k], b_pos[m.b + k]) for m in matcher.get_matching_blocks() for k in range(m.size)
        )
    for i, j in pairs:
        found[i] = index[j]
    return found


def char_runs(spans: Sequence[tuple[int, int]], indices: Sequence[int]) -> list[tuple[int, int]]:
    """Spans of the page text → runs ``(first index, count)`` of PDFium characters, merged where they touch."""
    runs: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        mapped = [indices[i] for i in range(max(0, start), min(len(indices), end)) if indices[i] >= 0]
        if not mapped:
            continue
        first, last = min(mapped), max(mapped)
        if runs and first <= runs[-1][0] + runs[-1][1]:
            head, count = runs[-1]
            runs[-1] = (head, max(count, last - head + 1))
        else:
            runs.append((first, last - first + 1))
    return runs
