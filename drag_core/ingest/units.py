"""A page cut into the units a snippet quotes: the sentences of its prose, and every other line on its own.

In a filing the answer is often a table row ("Net revenue 17,606 15,785"), in a manual a heading or a line of
code, so a line that is not prose is a unit by itself; runs of prose lines are joined and cut into sentences.
Every unit keeps its span in the page text (``text[start:end]``), so a snippet can be highlighted where it is.
A page is cut once, at ingest: a leaf carries its units as spans (``unit_spans``, the payload key ``units``),
and ``units_at`` makes them again from the text without cutting it.

* A *table* line ends in two numbers or is mostly numbers; a *heading* is short, has no final punctuation and
  most of its words capitalised (or starts with a section number); a *prose* line is mostly letters with at
  least ``PROSE_WORDS`` words (or continues a sentence the line before left open).
* Sentences end at ``.!?`` (and closing quotes or brackets) before a capital, a digit or a quote — not after an
  abbreviation ("e.g.", "Inc.", "Fig.") or an initial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drag_core.text import sentence_ends

__all__ = ["MIN_UNIT_CHARS", "PROSE_WORDS", "Unit", "page_units", "unit_spans", "units_at"]

MIN_UNIT_CHARS = 12  # a shorter line (a lone number, a bullet) is not quoted
PROSE_WORDS = 4
HEADING_WORDS = 10
MIN_LETTER_SHARE = 0.6
MAX_NUMBER_SHARE = 0.35
_NUMBER = re.compile(r"^[(\[$€£-]*[\d.,%]+[)\]%]*$|^[—–-]$")
_NUMBER_START = frozenset("0123456789.,%([$€£-—–")
_NUMBERISH = re.compile(r"\d|(?:^|\s)[—–-](?:\s|$)")
_BROKEN_WORD = re.compile(r"(?<=[a-z])-\s*\n\s*(?=[a-z])")
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.)$")


@dataclass(frozen=True)
class Unit:
    """A sentence or a line of a page.

    Attributes:
        text: its words on one line (line breaks and runs of spaces folded).
        start, end: its span in the page text.
        prose: a sentence of prose (else a table row, a heading or another line).
    """

    text: str
    start: int
    end: int
    prose: bool

    @property
    def fragment(self) -> bool:
        """Whether it starts inside another sentence: with a small letter, or with a reference's tail that
        closes a bracket it never opened ("226) lie within …", the end of "(see page 225–226)" cut at a page
        or column break) — not a unit to quote as a sentence of its own."""
        first, _, rest = self.text.partition(" ")
        if first[:1].islower():
            return True
        unopened = first.count(")") + first.count("]") > first.count("(") + first.count("[")
        return unopened and first[:1] not in "([" and rest[:1].islower()


def _kind(line: str) -> str:
    """``blank``, ``table``, ``heading``, ``prose`` or ``other``."""
    tokens = line.split()
    if not tokens:
        return "blank"
    if _NUMBERISH.search(line):
        numbers = [t[0] in _NUMBER_START and bool(_NUMBER.match(t)) for t in tokens]
    else:  # no digit, no lone dash: no number
        numbers = [False] * len(tokens)
    trailing = 0
    for token, is_number in zip(reversed(tokens), reversed(numbers)):
        if token in ("$", "€", "£", "%"):
            continue
        if not is_number:
            break
        trailing += 1
    if trailing >= 2 or sum(numbers) > MAX_NUMBER_SHARE * len(tokens):
        return "table"
    compact = "".join(tokens)
    if sum(map(str.isalpha, compact)) < MIN_LETTER_SHARE * len(compact):
        return "other"
    final = tokens[-1][-1]
    if len(tokens) <= HEADING_WORDS and final not in ".,;:":
        words = [t for t in tokens if t[0].isalpha()]
        capitalised = sum(t[0].isupper() for t in words) / max(1, len(words))
        if capitalised >= 0.6 or _SECTION_NUMBER.match(tokens[0]):
            return "heading"
    return "prose" if len(tokens) >= PROSE_WORDS or final in ".!?" else "other"


def _fold(text: str) -> str:
    """Words on one line; a word broken at a line end by a hyphen is joined."""
    return " ".join((_BROKEN_WORD.sub("", text) if "-" in text else text).split())


def _sentences(text: str, start: int, end: int) -> list[Unit]:
    """The sentences of the prose ``text[start:end]``."""
    units: list[Unit] = []
    begin = start
    for match in sentence_ends(text, start, end):
        units.append(_unit(text, begin, match.start() + len(match.group().rstrip()), True))
        begin = match.end()
    if text[begin:end].strip():
        units.append(_unit(text, begin, end, True))
    return [u for u in units if u.text]


def _unit(text: str, start: int, end: int, prose: bool) -> Unit:
    """The unit of ``text[start:end]`` without the spaces around it."""
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    return Unit(_fold(piece), start + lead, start + len(piece.rstrip()), prose)


def page_units(text: str) -> list[Unit]:
    """The units of a page text, in reading order: prose sentences, and every other non-blank line of at
    least ``MIN_UNIT_CHARS`` characters."""
    units: list[Unit] = []
    prose_start: int | None = None
    prose_end = 0
    position = 0
    open_sentence = False
    for line in text.split("\n"):
        start, end = position, position + len(line)
        position = end + 1
        kind = _kind(line)
        if kind == "prose" or (open_sentence and kind in ("other", "heading") and line.strip()):
            if prose_start is None:
                prose_start = start
            prose_end = end
            open_sentence = line.rstrip()[-1:] not in ".!?:"
            continue
        if prose_start is not None:
            units.extend(_sentences(text, prose_start, prose_end))
            prose_start, open_sentence = None, False
        if kind != "blank" and len(line.strip()) >= MIN_UNIT_CHARS:
            units.append(_unit(text, start, end, False))
    if prose_start is not None:
        units.extend(_sentences(text, prose_start, prose_end))
    return units


def unit_spans(units: list[Unit]) -> list[int]:
    """The units as flat ``start, end, prose`` triples (what a leaf stores: a few numbers per unit)."""
    return [number for u in units for number in (u.start, u.end, int(u.prose))]


def units_at(text: str, spans: list[int]) -> list[Unit]:
    """The units of ``text`` at the stored ``spans`` (``unit_spans`` of ``page_units(text)``): the same units,
    without cutting the page again."""
    return [
        Unit(_fold(text[start:end]), start, end, bool(prose))
        for start, end, prose in zip(spans[0::3], spans[1::3], spans[2::3], strict=True)
    ]
