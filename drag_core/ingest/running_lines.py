"""Running headers and footers: the lines that repeat at the top or bottom of a document's pages.

They are noise in summaries, keywords and vectors ("Debian Reference 13 / 233", "Table of Contents", a company
name, page numbers), so ingest describes and embeds each page's *body* (``page_bodies``); the page text shown
to people keeps them. Works on a list of page texts: both PDF engines, and text files cut at form feeds.

1. Every line has a *key* (``line_key``): lower case, all whitespace removed (pypdf glues words:
   "DebianReference 13/ 233"), each digit run → ``#``, a roman numeral at an edge of a line with other words → ``#``.
2. Page numbers (``page_number_lines``): an integer at the start or end of one of the first / last
   ``EDGE_LINES`` lines of page i (not bracketed, not dotted like "5.5.2", at most pages + ``NUMBER_SLACK`` so
   years are out) is the printed page number when its offset n − i is shared by at least ``MIN_NEIGHBOURS``
   of the pages i ± 1 … i ± ``NEIGHBOURS``: page numbering is a local arithmetic progression, footnote
   numbers and contents entries are not. The whole line goes when it has the shape of its neighbours'
   page-number lines ("Chapter 9: Foo 50" beside "Chapter 8: Bar 49") or no words; otherwise only the number
   ("… adversely affected.10").
3. Peeling, at most ``MAX_DEPTH`` rounds from each edge: the current first and last line of every page is
   peeled when it is the page's page-number line, or when its key is at the current edge of at least
   max(``MIN_PAGES``, ``MIN_SHARE`` × pages with text) pages, has a letter or a number and at most
   ``MAX_NUMBERS`` numbers (a repeated table row is no header). Only lines contiguous with an edge are peeled.
   PDFium and pypdf give lines in content-stream order: a filing's letterhead often comes last, hence both
   edges.
4. A recognised key with a letter is also dropped wherever else it stands on a page (a letterhead above a
   second statement, "Table of Contents" behind a line that stopped the peeling); number-only keys at the
   edges only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = [
    "EDGE_LINES",
    "MAX_DEPTH",
    "MAX_NUMBERS",
    "MIN_NEIGHBOURS",
    "MIN_PAGES",
    "MIN_SHARE",
    "NEIGHBOURS",
    "NUMBER_SLACK",
    "PageNumberLine",
    "RunningLines",
    "edge_numbers",
    "find_running_lines",
    "line_key",
    "page_bodies",
    "page_number_lines",
]

MAX_DEPTH = 4  # lines peeled from each edge at most
EDGE_LINES = MAX_DEPTH + 1  # a page number is looked for in this many lines at each edge
MIN_PAGES = 3  # a repeating line is at the edge of at least this many pages ...
MIN_SHARE = 0.20  # ... and of at least this share of the pages with text
MAX_NUMBERS = 2  # a repeating key holds at most this many numbers
NUMBER_SLACK = 20  # a printed page number is at most pages + this (years are not page numbers)
NEIGHBOURS = 2  # a page number's offset is looked for on the pages i ± 1 … i ± NEIGHBOURS ...
MIN_NEIGHBOURS = 2  # ... and must be found on at least this many of them
MAX_HEADER_CHARS = 80  # a page-number line longer than this (or ending like a sentence) loses only its number

_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")
_LETTER_OR_NUMBER = re.compile(r"[^\W\d_]|#")
_LETTERS = re.compile(r"[^\W\d_]+")
_ROMAN = r"(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_ROMAN_EDGE = re.compile(rf"^{_ROMAN}(?=\W|$)|(?<=\W){_ROMAN}$")
_ROMAN_FULL = re.compile(rf"^{_ROMAN}$")
_LEADING = re.compile(r"^[-–—\s]*(\d{1,4}|[ivxlc]{1,7})(?=\s|$)")
_TRAILING = re.compile(r"(?<![\d,/])(?<!\d\.)(\d{1,4}|(?:(?<=\s)|^)[ivxlc]{1,7})[-–—\s]*$")
_GLUED_NUMBER = re.compile(r"[^\s\d\-–—]\d+\W*$")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


@dataclass(frozen=True)
class PageNumberLine:
    """The line of a page that carries its printed number.

    Attributes:
        index: the line's index on the page.
        number: the printed number.
        key: the line's key (``line_key``).
        remainder: the line without the number.
    """

    index: int
    number: int
    key: str
    remainder: str


@dataclass
class RunningLines:
    """What was recognised in one document.

    Attributes:
        counts: each repeating key and on how many pages it was peeled.
        examples: one original line per repeating key.
        page_numbers: pages whose printed page number was removed (as a line or glued to one).
        edits: per page, line index → replacement ("" drops the line, else the line without its number).
    """

    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    page_numbers: int = 0
    edits: list[dict[int, str]] = field(default_factory=list)

    @property
    def lettered(self) -> set[str]:
        """The repeating keys with a letter ("tableofcontents"; not "#" or "-#-"): dropped anywhere."""
        return {key for key in self.counts if any(ch.isalpha() for ch in key)}

    def left_in(self, pages: Sequence[str], texts: Sequence[str]) -> list[tuple[int, str]]:
        """The recognised lines still in ``texts`` (one text per page of ``pages``, e.g. the page bodies): a line
        with a recognised repeating key with a letter, anywhere; a dropped page-number line with words, anywhere
        on its page; a dropped line without words (a page number, "- 3 -"), at an edge of its page."""
        lettered = self.lettered
        left = []
        for p, (page, text) in enumerate(zip(pages, texts)):
            lines = [line.strip() for line in text.split("\n") if line.strip()]
            left.extend((p, line) for line in lines if line_key(line) in lettered)
            original = page.split("\n")
            for index, replacement in self.edits[p].items():
                line = original[index].strip()
                if replacement or line_key(line) in lettered:
                    continue  # a glued number (only it went), or a line checked above
                words = any(ch.isalpha() for ch in line)
                if line in (lines if words else lines[:1] + lines[-1:]):
                    left.append((p, line))
        return left

    def listed(self) -> list[tuple[str, int]]:
        """The recognised lines for people, most pages first: (an example line, pages); in a line without
        words each number is shown as ``N`` ("- N -": a page number)."""
        return [
            (self.examples[key] if key in self.lettered else _DIGITS.sub("N", self.examples[key]), pages)
            for key, pages in self.counts.most_common()
        ]


def line_key(line: str) -> str:
    """The comparison key of a line: lower case, no whitespace, digits and edge roman numerals as ``#``."""
    text = _SPACE.sub(" ", line.strip().lower())
    text = _ROMAN_EDGE.sub("#", text) if " " in text else text  # "debian reference x"; a bare "x" stays
    return _SPACE.sub("", _DIGITS.sub("#", text))


def _roman_value(token: str) -> int:
    """The value of a lower-case roman numeral, 0 when ``token`` is none."""
    if not _ROMAN_FULL.match(token):
        return 0
    values = [_ROMAN_VALUES[ch] for ch in token]
    return sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0]))


def edge_numbers(line: str, largest: int) -> list[tuple[int, str]]:
    """Page-number candidates of a line: (number, the line without it) for an integer at its start or end.

    Not taken: numbers in brackets ("(3)"), dotted numbers ("5.5.2", "12.18"), numbers above ``largest``,
    upper-case roman numerals ("PART III" is a heading), a line that would keep more than ``MAX_NUMBERS``
    numbers (a table row). A lower-case roman numeral counts at the end of a line or as the whole line."""
    text = line.strip()
    found = []
    for pattern in (_LEADING, _TRAILING):
        match = pattern.search(text)
        if not match:
            continue
        token = match.group(1)
        value = int(token) if token.isdigit() else _roman_value(token) if pattern is _TRAILING else 0
        if token.isalpha() and text != token and not text[: match.start(1)].strip():
            value = 0  # "iv) foo" or "i think" is no page number
        rest = (text[: match.start(1)] + text[match.end(1) :]).strip()
        if 0 < value <= largest and len(_DIGITS.findall(rest)) <= MAX_NUMBERS:
            found.append((value, rest))
    return found


def _live(lines: Sequence[str], peeled: dict[int, str]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.strip() and i not in peeled]


def page_number_lines(split: Sequence[Sequence[str]]) -> list[PageNumberLine | None]:
    """Per page (its lines), the line carrying its printed page number, or None (step 2 of the module doc)."""
    largest = len(split) + NUMBER_SLACK
    candidates: list[list[PageNumberLine]] = []
    for lines in split:
        live = _live(lines, {})
        zone = dict.fromkeys(live[:EDGE_LINES] + live[-EDGE_LINES:])
        candidates.append(
            [
                PageNumberLine(i, number, line_key(lines[i]), rest)
                for i in zone
                for number, rest in edge_numbers(lines[i], largest)
            ]
        )
    offsets = [{c.number - p for c in page} for p, page in enumerate(candidates)]
    chosen: list[PageNumberLine | None] = []
    for p, page in enumerate(candidates):
        near = [q for q in range(p - NEIGHBOURS, p + NEIGHBOURS + 1) if q != p and 0 <= q < len(split)]
        support = {c: sum(c.number - p in offsets[q] for q in near) for c in page}
        good = [c for c in page if support[c] >= MIN_NEIGHBOURS]
        near_keys = {c.key for q in near for c in candidates[q]}
        # the best-supported offset wins (footnote numbers rising one a page lose to the running header's),
        # then a key a neighbour shares, then the shortest line
        ranked = sorted(
            good, key=lambda c: (-support[c], c.key not in near_keys, len(split[p][c.index].strip()))
        )
        chosen.append(ranked[0] if ranked else None)
    return chosen


def _shape(key: str) -> str:
    """A key's shape: every run of letters → ``a`` ("chapter#:programming#" → "a#:a#")."""
    return _LETTERS.sub("a", key)


def _number_only(line: PageNumberLine, text: str, neighbours: Sequence[PageNumberLine | None]) -> bool:
    """Whether only the number of a page-number line goes: the rest has words and the line is unlike its
    neighbours' page-number lines (content with a number glued on: "affected.10"), or the rest is long or
    ends like a sentence ("December 31, 2016 . 27")."""
    rest = line.remainder
    if not any(ch.isalnum() for ch in rest):
        return False  # "- 3 -", "14"
    sentence = len(rest) > MAX_HEADER_CHARS or rest.endswith((".", ",", ";", ":", "-"))
    template = any(other is not None and _shape(other.key) == _shape(line.key) for other in neighbours)
    return sentence or bool(_GLUED_NUMBER.search(text.strip())) or not template


def _is_header_key(key: str) -> bool:
    return _LETTER_OR_NUMBER.search(key) is not None and key.count("#") <= MAX_NUMBERS


def find_running_lines(pages: Sequence[str]) -> RunningLines:
    """Recognise the running header and footer lines of one document's pages (see the module docstring)."""
    split = [page.split("\n") for page in pages]
    keys = [[line_key(line) for line in lines] for lines in split]
    threshold = max(MIN_PAGES, MIN_SHARE * sum(1 for page in pages if page.strip()))
    numbered = page_number_lines(split)
    found = RunningLines(edits=[{} for _ in pages])
    for _ in range(MAX_DEPTH):
        edges = []
        for lines, edits in zip(split, found.edits):
            live = _live(lines, edits)
            edges.append(sorted({live[0], live[-1]}) if live else [])
        counts: Counter[str] = Counter()
        for page_keys, page_edges in zip(keys, edges):
            counts.update({page_keys[i] for i in page_edges})
        peeled = 0
        for p, page_edges in enumerate(edges):
            for index in page_edges:
                key, number = keys[p][index], numbered[p]
                if counts[key] >= threshold and _is_header_key(key):
                    found.edits[p][index] = ""
                    found.counts[key] += 1
                    found.examples.setdefault(key, split[p][index].strip())
                elif number is not None and number.index == index:
                    near = numbered[max(0, p - NEIGHBOURS) : p] + numbered[p + 1 : p + 1 + NEIGHBOURS]
                    found.edits[p][index] = (
                        number.remainder if _number_only(number, split[p][index], near) else ""
                    )
                    found.page_numbers += 1
                else:
                    continue
                peeled += 1
        if not peeled:
            break
    return found


def page_bodies(pages: Sequence[str], found: RunningLines) -> list[str]:
    """Each page's body: its text without the recognised running lines (step 4 of the module docstring)."""
    lettered = found.lettered
    bodies = []
    for page, edits in zip(pages, found.edits):
        kept = []
        for i, line in enumerate(page.split("\n")):
            if i in edits:
                if edits[i]:
                    kept.append(edits[i])
            elif not (lettered and line.strip() and line_key(line) in lettered):
                kept.append(line)
        bodies.append("\n".join(kept).strip("\n"))
    return bodies
