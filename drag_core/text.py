"""Small text utilities shared by the loaders, the offline summariser and what is printed for people (the CLI's
tables, the MCP server's answers): a line cut at a word, spans marked, a document's tree as an outline."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from importlib import resources

from drag_core.types import Node

__all__ = [
    "CHARS_PER_TOKEN",
    "ENGLISH_STOPWORDS",
    "KEYWORDS_SHOWN",
    "TITLE_CHARS",
    "WORD",
    "approx_tokens",
    "citation",
    "content_words",
    "counted",
    "cut",
    "marked",
    "page_span",
    "sentence_ends",
    "sentences",
    "short_ids",
    "tree_lines",
]

CHARS_PER_TOKEN = 4
#: Longest section title a table or outline line shows.
TITLE_CHARS = 40
KEYWORDS_SHOWN = 6
#: NLTK's English stop-word list (the list the Qdrant/bm25 model uses), one word a line in package data.
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    (resources.files("drag_core") / "data" / "english_stopwords.txt").read_text("utf-8").split()
)

#: A word: a letter, then letters, digits, apostrophes and hyphens, ending in a letter or digit; any script's
#: letters ("Péter" is one word, never "P" and "ter"); never the tail of a token that starts with a digit
#: ("4.4BSD-Lite" holds no word "BSD-Lite").
_WORD_SHAPE = r"(?<![^\W_])[^\W\d_](?:[^\W_]|[{joiners}])*[^\W_]|(?<![^\W_])[^\W\d_]"
WORD = re.compile(_WORD_SHAPE.format(joiners="'’\\-"))
_WORD = re.compile(_WORD_SHAPE.format(joiners="\\-"))  # ``content_words``: apostrophes split words
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
_SPACES = re.compile(r"[ \t\f\v]+")
#: Words after which a full stop ends no sentence ("e.g.", "Inc.", "Fig.").
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "etc",
        "vs",
        "cf",
        "fig",
        "figs",
        "eq",
        "eqs",
        "no",
        "nos",
        "vol",
        "pp",
        "p",
        "ch",
        "sec",
        "inc",
        "ltd",
        "co",
        "corp",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "jr",
        "sr",
        "st",
        "u.s",
        "u.k",
        "approx",
        "resp",
        "al",
    ]
)
#: A sentence's final punctuation (with closing quotes or brackets) and the space before the next one's start.
_FULL_STOP = re.compile(r"[.!?][\"')\]”’]*\s+(?=[A-Z0-9\"'(\[“‘])")


def content_words(text: str, min_length: int = 3) -> list[str]:
    """Lower-cased words of ``text`` without stop words or very short tokens."""
    words = (w.lower() for w in _WORD.findall(text))
    return [w for w in words if len(w) >= min_length and w not in ENGLISH_STOPWORDS]


def sentences(text: str) -> list[str]:
    """Split text into sentences (line breaks inside a sentence are folded)."""
    flat = _SPACES.sub(" ", text.replace("\r", "\n"))
    parts: list[str] = []
    for block in re.split(r"\n\s*\n", flat):
        block = " ".join(line.strip() for line in block.splitlines() if line.strip())
        parts.extend(s.strip() for s in _SENTENCE_END.split(block) if s.strip())
    return parts


def sentence_ends(text: str, start: int = 0, end: int | None = None) -> Iterator[re.Match[str]]:
    """The full stops of ``text[start:end]`` that end a sentence: ``.!?`` (and closing quotes or brackets) before a
    capital, a digit or a quote — not after an abbreviation ("e.g.", "Inc.", "Fig.") or an initial. Each match
    spans the punctuation and the space after it."""
    begin = start
    for match in _FULL_STOP.finditer(text, start, len(text) if end is None else end):
        # the word before the stop (24 characters back is enough: a longer word is no abbreviation)
        before = text[max(begin, match.start() - 24) : match.start() + 1].split()
        last = before[-1].rstrip(".").lower() if before else ""
        if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue
        yield match
        begin = match.end()


def approx_tokens(chars: int) -> int:
    """A rough LLM token count of ``chars`` characters of English text: one token per ~4 characters (OpenAI's
    rule of thumb for its BPE tokenizers), rounded up."""
    return -(-chars // CHARS_PER_TOKEN)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 page``, ``2 pages``, ``0 pages`` (``plural`` for an irregular noun: ``counted(2, "leaf", "leaves")``)."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {plural or noun + 's'}"


def page_span(page_start: int, page_end: int) -> str:
    """``p.3`` or ``p.3–7``."""
    return f"p.{page_start}" if page_start == page_end else f"p.{page_start}–{page_end}"


def citation(file_name: str, page_start: int, page_end: int) -> str:
    """``[file p.X]`` or ``[file p.X–Y]``: how answers cite pages."""
    return f"[{file_name} {page_span(page_start, page_end)}]"


def cut(text: str, width: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``width`` characters."""
    return textwrap.shorten(" ".join(text.split()), width=width, placeholder="…")


def marked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with each span put between » and «."""
    for start, end in sorted(spans, reverse=True):
        text = f"{text[:start]}»{text[start:end]}«{text[end:]}"
    return text


def short_ids(ids: Iterable[int], least: int = 4) -> dict[int, str]:
    """The shortest hex suffixes (at least ``least`` digits) that still tell the ids apart."""
    hexes = {i: f"{i:x}" for i in ids}
    for digits in range(least, 17):
        shown = {i: h[-digits:] for i, h in hexes.items()}
        if len(set(shown.values())) == len(shown):
            return shown
    return hexes


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
