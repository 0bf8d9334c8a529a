"""Scale-out ingest: one process ingesting every file against N processes ingesting a share each, at once.

Run: ``.venv/bin/python bench/scale_out.py [--files 8] [--processes 2]``. The N smallest financebench-dev
filings, offline summariser, fresh stores, no caches, PDFium. *One process*: all files, onnxruntime on every
core. *N processes*: started together, each ingests every N-th file into its own Qdrant Edge folder (an
embedded engine is one process per folder; against one ``QDRANT_URL`` they would share one collection) with
cores / N onnxruntime threads. Prints wall seconds, pages/s and the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]

FINANCE = REPO.parent / "shared" / "data" / "financebench-dev" / "docs"


def worker(store: str, threads: int, files: list[str]) -> None:
    """In a child process: ingest the files, print pages and seconds as JSON."""
    from drag_core.config import Settings
    from drag_core.engine import Engine
    from drag_core.ingest.describe.extractive import ExtractiveSummarizer
    from drag_core.models.embeddings import Embedder

    settings = Settings(store=store, cache_path=None)
    embedder = Embedder(settings.model_dir, threads=threads)
    engine = Engine(settings, ExtractiveSummarizer(), embedder)
    started = time.perf_counter()
    reports = engine.ingest_paths([Path(f) for f in files])
    seconds = time.perf_counter() - started
    engine.close()
    assert all(r.ok for r in reports), [r.line() for r in reports]
    print(json.dumps({"pages": sum(r.pages for r in reports), "seconds": seconds}))


def run(shares: list[list[Path]], threads: int, folder: Path) -> tuple[int, float]:
    """Start one child per share at once; their pages and the wall seconds until the last one ends."""
    started = time.perf_counter()
    children = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--worker",
                str(folder / f"store-{i}"),
                str(threads),
                *map(str, share),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i, share in enumerate(shares)
    ]
    outputs = [json.loads(child.communicate()[0].strip().splitlines()[-1]) for child in children]
    return sum(o["pages"] for o in outputs), time.perf_counter() - started


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    files = sorted(FINANCE.glob("*.pdf"), key=lambda p: p.stat().st_size)[: args.files]
    cores = os.cpu_count() or 1
    print(f"cpus={cores} load={os.getloadavg()[0]:.1f} files={len(files)}")
    print("| run | onnxruntime threads each | pages | wall s | pages/s | × one process |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="drag-scale-out-") as tmp:
        pages, one = run([files], cores, Path(tmp) / "one")
        print(f"| 1 process | {cores} | {pages} | {one:.1f} | {pages / one:.2f} | 1.00 |", flush=True)
        n = args.processes
        threads = max(1, cores // n)
        pages, many = run([files[i::n] for i in range(n)], threads, Path(tmp) / "many")
        print(f"| {n} processes | {threads} | {pages} | {many:.1f} | {pages / many:.2f} | {one / many:.2f} |")
    print(f"load={os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
