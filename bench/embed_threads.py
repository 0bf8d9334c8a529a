"""onnxruntime threads × embedding batch size, alone and beside a busy PDF parse worker, on real pages.

Run: ``.venv/bin/python bench/embed_threads.py [--pages 64] [--repeats 2]``. The pages are the first
``--pages`` pages (PDFium text, as ingested) of the smallest financebench-dev filings. Every configuration
embeds the same pages with MiniLM (fastembed), the configurations taking turns so a busy machine slows each
alike; best of ``--repeats``. *Beside a parser*: a child process parses PDFs with pypdf in a loop meanwhile (the
worst case of a parse worker: pure Python, one core busy). Pages/s wall and pages per CPU second of this
process; ``× default`` is the ratio to the default (threads = cores, batch 32) of the same column.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from pathlib import Path

from fastembed import TextEmbedding

from drag_core.config import Settings
from drag_core.ingest.loading import load_path
from drag_core.models.files import (
    DENSE_MODEL_NAME,
    DENSE_MODEL_SUBDIR,
    prepare_dense_model,
    register_dense_model,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)
REPO = Path(__file__).resolve().parents[1]
FINANCE = REPO.parent / "shared" / "data" / "financebench-dev" / "docs"
BATCHES = (8, 16, 32, 64)


def pages(count: int) -> list[str]:
    texts: list[str] = []
    for path in sorted(FINANCE.glob("*.pdf"), key=lambda p: p.stat().st_size):
        texts += [p.text for p in load_path(path).pages if p.text.strip()]
        if len(texts) >= count:
            return texts[:count]
    return texts


def busy_parser(stop: multiprocessing.synchronize.Event) -> None:
    """Parse PDFs with pypdf until told to stop."""
    files = sorted(FINANCE.glob("*.pdf"), key=lambda p: p.stat().st_size)[:4]
    while not stop.is_set():
        for path in files:
            load_path(path, pdf_engine="pypdf")


def measure(model: TextEmbedding, texts: list[str], batch: int) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    rows = list(model.embed(texts, batch_size=batch))
    return len(rows) / (time.perf_counter() - wall), len(rows) / (time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    texts = pages(args.pages)
    folder = prepare_dense_model(Settings.from_env().model_dir / DENSE_MODEL_SUBDIR)
    register_dense_model()
    cores = os.cpu_count() or 1
    models = {
        threads: TextEmbedding(DENSE_MODEL_NAME, specific_model_path=str(folder), threads=threads)
        for threads in sorted({1, cores})
    }
    for model in models.values():
        list(model.embed(texts[:8], batch_size=8))  # warm-up
    configs = [(busy, threads, batch) for busy in (False, True) for threads in models for batch in BATCHES]
    best = dict.fromkeys(configs, (0.0, 0.0))
    print(f"cpus={cores} pages={len(texts)} load={os.getloadavg()[0]:.1f}")
    context = multiprocessing.get_context("fork")
    for _ in range(args.repeats):
        for busy in (False, True):
            stop = context.Event()
            worker = context.Process(target=busy_parser, args=(stop,)) if busy else None
            if worker:
                worker.start()
            for config in [c for c in configs if c[0] == busy]:
                wall, cpu = measure(models[config[1]], texts, config[2])
                best[config] = (max(best[config][0], wall), max(best[config][1], cpu))
            if worker:
                stop.set()
                worker.join()
    default = {busy: best[busy, cores, 32] for busy in (False, True)}
    print("| beside a parser | threads | batch | pages/s | × default | pages per CPU s | × default |")
    print("|---|---|---|---|---|---|---|")
    for (busy, threads, batch), (wall, cpu) in best.items():
        base_wall, base_cpu = default[busy]
        print(
            f"| {'yes' if busy else 'no'} | {threads} | {batch} | {wall:.1f} | {wall / base_wall:.2f} "
            f"| {cpu:.1f} | {cpu / base_cpu:.2f} |"
        )
    print(f"load={os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
