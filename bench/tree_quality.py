"""Does the tree above the page read like a table of contents, in clean text? Measured on the development
manuals that have an outline (issue 27; a measurement, not a speed bench).

Every manual of ``shared/data/pdfs`` and ``manuals-dev/docs`` with an outline is described as ingest describes
it (load → describe → tree, offline extractive summariser; no vectors needed) and its nodes are counted:

* ``names``: the share of parents whose summary names one of their children's sections (an outline title,
  case-insensitive, whitespace folded) — the sections a child is in (every level of the path in force on its
  first page) and those starting on its pages. Parents whose children are in no section (front matter before
  the outline's first entry) are left out of the share and counted as ``no section``.
* ``code-like``: the share of parent-summary sentences (``prose.split_sentences``) with less than 75 % letters
  among their non-space characters.
* ``<4 words``: summaries (any node) of fewer than four words.
* ``C1``: C1 control characters (U+0080–U+009F) in any summary, title, keyword or page text (snippets are
  cut from the page text).
* ``fragments``: keywords that occur on none of their node's pages as a whole word (only inside a longer
  word: "eter" of "Péter").

Targets (issue 27): names ≥ 90 %, code-like ≤ 2 %, no summary under four words, no C1 character.

Run: ``nice .venv/bin/python bench/tree_quality.py [--show] [--json OUT]``. It reads only APIs older than
issue 27, so the same script measures another checkout: ``PYTHONPATH=/work/main .venv/bin/python
bench/tree_quality.py``.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.describe.prose import split_sentences
from drag_core.ingest.loading import LoadedDocument, load_path
from drag_core.ingest.pipeline import describe_tree
from drag_core.types import Node

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
FOLDERS = (DATA / "pdfs", DATA / "manuals-dev" / "docs")
CODE_LIKE = 0.75  # a sentence with less than this share of letters among its non-space characters
MIN_WORDS = 4
C1 = re.compile("[\x80-\x9f]")


@dataclass
class Counts:
    """What one manual (or all) scored."""

    parents: int = 0
    with_sections: int = 0
    naming: int = 0
    sentences: int = 0
    code_like: int = 0
    short: int = 0
    c1: int = 0
    keywords: int = 0
    fragments: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, other: Counts) -> None:
        for name in ("parents", "with_sections", "naming", "sentences", "code_like", "short", "c1"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.keywords += other.keywords
        self.fragments += other.fragments

    def row(self) -> dict[str, float | int]:
        return {
            "parents": self.parents,
            "no_section": self.parents - self.with_sections,
            "names_share": self.naming / max(1, self.with_sections),
            "parent_sentences": self.sentences,
            "code_like_share": self.code_like / max(1, self.sentences),
            "under_4_words": self.short,
            "c1": self.c1,
            "keywords": self.keywords,
            "fragments": self.fragments,
        }


def _fold(text: str) -> str:
    return " ".join(text.lower().split())


def _child_sections(document: LoadedDocument, child: Node) -> set[str]:
    """Outline titles of the sections a child is in on its first page (every level) or that start on its pages."""
    first, last = child.page_start - 1, child.page_end - 1
    path: list[tuple[int, str]] = []
    for entry in document.outline:
        if entry.page > first:
            break
        while path and path[-1][0] >= entry.level:
            path.pop()
        path.append((entry.level, entry.title))
    titles = {title for _, title in path}
    titles |= {entry.title for entry in document.outline if first < entry.page <= last}
    return {_fold(title) for title in titles if title.strip()}


def _code_like(sentence: str) -> bool:
    compact = "".join(sentence.split())
    return bool(compact) and sum(ch.isalpha() for ch in compact) < CODE_LIKE * len(compact)


def _whole_word(keyword: str, text: str) -> bool:
    pattern = rf"(?<![^\W_]){re.escape(keyword)}(?![^\W_])"
    return re.search(pattern, text.replace("’", "'"), re.IGNORECASE) is not None


def measure(document: LoadedDocument, nodes: list[Node]) -> Counts:
    """The counts of one described document (see the module docstring)."""
    counts = Counts()
    by_id = {node.id: node for node in nodes}
    texts = [page.text for page in document.pages]
    for node in nodes:
        if len(node.summary.split()) < MIN_WORDS:
            counts.short += 1
            counts.examples.append(f"short: {node.summary!r}")
        fields = [node.summary, node.title, node.text, *node.keywords]
        counts.c1 += sum(len(C1.findall(text)) for text in fields)
        span = "\n".join(texts[node.page_start - 1 : node.page_end])
        for keyword in node.keywords:
            counts.keywords += 1
            if not _whole_word(keyword, span):
                counts.fragments += 1
                counts.examples.append(f"fragment: {keyword!r} (pages {node.page_start}–{node.page_end})")
        if node.level == 0:
            continue
        counts.parents += 1
        sections: set[str] = set()
        for child_id in node.child_ids:
            sections |= _child_sections(document, by_id[child_id])
        if sections:
            counts.with_sections += 1
            summary = _fold(node.summary)
            counts.naming += any(title in summary for title in sections)
        for sentence in split_sentences(" ".join(node.summary.split())):
            counts.sentences += 1
            if _code_like(sentence):
                counts.code_like += 1
                counts.examples.append(f"code-like: {sentence[:100]!r}")
    return counts


def manuals() -> list[Path]:
    """The development manuals (one path per file name)."""
    found: dict[str, Path] = {}
    for folder in FOLDERS:
        for path in sorted(folder.glob("*.pdf")):
            found.setdefault(path.name, path)
    return list(found.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print each root's summary and the failures")
    parser.add_argument("--json", type=Path, help="write the table as JSON")
    args = parser.parse_args()
    total, table = Counts(), {}
    header = f"{'manual':28} {'parents':>7} {'no sect':>7} {'names':>6} {'sent':>5} {'code':>6} "
    print(header + f"{'<4 w':>5} {'C1':>4} {'frag':>5}")
    for path in manuals():
        document = load_path(path, 2**31)
        if not document.outline:
            print(f"{path.name:28} (no outline: left out)")
            continue
        describer = Describer(ExtractiveSummarizer(), DescriptionCache(None))
        nodes = describe_tree(document, describer)
        counts = measure(document, nodes)
        total.add(counts)
        table[path.name] = row = counts.row()
        print(_line(path.name, row))
        if args.show:
            print(f"  root: {nodes[-1].summary}")
            for example in counts.examples[:8]:
                print(f"  {example}")
    table["overall"] = total.row()
    print(_line("overall", table["overall"]))
    if args.json:
        args.json.write_text(json.dumps(table, indent=2))


def _line(name: str, row: dict[str, float | int]) -> str:
    return (
        f"{name:28} {row['parents']:7d} {row['no_section']:7d} {row['names_share']:6.1%} "
        f"{row['parent_sentences']:5d} {row['code_like_share']:6.1%} {row['under_4_words']:5d} {row['c1']:4d} "
        f"{row['fragments']:5d}"
    )


if __name__ == "__main__":
    main()
