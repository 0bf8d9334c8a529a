"""Which parts of a page read as prose: the sentences a summary may quote.

* ``classify_line``: every line is ``prose``, ``code``, ``table`` (a figures row: "Net cash … 145 323", or
  mostly numbers), ``leader`` (a contents line with dot leaders), ``heading`` (≤ ``HEADING_WORDS`` words,
  mostly capitalised or numbered, no final period) or ``debris`` (bullets, lone words), from its share of
  code symbols, letters and numbers, its final punctuation, length and capitalisation.
* ``paragraphs``: runs of prose lines joined, a line-end hyphen resolved (joined when the joined word occurs
  in the document, else kept); every other line ends a paragraph, and a list item ("• …") starts one, without
  its bullet.
* ``split_sentences``: at ``.!?`` followed by a capital, a digit or a quote, not after an abbreviation or an
  initial.
* ``is_prose``: the test a sentence passes after splitting (a prose paragraph can still hold "real
  xpart(pair z) returns z.x;"): enough words, mostly letters, few code symbols and numbers, no two numbers in
  a row, most words lower case, a sentence's final punctuation (not a colon).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from drag_core.text import sentence_ends

__all__ = [
    "CODE_SYMBOLS",
    "HEADING_WORDS",
    "MAX_SENTENCE_CHARS",
    "MIN_SENTENCE_WORDS",
    "LineKind",
    "clip",
    "classify_line",
    "headings",
    "is_prose",
    "paragraphs",
    "prose_sentences",
    "split_sentences",
]

CODE_SYMBOLS = frozenset("{}[]();=<>+*/\\|&^~$%#@_`")
MAX_CODE_SYMBOL_SHARE = 0.06  # a prose line: at most this share of its non-space characters are code symbols
MAX_NUMBER_SHARE = 0.35  # ... at most this share of its tokens are numbers ("$ 17,606", "(12)", "2022")
MIN_LETTER_SHARE = 0.60  # ... at least this share of its non-space characters are letters
MIN_SENTENCE_WORDS = 6  # a prose sentence has at least this many words ...
MIN_SENTENCE_LETTERS = 0.70  # ... this share of letters ...
MAX_SENTENCE_NUMBERS = 0.20  # ... at most this share of numbers ...
MIN_LOWER_SHARE = 0.45  # ... and this share of words starting lower case (else a heading or a list)
MAX_SENTENCE_CHARS = 400  # a quoted sentence is cut (at a word, with "…") beyond this
HEADING_WORDS = 10
NUMBERED_HEADING_WORDS = 6  # a numbered line of mostly lower-case words is a heading up to this many words

_LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|\s\.\s\.\s")
_NUMBER = re.compile(r"^[\(\[$€£-]*[\d.,%]+[\)\]%]*$|^[—–-]$")
_CURRENCY = frozenset({"$", "€", "£", "%"})
_DASHES = frozenset({"-", "—", "–"})
_CODE_LINE = re.compile(
    r"^\s*(?:[>$#%]\s|//|/\*|\w+\s*<-|\w+\s*=\s*\S|def\s|import\s|#include|for\s*\(|if\s*\(|while\s*\(|return\b|"
    r"\w+\([^)]*\)\s*[;{]?\s*$|[{}]\s*$)"
)
_SIGNATURE = re.compile(
    r"^[A-Za-z_][\w\[\]<>.]*\s+[\w.\[\]]+\s*\(.*\)\s*[;{]?$"
)  # "bool interior(int n, pen p)"
_BULLET = re.compile(r"^\s*(?:[•·▪◦‣*–—-]|\(?[a-z0-9]{1,3}[.)])\s*$")
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.)$")
_WORDS = re.compile(r"[^\W\d_][\w'\-]*")
_WORD_OF_THREE = re.compile(r"[^\W\d_]{3,}")
_FINAL = ".!?)\"”'’"  # not ":": "… as follows:" introduces what a summary does not show
_LIST_ITEM = re.compile(r"^\s*[•·▪◦‣*–—-]\s+")


class LineKind(StrEnum):
    """What a line of a page is."""

    BLANK = "blank"
    LEADER = "leader"
    CODE = "code"
    TABLE = "table"
    DEBRIS = "debris"
    HEADING = "heading"
    PROSE = "prose"


def _is_number(token: str) -> bool:
    return bool(_NUMBER.match(token))


def _trailing_numbers(tokens: Sequence[str]) -> int:
    """How many numeric tokens end the line ("$ 695 $ 432" counts 2; a currency sign alone is skipped)."""
    count = 0
    for token in reversed(tokens):
        if token in _CURRENCY:
            continue
        if not _is_number(token):
            break
        count += 1
    return count


def _title_like(tokens: Sequence[str]) -> bool:
    """Most words capitalised, or a few words after a section number ("6.2 Paths and guides"; not "9. Asymptote
    can draw secondary axes with the routines", a numbered item)."""
    words = [t for t in tokens if t[:1].isalpha()]
    if not words:
        return True
    numbered = bool(_SECTION_NUMBER.match(tokens[0])) and len(words) <= NUMBERED_HEADING_WORDS
    return sum(t[0].isupper() for t in words) >= 0.6 * len(words) or numbered


def classify_line(line: str) -> LineKind:
    """What kind of line ``line`` is (see the module docstring)."""
    text = line.strip()
    if not text:
        return LineKind.BLANK
    if _LEADER.search(text):
        return LineKind.LEADER
    tokens = text.split()
    if _trailing_numbers(tokens) >= 2:
        return LineKind.TABLE
    compact = "".join(t for t in tokens if not _is_number(t)) or "".join(tokens)
    symbols = sum(ch in CODE_SYMBOLS for ch in compact) / len(compact)
    letters = sum(ch.isalpha() for ch in compact) / len(compact)
    numbers = sum(_is_number(t) for t in tokens) / len(tokens)
    if _BULLET.match(text):
        return LineKind.DEBRIS
    if symbols > MAX_CODE_SYMBOL_SHARE and (_CODE_LINE.match(text) or symbols > 2 * MAX_CODE_SYMBOL_SHARE):
        return LineKind.CODE
    if len(tokens) <= 2 and not text.endswith((".", ":")):
        return LineKind.HEADING if text[0].isupper() and letters >= MIN_LETTER_SHARE else LineKind.DEBRIS
    if (text.endswith((";", "{", "}")) and symbols > MAX_CODE_SYMBOL_SHARE / 2) or _SIGNATURE.match(text):
        return LineKind.CODE
    if numbers > MAX_NUMBER_SHARE:
        return LineKind.TABLE
    if letters < MIN_LETTER_SHARE:
        return LineKind.CODE
    if len(tokens) <= HEADING_WORDS and not text.endswith((".", ",", ";", ":")) and _title_like(tokens):
        return LineKind.HEADING
    return LineKind.PROSE


def paragraphs(body: str, vocabulary: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The runs of prose lines of a page, each joined into one paragraph. A line ending in "letter-" before
    a line starting lower case is joined without the hyphen when the joined word is in ``vocabulary`` (the
    document's lower-case words)."""
    out: list[str] = []
    text = ""
    for line in body.split("\n"):
        item = _LIST_ITEM.match(line)
        if classify_line(line) is not LineKind.PROSE or item:
            if text:
                out.append(text)
            text = ""
            if not item:
                continue
            line = line[item.end() :]  # a list item starts a paragraph of its own, without its bullet
            if classify_line(line) is not LineKind.PROSE:
                continue
        piece = line.strip()
        if text.endswith("-") and text[-2:-1].isalpha() and piece[:1].islower():
            head = _WORDS.findall(text[:-1])[-1:] or [""]
            tail = _WORDS.findall(piece)[:1] or [""]
            text = text[:-1] + piece if (head[0] + tail[0]).lower() in vocabulary else text + piece
        else:
            text = f"{text} {piece}" if text else piece
    if text:
        out.append(text)
    return out


def split_sentences(text: str) -> list[str]:
    """The sentences of one paragraph."""
    out, start = [], 0
    for match in sentence_ends(text):
        out.append(text[start : match.start() + 1].strip())
        start = match.end()
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def is_prose(sentence: str) -> bool:
    """A sentence worth quoting (see the module docstring)."""
    words = sentence.split()
    if len(words) < MIN_SENTENCE_WORDS:
        return False
    compact = "".join(words)
    if sum(ch in CODE_SYMBOLS for ch in compact) > MAX_CODE_SYMBOL_SHARE * len(compact):
        return False
    if sum(ch.isalpha() for ch in compact) < MIN_SENTENCE_LETTERS * len(compact):
        return False
    numeric = [_is_number(w) and w not in _DASHES for w in words]
    if sum(numeric) > MAX_SENTENCE_NUMBERS * len(words) or any(a and b for a, b in zip(numeric, numeric[1:])):
        return False
    alpha = [w for w in words if w[:1].isalpha()]
    if not alpha or sum(w[0].islower() for w in alpha) < MIN_LOWER_SHARE * len(alpha):
        return False
    if sentence.count("://") > 1 or _LEADER.search(sentence):
        return False
    return sentence.rstrip()[-1:] in _FINAL


def prose_sentences(body: str, vocabulary: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The prose sentences of a page body, in reading order, each cut to ``MAX_SENTENCE_CHARS``."""
    return [
        clip(s)
        for paragraph in paragraphs(body, vocabulary)
        for s in split_sentences(paragraph)
        if is_prose(s)
    ]


def headings(body: str, limit: int = 2) -> list[str]:
    """The first heading lines of a page that hold a word ("9" or "A" in an index is no heading to quote)."""
    found = [line.strip() for line in body.split("\n") if classify_line(line) is LineKind.HEADING]
    return [line for line in found if _WORD_OF_THREE.search(line)][:limit]


def clip(sentence: str) -> str:
    """``sentence`` cut at a word to at most ``MAX_SENTENCE_CHARS`` characters (with "…")."""
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    return sentence[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
