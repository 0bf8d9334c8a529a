"""Should a page's snippet come from the passage its ranking matched? Measured at equal length (a measurement,
not a speed bench; issue 26, item 4: "the evidence follows the ranking").

Where a page is cut into passages (``ingest.passages``: the sections starting on it, then at most the dense
model's window), its dense score is its best passage's cosine (MaxSim). For every (question, relevant page) of a
page data set, the page's body is cut as ingest cuts it, the passage closest to the question found, and the
share of the reference answer's words (``snippet_quality.answer_words``) counted in snippets of 1 and 3 units
(at most ``MAX_SNIPPET_CHARS``) chosen by:

* ``BM25, page``: BM25 over all the page's units (what the cards show);
* ``BM25, matched passage``: the same scores, only the units of the matched passage;
* ``BM25 + MiniLM, matched passage``: its units by BM25 and by MiniLM's cosine with the question, RRF k = 10;
* ``BM25 + MiniLM, page``: all units so, RRF k = 10.

The same number of units for every rule: a rule whose scores are closer together keeps more units under
``snippets.choose``'s ratio, and longer snippets hold more answer words whoever chose them.

On a set with a ``sections.tsv`` (bench/data/sections-*: each question answered by one section that starts in
the middle of its page), also the share of those start pages whose best unit by each rule lies inside the
answer's section — not in the section above it, which the issue saw quoted and highlighted.

Run: ``nice -n 10 .venv/bin/python bench/snippet_focus.py [DATASET ...]`` (default: bench/data/sections-dev,
manuals-dev, financebench-dev).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from snippet_quality import DATA, answer_words, share

from drag_core.evidence.snippets import MAX_SNIPPET_CHARS, analysed, bm25_scores, terms
from drag_core.ingest.loading import LoadedDocument, load_path
from drag_core.ingest.passages import section_starts
from drag_core.ingest.sections import Sections
from drag_core.ingest.units import Unit
from drag_core.ingest.vector_text import page_passages, titled
from drag_core.models.embeddings import Embedder
from drag_core.types import Node

REPO = Path(__file__).resolve().parents[1]
RRF_K = 10
RULES = ("BM25, page", "BM25, matched passage", "BM25 + MiniLM, matched passage", "BM25 + MiniLM, page")


def rrf(lists: Sequence[Sequence[float]]) -> list[float]:
    fused = [0.0] * len(lists[0])
    for scores in lists:
        for rank, i in enumerate(sorted(range(len(scores)), key=lambda i: (-scores[i], i)), start=1):
            fused[i] += 1.0 / (RRF_K + rank)
    return fused


def best_units(units: Sequence[Unit], scores: Mapping[int, float], count: int) -> str:
    """The ``count`` best units (ties in reading order) within ``MAX_SNIPPET_CHARS``, in reading order."""
    chosen: list[int] = []
    size = 0
    for i in sorted(scores, key=lambda i: (-scores[i], i)):
        if len(chosen) == count:
            break
        if not chosen or size + len(units[i].text) <= MAX_SNIPPET_CHARS:
            chosen.append(i)
            size += len(units[i].text)
    return " … ".join(units[i].text for i in sorted(chosen))


def best_unit(scores: Mapping[int, float]) -> int:
    """The index of the best unit (ties: the first in reading order)."""
    return min(scores, key=lambda i: (-scores[i], i))


def section_span(document: LoadedDocument, number: int, title: str) -> tuple[int, int] | None:
    """Where the section titled ``title`` lies in the body of page ``number`` (from its heading to the next
    section's, or the page's end), as ingest finds the sections starting on the page; None: not found."""
    bodies = [p.body for p in document.pages]
    sections = Sections(document.outline, len(bodies))
    before = sections.page_title(number - 2) if number > 1 else ""
    starts = section_starts(bodies[number - 1], sections.starts_on(number - 1), before)
    for at, start in enumerate(starts):
        if start.offset > 0 and start.heading.endswith(title):
            end = starts[at + 1].offset if at + 1 < len(starts) else len(bodies[number - 1])
            return start.offset, end
    return None


def rule_scores(embedder: Embedder, document: LoadedDocument, number: int, question: str) -> tuple:
    """The page body's units and each rule's scores of them (None: the page is one passage)."""
    body = document.pages[number - 1].body
    leaf = Node(0, -1, [], 0, document.doc_id, document.file_name, number, number, [], "")
    bodies = [p.body for p in document.pages]
    cut = page_passages(leaf, bodies, Sections(document.outline, len(bodies)), embedder, headed=False)
    page = analysed(body)
    if len(cut) < 2 or not page.units:
        return page.units, None
    query = embedder.query(question)[0]
    texts = [titled(document.file_name, p.text) for p in cut]  # as ingest embeds them ("plain")
    best = cut[int(np.argmax(embedder.dense(texts) @ query))]
    inside = [i for i, u in enumerate(page.units) if u.start < best.end and u.end > best.start]
    wanted = terms(question)
    everything = range(len(page.units))
    lexical = bm25_scores(wanted, [page.counts_of(i) for i in everything])
    meaning = list(embedder.dense([u.text for u in page.units]) @ query)
    local = bm25_scores(wanted, [page.counts_of(i) for i in inside])
    return page.units, {
        RULES[0]: dict(enumerate(lexical)),
        RULES[1]: {i: lexical[i] for i in inside},
        RULES[2]: dict(zip(inside, rrf([local, [meaning[i] for i in inside]]), strict=True)),
        RULES[3]: dict(enumerate(rrf([lexical, meaning]))),
    }


def measure(folder: Path, embedder: Embedder) -> dict[str, float]:
    queries = {row["_id"]: row for row in map(json.loads, (folder / "queries.jsonl").open())}
    documents: dict[str, LoadedDocument] = {}
    rows: list[dict[str, float]] = []
    titles = {}
    if (folder / "sections.tsv").is_file():
        with (folder / "sections.tsv").open(newline="") as handle:
            titles = {
                (r["query-id"], r["file"], r["page"]): r["title"]
                for r in csv.DictReader(handle, delimiter="\t")
            }
    inside: dict[str, list[float]] = {rule: [] for rule in RULES}
    with (folder / "qrels.tsv").open(newline="") as handle:
        for qrel in csv.DictReader(handle, delimiter="\t"):
            query, file = queries[qrel["query-id"]], qrel["file"]
            if file not in documents:
                documents[file] = load_path(folder / "docs" / file)
            units, scores = rule_scores(embedder, documents[file], int(qrel["page"]), query["text"])
            if scores is None:
                continue
            answer = answer_words(query["answer"])
            title = titles.get((qrel["query-id"], file, qrel["page"]))
            span = section_span(documents[file], int(qrel["page"]), title) if title else None
            for rule in RULES if span else ():
                unit = units[best_unit(scores[rule])]
                inside[rule].append(float(span[0] <= unit.start < span[1]))
            rows.append(
                {
                    f"{rule}, {n} unit(s)": share(answer, best_units(units, scores[rule], n))
                    for rule in RULES
                    for n in (1, 3)
                }
            )
    found = {key: statistics.mean(r[key] for r in rows) for key in rows[0]} | {"pairs": float(len(rows))}
    return (
        found
        | {f"{rule}, best unit in the section": statistics.mean(v) for rule, v in inside.items() if v}
        | ({"section pages": float(len(inside[RULES[0]]))} if inside[RULES[0]] else {})
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "sets", nargs="*", default=["bench/data/sections-dev", "manuals-dev", "financebench-dev"]
    )
    args = parser.parse_args()
    embedder = Embedder(REPO / "models")
    for name in args.sets:
        folder = DATA / name if (DATA / name).is_dir() else Path(name)
        result = measure(folder, embedder)
        pages = result.pop("section pages", None)
        print(f"{name}: answer words found, mean over {result.pop('pairs'):.0f} pages cut into passages")
        if pages:
            print(f"  (best unit in the section: over {pages:.0f} section start pages cut into passages)")
        for key, value in result.items():
            print(f"  {key:<46} {value:6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
