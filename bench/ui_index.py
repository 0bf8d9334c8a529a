"""An embedded index of at least 10,000 real-text nodes for the UI benchmark, built once into a folder.

Run: ``nice -n 10 .venv/bin/python bench/ui_index.py [FOLDER] [--nodes 10000]`` (default folder
``data/bench/ui-index``). The documents are the SciFact tree corpus of ``bench/corpus.py`` (projection dense
vectors, real BM25 vectors, real trees), written by ``bench/scale_index.py``: each root carries the statistics
ingestion writes, so the app lists them as current documents. An existing folder that already holds enough
nodes is left as it is.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
from corpus import REPO, build
from scale_index import build_index as fill_index

from drag_core.config import Settings
from drag_core.models.embeddings import Embedder

DEFAULT_FOLDER = REPO / "data" / "bench" / "ui-index"


def build_index(folder: Path, nodes: int) -> int:
    """Fill ``folder`` with whole documents until it holds at least ``nodes`` nodes; returns the count."""
    embedder = Embedder(Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models")))
    documents = build(embedder, "projection", max_nodes=nodes)
    return fill_index(Settings(store=str(folder)), documents, nodes, embedder)


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
