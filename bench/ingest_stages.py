"""Ingest time per stage for ../shared/data/financebench-dev, against embedding the same text alone.

Run: ``.venv/bin/python bench/ingest_stages.py [--files 17] [--engine edge|local] [--pdf-engine pdfium|pypdf]
[--threads N] [--parse-gain]``.
Measured in one run, with the offline summariser and no description cache:

* cold: the files into a fresh index with an empty page cache (parsing in worker processes overlaps the
  ingestion of the files before);
* warm: the same files into another fresh index, pages from the page cache of the cold pass;
* embedding alone: dense + BM25 vectors of every page text under its title (what a flat index of these pages
  pays at least), measured before the cold pass and after the warm one (the load of a shared machine drifts;
  the ratios use the mean), and BM25 of the parents' subtree text apart;
* with ``--parse-gain``: parsing alone, one file after another vs in worker processes.

Ratios are to embedding alone (the target: cold total ≤ 1.3× with the offline summariser).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from collections import Counter
from pathlib import Path

from drag_core.config import DEFAULT_PDF_ENGINE, PDF_ENGINES, Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.loading import load_path
from drag_core.ingest.parsing import PageCache, Parser
from drag_core.ingest.report import STAGES
from drag_core.ingest.vector_text import sparse_texts, titled
from drag_core.models.embeddings import Embedder
from drag_core.types import Node

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)
REPO = Path(__file__).resolve().parents[1]
FINANCE = REPO.parent / "shared" / "data" / "financebench-dev" / "docs"


def cpu_seconds() -> float:
    """CPU seconds of this process and of its ended children (the parse workers) so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(fn):  # type: ignore[no-untyped-def]
    """``fn()``, its wall seconds and its CPU seconds (CPU barely depends on what else runs on the machine)."""
    started, cpu = time.perf_counter(), cpu_seconds()
    value = fn()
    return value, time.perf_counter() - started, cpu_seconds() - cpu


def ingest(
    files: list[Path], engine_name: str, pdf_engine: str, embedder: Embedder, folder: Path
) -> tuple[Engine, float, float, Counter]:
    """Ingest into a fresh index in ``folder`` with the page cache of ``folder.parent``, no description cache;
    the engine, wall seconds, CPU seconds and stage sums."""
    settings = Settings(store=str(folder), engine=engine_name, cache_path=None, pdf_engine=pdf_engine)
    engine = Engine(settings, ExtractiveSummarizer(), embedder)
    cache = PageCache(folder.parent / "page-cache.sqlite")
    engine.parser = Parser(settings.max_file_bytes, cache, pdf_engine=pdf_engine)
    reports, wall, cpu = timed(lambda: engine.ingest_paths(files))
    failed = [r.line() for r in reports if not r.ok]
    if failed:
        raise SystemExit("\n".join(failed))
    stages: Counter = Counter()
    for report in reports:
        stages.update(report.stage_seconds)
    return engine, wall, cpu, stages


def parse_gain(files: list[Path], pdf_engine: str) -> tuple[float, float]:
    """Seconds to parse every file one after another, and in worker processes."""
    runs = []
    for workers in (1, os.cpu_count() or 1):
        parser = Parser(200 * 2**20, PageCache(None), workers, pdf_engine)
        _, seconds, _ = timed(lambda p=parser: [load() for load in p.parse_paths(files)])
        runs.append(seconds)
    return runs[0], runs[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=None, help="the N smallest files (default: all)")
    parser.add_argument("--engine", default="edge")
    parser.add_argument("--pdf-engine", default=DEFAULT_PDF_ENGINE, choices=PDF_ENGINES)
    parser.add_argument(
        "--threads", type=int, default=None, help="onnxruntime threads (default: one per core)"
    )
    parser.add_argument("--parse-gain", action="store_true")
    args = parser.parse_args()
    files = sorted(FINANCE.glob("*.pdf"), key=lambda p: p.stat().st_size)[: args.files]
    embedder = Embedder(Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models")), threads=args.threads)
    print(
        f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f} files={len(files)} engine={args.engine} "
        f"pdf={args.pdf_engine} threads={args.threads or 'per core'}"
    )

    texts = [
        titled(p.file_name, p.body) for f in files for p in load_path(f, pdf_engine=args.pdf_engine).pages
    ]

    def embed_alone() -> tuple[float, float]:
        _, wall, cpu = timed(lambda: (embedder.dense(texts), embedder.sparse(texts)))
        return wall, cpu

    before, before_cpu = embed_alone()  # before and after the ingests: the load drifts on a shared machine
    with tempfile.TemporaryDirectory(prefix="drag-ingest-bench-") as tmp:
        cold_engine, cold, cold_cpu, cold_stages = ingest(
            files, args.engine, args.pdf_engine, embedder, Path(tmp) / "cold"
        )
        cold_engine.close()
        engine, warm, warm_cpu, warm_stages = ingest(
            files, args.engine, args.pdf_engine, embedder, Path(tmp) / "warm"
        )
        trees: list[list[Node]] = [engine.tree(d.file_name, with_text=True) for d in engine.documents()]
        engine.close()
    nodes = [n for tree in trees for n in tree]
    after, after_cpu = embed_alone()
    alone, alone_cpu = (before + after) / 2, (before_cpu + after_cpu) / 2
    parents = [  # the page text stands in for the bodies: the same work
        t
        for tree in trees
        for n, t in zip(tree, sparse_texts(tree, engine.policy, [n.text for n in tree if n.level == 0]))
        if n.level > 0
    ]
    _, parent_sparse, _ = timed(lambda: embedder.sparse(parents))
    print(f"pages={len(texts)} nodes={len(nodes)} load={os.getloadavg()[0]:.1f}")
    print("| pass | " + " | ".join(STAGES) + " | total s | × embedding alone | CPU s | × (CPU) |")
    print("|---|" + "---|" * (len(STAGES) + 4))
    passes = (("cold", cold, cold_cpu, cold_stages), ("warm pages", warm, warm_cpu, warm_stages))
    for name, wall, cpu, stages in passes:
        cells = " | ".join(f"{stages.get(s, 0.0):.1f}" for s in STAGES)
        print(f"| {name} | {cells} | {wall:.1f} | {wall / alone:.2f} | {cpu:.1f} | {cpu / alone_cpu:.2f} |")
    print(
        f"| embedding alone (mean of before {before:.1f} and after {after:.1f}) | | | | | | {alone:.1f} | 1.00 "
        f"| {alone_cpu:.1f} | 1.00 |"
    )
    print(
        f"BM25 of the parents' subtree text {parent_sparse:.2f} s (in the vectors stage, not in embedding alone)"
    )
    if args.parse_gain:
        sequential, parallel = parse_gain(files, args.pdf_engine)
        print(
            f"parsing alone: one by one {sequential:.1f} s, in workers {parallel:.1f} s, gain {sequential / parallel:.2f}×"
        )


if __name__ == "__main__":
    main()
