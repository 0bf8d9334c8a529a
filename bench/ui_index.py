"""An embedded index of at least 10,000 real-text nodes for the UI benchmark, built once into a folder.

Run: ``nice -n 10 .venv/bin/python bench/ui_index.py [FOLDER] [--nodes 10000]`` (default folder
``data/bench/ui-index``). The documents are the SciFact tree corpus of ``bench/corpus.py`` (projection dense
vectors, real BM25 vectors, real trees); each root carries the statistics ingestion writes, so the app lists
them as current documents. An existing folder that already holds enough nodes is left as it is.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
from corpus import REPO, build

from drag_core.config import Settings
from drag_core.ingest.vector_text import VectorPolicy
from drag_core.models.embeddings import Embedder
from drag_core.store import open_store

DEFAULT_FOLDER = REPO / "data" / "bench" / "ui-index"


def build_index(folder: Path, nodes: int) -> int:
    """Fill ``folder`` with whole documents until it holds at least ``nodes`` nodes; returns the count."""
    store = open_store(Settings(store=str(folder)))
    try:
        if store.has_collection() and store.count() >= nodes:
            return store.count()
        embedder = Embedder(Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models")))
        store.ensure_collection(embedder.dim)
        for document in build(embedder, "projection", max_nodes=nodes):
            root = document.nodes[-1]
            root.extra = {
                "pages": root.page_end,
                "empty_pages": 0,
                "nodes": len(document.nodes),
                "fallbacks": 0,
                "vector_policy": VectorPolicy().identity,
                "sparse_model": embedder.sparse_identity,
                "ingested_at": time.time(),
            }
            store.write_document(document.nodes, document.dense, document.sparse)
        return store.count()
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--nodes", type=int, default=10_000)
    args = parser.parse_args()
    started = time.perf_counter()
    count = build_index(args.folder, args.nodes)
    print(f"{args.folder}: {count} nodes ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
