"""Peak resident memory of an ingest and of the app process with the index loaded.

Run: ``.venv/bin/python bench/memory.py [--files 6] [--nodes 20000] [--engines edge local]``, or
``bench/memory.py --pdf ../shared/data/financebench-dev/docs/PEPSICO_2022_10K.pdf`` for the ingest of one
file alone (503 pages). Each figure is the peak RSS (``ru_maxrss``) of a fresh child process:

* ingest: the N smallest financebench-dev filings (or the ``--pdf`` file) into a fresh index (its parse
  workers reported apart);
* app, empty index: what the app holds before any document — Streamlit imported, models loaded;
* app, index loaded: the same with an index of ``--nodes`` nodes (the SciFact tree corpus of
  ``bench/corpus.py``, written to disk beforehand) opened and searched with every strategy.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus import REPO, corpus, fill, queries

from drag_core.config import Settings
from drag_core.models.embeddings import Embedder
from drag_core.store import ENGINES, open_store

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)

FINANCE = REPO.parent / "shared" / "data" / "financebench-dev" / "docs"


def peak_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def child(args: argparse.Namespace) -> None:
    """Runs in the child process: do one job, print its peak memory as JSON."""
    from drag_core.engine import Engine
    from drag_core.ingest.describe.extractive import ExtractiveSummarizer

    settings = Settings.from_env(
        store=args.store, engine=args.engine, cache_path=None
    )  # DRAG_PDF_ENGINE counts
    pages = 0
    if args.child == "ingest":
        engine = Engine(settings, ExtractiveSummarizer())
        reports = engine.ingest_paths(ingested_files(args))
        assert all(r.ok for r in reports), [r.line() for r in reports]
        pages = sum(r.pages for r in reports)
    else:
        import streamlit  # noqa: F401  (the app imports it first)

        engine = Engine(settings, ExtractiveSummarizer())
        for text in queries(1):
            for strategy in ("flat", "flat-knee", "branch", "beam", "adaptive"):
                engine.search(text, strategy)
    engine.close()
    print(json.dumps({"self": peak_mb(), "children": peak_mb(resource.RUSAGE_CHILDREN), "pages": pages}))


def ingested_files(args: argparse.Namespace) -> list[Path]:
    """The ``--pdf`` file, else the ``--files`` smallest filings."""
    if args.pdf:
        return [args.pdf]
    return sorted(FINANCE.glob("*.pdf"), key=lambda p: p.stat().st_size)[: args.files]


def run_child(job: str, store: str, engine: str, files: int, pdf: Path | None = None) -> dict[str, float]:
    command = [
        sys.executable,
        __file__,
        "--child",
        job,
        "--store",
        store,
        "--engine",
        engine,
        "--files",
        str(files),
        *(["--pdf", str(pdf)] if pdf else []),
    ]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=6)
    parser.add_argument("--nodes", type=int, default=20000)
    parser.add_argument("--engines", nargs="+", choices=ENGINES, default=list(ENGINES))
    parser.add_argument("--child", choices=("ingest", "app"))
    parser.add_argument("--store", default=":memory:")
    parser.add_argument("--engine", default="edge")
    parser.add_argument("--pdf", type=Path, help="measure the ingest of this one file only")
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.pdf:
        ingest_one(args)
        return

    embedder = Embedder(Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models")))
    documents = corpus(embedder)
    print(f"cpus={os.cpu_count()} files={args.files} nodes={args.nodes}")
    print("| engine | process | peak RSS MiB |")
    print("|---|---|---|")
    for name in args.engines:
        with tempfile.TemporaryDirectory(prefix="drag-memory-") as tmp:
            ingest = run_child("ingest", f"{tmp}/ingest", name, args.files)
            print(
                f"| {name} | ingest of {args.files} filings | {ingest['self']:.0f} (+ parse workers {ingest['children']:.0f}) |"
            )
            empty = run_child("app", f"{tmp}/empty", name, args.files)
            print(f"| {name} | app, empty index | {empty['self']:.0f} |")
            store = open_store(Settings(store=f"{tmp}/index", engine=name))
            store.ensure_collection(embedder.dim)
            started = time.perf_counter()
            written = fill(store, documents, args.nodes)
            store.close()
            loaded = run_child("app", f"{tmp}/index", name, args.files)
            print(
                f"| {name} | app, {written} nodes loaded (written in {time.perf_counter() - started:.0f} s) | "
                f"{loaded['self']:.0f} |",
                flush=True,
            )


def ingest_one(args: argparse.Namespace) -> None:
    """Peak RSS of ingesting the ``--pdf`` file into a fresh index, per engine."""
    print(f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f} file={args.pdf.name}")
    print("| engine | process | pages | seconds | peak RSS MiB |")
    print("|---|---|---|---|---|")
    for name in args.engines:
        with tempfile.TemporaryDirectory(prefix="drag-memory-") as tmp:
            started = time.perf_counter()
            peak = run_child("ingest", f"{tmp}/ingest", name, 1, args.pdf)
            seconds = time.perf_counter() - started
            print(
                f"| {name} | ingest of {args.pdf.name} | {peak['pages']} | {seconds:.0f} "
                f"| {peak['self']:.0f} (+ parse workers {peak['children']:.0f}) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
