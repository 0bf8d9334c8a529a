"""Do snippets show the evidence better than the summary heads the cards showed before? Measured on the three
development sets (a measurement, not a speed bench).

* financebench-dev, manuals-dev: for every (question, relevant page) of the qrels, the share of the reference
  answer's words (content-word stems longer than two letters, and numbers) found in the summary head (the
  first 110 characters of the page's offline summary, as the cards showed), in the page's first units up to
  the snippet's length (lead), and in the snippet (BM25, as shipped).
* scifact (test claims): for every (claim, abstract) with annotated evidence sentences, whether the snippet
  includes an evidence sentence (units are this splitter's sentences, matched to the annotation by index), and
  whether the summary head starts in one.

``--dense`` adds the snippet the research prototype proposed — BM25 and MiniLM's cosine of question and unit
fused by RRF (k = 10) — to show what the model would add (it embeds every unit of every page: slow).

Run: ``nice -n 10 .venv/bin/python bench/snippet_quality.py [--dense]``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from drag_core.evidence.snippets import analysed, bm25_scores, choose, snippet, terms
from drag_core.ingest.describe.base import DocumentContext
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.pdf_text import pdf_pages
from drag_core.ingest.units import Unit

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
HEAD = 110
RRF_K = 10
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
Dense = Callable[[Sequence[str]], np.ndarray]


def answer_words(text: str) -> set[str]:
    numbers = {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(text)}
    return {t for t in terms(re.sub(r"\d", " ", text)) if len(t) > 2} | numbers


def share(answer: set[str], text: str) -> float:
    return len(answer & answer_words(text)) / len(answer) if answer else 0.0


def lead(units: Sequence[Unit], budget: int) -> str:
    out = ""
    for unit in units:
        if len(out) >= budget:
            break
        out += (" " if out else "") + unit.text
    return out


def fused_choice(query: str, units: Sequence[Unit], dense: Dense) -> list[int]:
    """The prototype's snippet: BM25 (every unit) and MiniLM cosine, RRF k = 10, the same selection."""
    lexical = bm25_scores(terms(query), [terms(u.text) for u in units])
    vectors = dense([query, *(u.text for u in units)])
    cosine = list(vectors[1:] @ vectors[0])
    fused = [0.0] * len(units)
    for scores in (lexical, cosine):
        for rank, i in enumerate(sorted(range(len(units)), key=lambda i: (-scores[i], i)), start=1):
            fused[i] += 1.0 / (RRF_K + rank)
    return choose(units, dict(enumerate(fused)))


def page_sets(name: str, dense: Dense | None) -> dict[str, float]:
    folder = DATA / name
    queries = {row["_id"]: row for row in map(json.loads, (folder / "queries.jsonl").open())}
    texts: dict[str, list[str]] = {}
    summarizer = ExtractiveSummarizer()
    rows: list[dict[str, float]] = []
    with (folder / "qrels.tsv").open(newline="") as handle:
        for qrel in csv.DictReader(handle, delimiter="\t"):
            query, file = queries[qrel["query-id"]], qrel["file"]
            if file not in texts:
                texts[file] = pdf_pages((folder / "docs" / file).read_bytes(), 3000)
            text = texts[file][int(qrel["page"]) - 1]
            answer = answer_words(query["answer"])
            found = snippet(query["text"], text)
            context = DocumentContext.alone(file, texts[file])
            head = summarizer.describe_page(context, int(qrel["page"]) - 1).summary[:HEAD]
            units = analysed(text).units
            row = {
                "summary head": share(answer, head),
                "lead, snippet's length": share(answer, lead(units, len(found.text))),
                "snippet (BM25)": share(answer, found.text),
                "snippet characters": float(len(found.text)),
            }
            if dense is not None:
                chosen = fused_choice(query["text"], units, dense)
                row["snippet (BM25 + MiniLM, RRF)"] = share(answer, " … ".join(units[i].text for i in chosen))
            rows.append(row)
    return {key: statistics.mean(r[key] for r in rows) for key in rows[0]} | {"pairs": float(len(rows))}


def scifact(dense: Dense | None) -> dict[str, float]:
    folder = DATA / "scifact"
    with gzip.open(folder / "corpus.jsonl.gz", "rt") as lines:
        corpus = {row["_id"]: row["text"] for row in map(json.loads, lines)}
    queries = {row["_id"]: row["text"] for row in map(json.loads, (folder / "queries.jsonl").open())}
    summarizer = ExtractiveSummarizer()
    hits: dict[str, list[bool]] = {"summary head": [], "snippet (BM25)": []}
    if dense is not None:
        hits["snippet (BM25 + MiniLM, RRF)"] = []
    for row in map(json.loads, (folder / "evidence.jsonl").open()):
        text, claim = corpus.get(row["doc_id"]), queries.get(row["query_id"])
        if row["split"] != "test" or text is None or claim is None:
            continue
        units = analysed(text).units
        if max(row["sentences"]) >= len(units):
            continue  # this splitter found fewer sentences than the annotation counts
        evidence = {units[i] for i in row["sentences"]}
        hits["snippet (BM25)"].append(bool(evidence & set(snippet(claim, text).units)))
        head = summarizer.describe_page(DocumentContext.alone(row["doc_id"], [text]), 0).summary[:HEAD]
        hits["summary head"].append(any(u.text.startswith(head[:40]) for u in evidence))
        if dense is not None:
            chosen = {units[i] for i in fused_choice(claim, units, dense)}
            hits["snippet (BM25 + MiniLM, RRF)"].append(bool(evidence & chosen))
    return {key: statistics.mean(v) for key, v in hits.items()} | {"pairs": float(len(hits["summary head"]))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dense", action="store_true", help="also the BM25 + MiniLM (RRF) snippet")
    args = parser.parse_args()
    dense: Dense | None = None
    if args.dense:
        from drag_core.models.embeddings import Embedder

        dense = Embedder(REPO / "models").dense
    for name in ("financebench-dev", "manuals-dev"):
        result = page_sets(name, dense)
        print(
            f"{name}: answer words found, mean over {result.pop('pairs'):.0f} (question, relevant page) pairs"
        )
        for key, value in result.items():
            print(f"  {key:<32} {value:7.3f}")
    result = scifact(dense)
    print(
        f"scifact test: share of {result.pop('pairs'):.0f} (claim, abstract) pairs showing an evidence sentence"
    )
    for key, value in result.items():
        print(f"  {key:<32} {value:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
