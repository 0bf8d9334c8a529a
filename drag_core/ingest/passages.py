"""A page cut into passages: the units its ``passages`` vector reads, so every word of a page reaches the
dense ranking (MiniLM reads the first ``max_pieces`` word pieces of a text, and most pages are longer).

* Sections first: where the document has an outline, the page is cut at every section that starts on it (an
  outline entry for the page whose heading is found in the body, ``section_starts``); each part carries its
  section's heading (the part before the first start carries the section the page began in).
* Packed (``pack``): consecutive parts that fit one passage together are joined, under the first one's heading,
  so a page of short sections does not become many short passages; every passage still starts where a part
  does, at a heading.
* Then size: each part is cut into passages of at most ``budget`` word pieces (counted with the dense model's
  tokenizer on the body, ``piece_starts``), at whitespace only, preferring a line or sentence end when one
  keeps the passage at least half full.

Word pieces add up across whitespace (the tokenizer splits words at whitespace before cutting them into
pieces), so a passage's count is the pieces starting inside it; the caller's budget leaves room for the
special tokens and for the line the passage is embedded under (the file's title).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Passage", "SectionStart", "cut_passages", "section_starts"]

_SOFT_END = re.compile(r"\n|(?<=[.!?;:])[\"')\]]*\s")
_SPACE = re.compile(r"\s+")
_NUMBERING = re.compile(
    r"\s*(?:[A-Za-z]?\d+(?:\.\d+)*\.?|[A-Z]\.|[IVX]+\.?|Chapter \d+:?|Appendix [A-Z]:?)?\s*"
)


@dataclass(frozen=True)
class SectionStart:
    """A section that starts on a page.

    Attributes:
        offset: where its heading begins in the page body (0: at the top, or not found in the body).
        heading: the section's title as a tree node shows it (its path, ``Sections.path_title``).
    """

    offset: int
    heading: str


@dataclass(frozen=True)
class Passage:
    """One passage of a page.

    Attributes:
        text: its words (``body[start:end]``).
        start, end: its span in the page body.
        heading: the section it is in ("" without an outline, or before the document's first section).
    """

    text: str
    start: int
    end: int
    heading: str


def section_starts(body: str, entries: Sequence[tuple[str, str]], before: str) -> list[SectionStart]:
    """Where the sections of one page start in its body, in body order: ``entries`` are the ``(title,
    heading)`` pairs of the outline entries on the page, ``before`` the heading of the section the page began
    in. An entry whose title is not found in the body is taken to start at the top (a heading drawn as an
    image, or the page's own title line): the part before the first start found carries it. A start takes
    the section number before its title on the same line ("1.2 Installing" starts at "1.2")."""
    starts = [SectionStart(0, before)]
    for title, heading in entries:
        words = title.split()
        found = re.search(r"\s+".join(map(re.escape, words)), body, re.IGNORECASE) if words else None
        at = _line_start(body, found.start()) if found is not None else 0
        if at == 0:
            starts = [s for s in starts if s.offset > 0] + [SectionStart(0, heading)]
        else:
            starts.append(SectionStart(at, heading))
    starts.sort(key=lambda s: s.offset)
    return [s for i, s in enumerate(starts) if i + 1 == len(starts) or starts[i + 1].offset != s.offset]


def _line_start(body: str, at: int) -> int:
    """``at``, or the start of its line when only a section number stands before it there ("1.2 ")."""
    line = body.rfind("\n", 0, at) + 1
    return line if _NUMBERING.fullmatch(body[line:at]) else at


def cut_passages(
    body: str,
    piece_starts: Sequence[int],
    budget: int,
    starts: Sequence[SectionStart] = (),
    pack: bool = False,
) -> list[Passage]:
    """The passages of a page body: cut at ``starts`` (``section_starts``; none: one part without a heading;
    ``pack``: consecutive parts that fit ``budget`` together joined), then into passages of at most ``budget``
    word pieces; ``piece_starts`` are the body offsets where its word pieces begin (ascending). Whitespace
    between passages is left out; nothing else is."""
    if budget < 1:
        raise ValueError("a passage holds at least one word piece")
    parts = list(starts) or [SectionStart(0, "")]
    spans = list(zip(parts, [s.offset for s in parts[1:]] + [len(body)], strict=True))
    if pack:
        spans = _packed(spans, piece_starts, budget)
    passages: list[Passage] = []
    for part, end in spans:
        passages += _cut(body, part.offset, end, piece_starts, budget, part.heading)
    return passages


def _packed(
    spans: Sequence[tuple[SectionStart, int]], pieces: Sequence[int], budget: int
) -> list[tuple[SectionStart, int]]:
    """``spans`` (a part and where it ends), each joined to the one before while their word pieces together
    fit ``budget``."""
    out: list[tuple[SectionStart, int]] = []
    for part, end in spans:
        if out and bisect_left(pieces, end) - bisect_left(pieces, out[-1][0].offset) <= budget:
            out[-1] = (out[-1][0], end)
        else:
            out.append((part, end))
    return out


def _cut(body: str, start: int, end: int, pieces: Sequence[int], budget: int, heading: str) -> list[Passage]:
    out: list[Passage] = []
    at = _skip_space(body, start, end)
    while at < end:
        first = bisect_left(pieces, at)
        left = bisect_left(pieces, end) - first
        if left <= budget:
            cut = end
        else:  # as many passages as needed, about equally full: no short tail
            target = -(-left // -(-left // budget))
            cut = _best_cut(body, at, pieces[first + budget], pieces, first, target)
        text = body[at:cut].rstrip()
        if text:
            out.append(Passage(text, at, at + len(text), heading))
        at = _skip_space(body, cut, end)
    return out


def _best_cut(body: str, at: int, limit: int, pieces: Sequence[int], first: int, target: int) -> int:
    """Where a passage from ``at`` (its first piece ``first``) ends, at most at ``limit``: the line or sentence
    end nearest to ``target`` pieces among those that keep it at least 60 % of that full, else the whitespace
    nearest to it, else (one word longer than the budget) ``limit`` itself."""
    window = body[at:limit]

    def off_target(position: int) -> int:
        return abs(bisect_left(pieces, at + position) - first - target)

    soft = [m.end() for m in _SOFT_END.finditer(window)]
    soft = [p for p in soft if bisect_left(pieces, at + p) - first >= 0.6 * target]
    if soft:
        return at + min(soft, key=off_target)
    spaces = [m.start() for m in _SPACE.finditer(window) if m.start() > 0]
    return at + min(spaces, key=off_target) if spaces else limit


def _skip_space(body: str, at: int, end: int) -> int:
    while at < end and body[at].isspace():
        at += 1
    return at
