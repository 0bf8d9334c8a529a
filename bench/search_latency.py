"""Search latency of every strategy against one flat hybrid query, on the same index, per engine and size.

Run: ``.venv/bin/python bench/search_latency.py [--sizes 1000 5000 20000] [--engines edge local] [--queries 20]
[--local-queries 4]``. The index is the SciFact tree corpus of ``bench/corpus.py`` (built on first use). Every
query is embedded once; each strategy then runs through ``Engine.search`` (store calls, knee cuts and the final
``get`` of the nodes' text), strategies taking turns per query so machine noise falls on all of them alike.
Printed per engine and size: the median milliseconds, the ratio to ``flat`` measured in the same run (the
target: ``adaptive`` ≤ 3× ``flat``) and the store round trips per search.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from corpus import REPO, corpus, fill, queries

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.models.embeddings import Embedder
from drag_core.search import SearchParams
from drag_core.store import ENGINES, open_store

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)

STRATEGIES = ("flat", "flat-knee", "branch", "beam", "adaptive")


def measure(engine: Engine, texts: list[str]) -> dict[str, tuple[list[float], list[int]]]:
    """Milliseconds and round trips of every strategy on every query (after one warm-up round)."""
    params = SearchParams()
    vectors = [engine.embed_query(text) for text in texts]
    for strategy in STRATEGIES:
        engine.search(texts[0], strategy, params, vectors[0])
    results: dict[str, tuple[list[float], list[int]]] = {s: ([], []) for s in STRATEGIES}
    for i, (text, vector) in enumerate(zip(texts, vectors)):
        for strategy in STRATEGIES[i % len(STRATEGIES) :] + STRATEGIES[: i % len(STRATEGIES)]:
            result = engine.search(text, strategy, params, vector)
            results[strategy][0].append(result.latency_ms)
            results[strategy][1].append(result.round_trips)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--engines", nargs="+", choices=ENGINES, default=list(ENGINES))
    parser.add_argument("--queries", type=int, default=20, help="queries per size on Qdrant Edge")
    parser.add_argument("--local-queries", type=int, default=4, help="queries per size in local mode (slow)")
    parser.add_argument("--dense", choices=("projection", "minilm"), default="projection")
    args = parser.parse_args()

    embedder = Embedder(Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models")))
    documents = corpus(embedder, args.dense)
    print(
        f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f} corpus={sum(len(d.nodes) for d in documents)} nodes"
    )
    print("| engine | nodes | write s | strategy | median ms | × flat | round trips |")
    print("|---|---|---|---|---|---|---|")
    for name in args.engines:
        for size in args.sizes:
            with tempfile.TemporaryDirectory(prefix="drag-bench-") as folder:
                settings = Settings(store=folder if name == "edge" else ":memory:", engine=name)
                store = open_store(settings)
                store.ensure_collection(embedder.dim)
                started = time.perf_counter()
                nodes = fill(store, documents, size)
                written = time.perf_counter() - started
                engine = Engine(settings, ExtractiveSummarizer(), embedder, store=store)
                results = measure(engine, queries(args.queries if name == "edge" else args.local_queries))
                engine.close()
            flat = statistics.median(results["flat"][0])
            for strategy, (ms, trips) in results.items():
                median = statistics.median(ms)
                print(
                    f"| {name} | {nodes} | {written:.1f} | {strategy} | {median:.1f} | {median / flat:.2f} | "
                    f"{min(trips)}–{max(trips)} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
