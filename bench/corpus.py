"""A large real-text tree index for the search benchmark, built once and kept under ``data/bench`` (gitignored).

SciFact abstracts (../shared/data/scifact) are cut into three sentence runs each; a run is one page, ten
abstracts make one document (30 pages → a 39-node tree). Pages are described by the offline summariser, grouped
by the real tree builder and given BM25 vectors by the real embedder with the default vector policy, so the
nodes and sparse vectors are the ones ingestion writes; so are the leaves' passages (issue 26: cut by ingestion's
own ``passage_texts`` with the model's tokenizer, embedded like the pages). A run is short, so most pages are
one passage, which ingestion stores as the page vector itself.

Dense vectors: ``minilm`` embeds the ~15,000 pages with the real model (an hour or more on a busy 2-core machine);
``projection`` (the default) gives every BM25 term a fixed random direction and every text the normalised
weighted sum of its terms' directions — text-derived vectors (similar pages get similar vectors) in seconds.
Exact search costs the same whatever the vectors hold; rankings, and so the paths the tree searches take, are
realistic but not MiniLM's. Later runs load the corpus from the file.
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.loading import LoadedDocument, document_id
from drag_core.ingest.pipeline import describe_tree
from drag_core.ingest.sections import Sections
from drag_core.ingest.vector_text import (
    VectorPolicy,
    dense_vectors,
    passage_texts,
    passage_vectors,
    sparse_texts,
    stored_passages,
)
from drag_core.models.embeddings import Embedder
from drag_core.store import NodeStore
from drag_core.text import sentences
from drag_core.types import Node, Page, SparseVector

REPO = Path(__file__).resolve().parents[1]
SCIFACT = REPO.parent / "shared" / "data" / "scifact"
CACHE = REPO / "data" / "bench"
ABSTRACTS_PER_DOCUMENT = 10
RUNS_PER_ABSTRACT = 3
PASSAGES = "passages.npy"  # every node's passage vectors, concatenated
PASSAGE_COUNTS = "passage_counts.npy"  # rows per node in PASSAGES (−1: a parent, none)


@dataclass
class Document:
    """One document of the corpus as ingestion writes it.

    Attributes:
        nodes: leaves first, root last.
        dense: one dense vector per node.
        sparse: one BM25 vector per node.
        passages: each node's passage vectors as ``vector_text.passage_vectors`` gives them (None: a parent;
            no rows: a page whose one passage is its page vector).
    """

    nodes: list[Node]
    dense: np.ndarray
    sparse: list[SparseVector]
    passages: list[np.ndarray | None]

    @property
    def stored_passages(self) -> list[np.ndarray | None]:
        """The passage vectors a store writes (a page read whole: its page vector)."""
        return stored_passages(self.passages, self.dense)


def _runs(text: str) -> list[str]:
    parts = sentences(text)
    size = max(1, -(-len(parts) // RUNS_PER_ABSTRACT))
    return [" ".join(parts[i : i + size]) for i in range(0, len(parts), size)]


def _documents() -> Iterator[LoadedDocument]:
    with gzip.open(SCIFACT / "corpus.jsonl.gz", "rt") as lines:
        abstracts = [json.loads(line) for line in lines]
    for start in range(0, len(abstracts), ABSTRACTS_PER_DOCUMENT):
        name = f"scifact-{start // ABSTRACTS_PER_DOCUMENT:04d}.txt"
        texts = [
            f"{a['title']}\n{run}"
            for a in abstracts[start : start + ABSTRACTS_PER_DOCUMENT]
            for run in _runs(a["text"])
        ]
        pages = [Page(file_name=name, number=i + 1, text=t) for i, t in enumerate(texts)]
        yield LoadedDocument(file_name=name, doc_id=document_id("\n".join(texts).encode()), pages=pages)


class Projection:
    """Dense vectors without a neural model: the normalised sum of a fixed random direction per BM25 term,
    weighted by the term's BM25 weight.

    Attributes:
        dim: vector size.
    """

    def __init__(self, embedder: Embedder, dim: int) -> None:
        self.embedder = embedder
        self.dim = dim
        self._directions: dict[int, np.ndarray] = {}

    def _direction(self, term: int) -> np.ndarray:
        if term not in self._directions:
            self._directions[term] = np.random.default_rng(term & 0xFFFFFFFF).standard_normal(self.dim)
        return self._directions[term]

    def __call__(self, texts: list[str]) -> np.ndarray:
        rows = []
        for vector in self.embedder.sparse(texts):
            total = sum(
                (w * self._direction(t) for t, w in zip(vector.indices, vector.values)), np.zeros(self.dim)
            )
            rows.append(total / (np.linalg.norm(total) or 1.0))
        return np.asarray(rows, dtype=np.float32)


def build(embedder: Embedder, dense: str, max_nodes: int | None = None) -> list[Document]:
    """The corpus's documents (whole), stopping once they hold at least ``max_nodes`` nodes (None: all)."""
    embed = embedder.dense if dense == "minilm" else Projection(embedder, embedder.dim)
    describer = Describer(ExtractiveSummarizer(), DescriptionCache(None))
    policy = VectorPolicy()
    documents = []
    started = time.perf_counter()
    for i, loaded in enumerate(_documents()):
        if max_nodes is not None and sum(len(d.nodes) for d in documents) >= max_nodes:
            break
        nodes = describe_tree(loaded, describer)
        bodies = [page.body for page in loaded.pages]
        sections = Sections(loaded.outline, len(loaded.pages))
        texts = passage_texts(nodes, policy, bodies, sections, embedder)
        passages = passage_vectors(texts, embed, embedder.dim, embedder.pieces)
        documents.append(
            Document(
                nodes,
                dense_vectors(nodes, policy, embed, bodies, passages),
                embedder.sparse(sparse_texts(nodes, policy, bodies)),
                passages,
            )
        )
        if i % 50 == 0:
            print(
                f"  corpus: {i} documents, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True
            )
    return documents


def save(documents: list[Document], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    np.save(folder / "dense.npy", np.concatenate([d.dense for d in documents]))
    rows = [p for d in documents for p in d.passages]
    np.save(folder / PASSAGE_COUNTS, np.array([-1 if p is None else len(p) for p in rows], dtype=np.int32))
    np.save(folder / PASSAGES, np.concatenate([p for p in rows if p is not None]))
    with open(folder / "nodes.jsonl", "w") as out:
        for d in documents:
            for node, sparse in zip(d.nodes, d.sparse):
                out.write(
                    json.dumps({"node": node.payload(), "indices": sparse.indices, "values": sparse.values})
                    + "\n"
                )


def _split(counts: np.ndarray, vectors: np.ndarray) -> list[np.ndarray | None]:
    """Each node's passage vectors from their concatenation (``counts``: rows per node, −1 for None)."""
    ends = np.cumsum(np.maximum(counts, 0))
    return [None if n < 0 else vectors[end - n : end] for n, end in zip(counts, ends)]


def load(folder: Path) -> list[Document]:
    dense = np.load(folder / "dense.npy")
    passages = _split(np.load(folder / PASSAGE_COUNTS), np.load(folder / PASSAGES))
    documents: list[Document] = []
    rows = 0
    current: list[tuple[Node, SparseVector]] = []
    with open(folder / "nodes.jsonl") as lines:
        for line in lines:
            row = json.loads(line)
            node = Node.from_payload(row["node"])
            current.append((node, SparseVector(row["indices"], row["values"])))
            if node.is_root:
                count = len(current)
                documents.append(
                    Document(
                        [n for n, _ in current],
                        dense[rows : rows + count],
                        [s for _, s in current],
                        passages[rows : rows + count],
                    )
                )
                rows += count
                current = []
    return documents


def corpus(embedder: Embedder, dense: str = "projection") -> list[Document]:
    """The corpus, from ``data/bench/scifact-<dense>`` when it was built before."""
    folder = CACHE / f"scifact-{dense}"
    if (folder / "nodes.jsonl").exists() and (folder / PASSAGES).exists():
        return load(folder)
    documents = build(embedder, dense)
    save(documents, folder)
    return documents


def fill(store: NodeStore, documents: list[Document], nodes: int) -> int:
    """Write whole documents until the store holds at least ``nodes`` nodes; returns how many it holds."""
    written = 0
    for document in documents:
        if written >= nodes:
            break
        store.write_document(
            document.nodes, document.dense, document.sparse, passages=document.stored_passages
        )
        written += len(document.nodes)
    return written


def queries(count: int) -> list[str]:
    """The first ``count`` SciFact test claims."""
    with open(SCIFACT / "qrels" / "test.tsv") as qrels:
        wanted = {line.split("\t")[0] for line in list(qrels)[1:]}
    with open(SCIFACT / "queries.jsonl") as lines:
        claims = [json.loads(line) for line in lines]
    return [c["text"] for c in claims if c["_id"] in wanted][:count]
