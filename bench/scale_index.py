"""Large embedded indexes for the scale benchmark: the SciFact tree corpus of ``bench/corpus.py`` written again
and again, each copy a document of its own, until the index holds the wanted number of nodes.

Copy 0 of a document is the corpus document itself; copy k > 0 gets its own file name
(``scifact-0042-c0007.txt``), its own ``doc_id`` and point ids (the tree, the page texts, summaries and BM25
vectors stay real and unchanged), and dense vectors — the page vectors and the leaves' passage vectors —
perturbed by seeded Gaussian noise (``NOISE`` of the vector's length) and normalised again, so copies are near
neighbours of their original and not exact ties (a page read whole keeps its page vector as its one passage, as
ingestion stores it). With ``passages`` False the collection is made as before passages (issue 26): no
``passages`` vector, the roots' vector policy ``passages=off``.
Building is resumable: the documents go in a fixed order, each root last, so the complete roots in the folder
say where to go on (a document cut off mid-write is removed first, as on any open).
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Iterator
from dataclasses import replace

import numpy as np
from corpus import Document

from drag_core.config import Settings
from drag_core.ingest.tree import TREE_VERSION, node_id_base
from drag_core.ingest.vector_text import VectorPolicy
from drag_core.models.embeddings import Embedder
from drag_core.store import NodeStore, open_store
from drag_core.types import Node

__all__ = ["NOISE", "build_index", "copies"]

NOISE = 0.35


def _copy(document: Document, k: int) -> Document:
    """Copy ``k`` of a corpus document (copy 0 is the document itself)."""
    root = document.nodes[-1]
    if k == 0:
        return document
    file_name = root.file_name.replace(".txt", f"-c{k:04d}.txt")
    doc_id = hashlib.sha256(f"{root.doc_id}:{k}".encode()).hexdigest()[:32]
    old, new = node_id_base(root.file_name, root.doc_id), node_id_base(file_name, doc_id)

    def moved(node_id: int) -> int:
        return node_id if node_id == -1 else new + node_id - old

    nodes = [
        replace(
            n,
            id=moved(n.id),
            parent_id=moved(n.parent_id),
            child_ids=[moved(c) for c in n.child_ids],
            doc_id=doc_id,
            file_name=file_name,
        )
        for n in document.nodes
    ]
    rng = np.random.default_rng(k)
    dense = _perturbed(document.dense, rng)  # first: the page vectors of the indexes before passages
    rows = [p for p in document.passages if p is not None]
    passages = iter(np.split(_perturbed(np.concatenate(rows), rng), np.cumsum([len(p) for p in rows])[:-1]))
    return Document(
        nodes, dense, document.sparse, [None if p is None else next(passages) for p in document.passages]
    )


def _perturbed(vectors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``vectors`` plus Gaussian noise of ``NOISE`` times their length, normalised again."""
    noise = rng.standard_normal(vectors.shape).astype(np.float32) * (NOISE / np.sqrt(vectors.shape[1]))
    moved = vectors + noise
    return moved / np.linalg.norm(moved, axis=1, keepdims=True)


def copies(documents: list[Document]) -> Iterator[Document]:
    """Every document of the corpus, then every one's copy 1, copy 2, … (endless)."""
    k = 0
    while True:
        for document in documents:
            yield _copy(document, k)
        k += 1


def _with_statistics(root: Node, nodes: int, embedder: Embedder, policy: VectorPolicy) -> None:
    """The statistics ingestion writes on a root, so the app lists the document as current."""
    root.extra = {
        **root.extra,
        "tree_version": TREE_VERSION,
        "pages": root.page_end,
        "empty_pages": 0,
        "nodes": nodes,
        "fallbacks": 0,
        "vector_policy": policy.identity,
        "sparse_model": embedder.sparse_identity,
        "ingested_at": time.time(),
    }


def _fill(store: NodeStore, documents: list[Document], nodes: int, embedder: Embedder) -> int:
    """Write the documents of ``copies`` after those the store holds whole, until it holds ``nodes`` (with
    their passages where the collection has them)."""
    passages = store.holds_passages
    policy = VectorPolicy() if passages else VectorPolicy(passages="off")
    store.recover()
    done = len(store.roots())
    held = store.count()
    started, last = time.perf_counter(), time.perf_counter()
    for i, document in enumerate(copies(documents)):
        if held >= nodes:
            break
        if i < done:
            continue
        root = replace(document.nodes[-1])
        _with_statistics(root, len(document.nodes), embedder, policy)
        rows = document.stored_passages if passages else ()
        store.write_document([*document.nodes[:-1], root], document.dense, document.sparse, passages=rows)
        store.settle()  # as ingestion does after every file
        held += len(document.nodes)
        if time.perf_counter() - last > 30:
            last = time.perf_counter()
            print(f"  {held} nodes, {last - started:.0f} s", file=sys.stderr, flush=True)
    return held


def build_index(
    settings: Settings, documents: list[Document], nodes: int, embedder: Embedder, passages: bool = True
) -> int:
    """Fill the index of ``settings`` until it holds at least ``nodes`` nodes, with the leaves' passages or
    (``passages`` False) as before them; returns how many. An index begun the other way is refused."""
    store = open_store(settings)
    try:
        store.ensure_collection(embedder.dim, passages)
        if store.holds_passages != passages:
            begun = "without" if passages else "with"
            raise ValueError(f"{settings.store or settings.collection} was begun {begun} passages")
        return _fill(store, documents, nodes, embedder)
    finally:
        store.close()
