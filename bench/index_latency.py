"""Search latency of each strategy on an index that already exists (an `eval` index, the app's store), with
real MiniLM vectors: median and p95 milliseconds of ``Engine.search``, the query embedded once beforehand.

Run: ``.venv/bin/python bench/index_latency.py INDEX QUERIES.jsonl [--strategies flat branch beam adaptive]
[--repeats 3] [--limit 36]`` — ``INDEX`` the store folder (e.g. ``data/eval/financebench-dev/<policy>/qdrant``),
``QUERIES.jsonl`` a data set's queries (``text`` per line, as in ``../shared/data``). Strategies take turns per
round after one warm-up round; run it twice from two work trees, alternating, to compare code on one index
(docs/benchmarks.md, "One fetch per list").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)

from drag_core.config import Settings  # noqa: E402
from drag_core.engine import Engine  # noqa: E402
from drag_core.ingest.describe.extractive import ExtractiveSummarizer  # noqa: E402


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index", type=Path, help="the store folder")
    parser.add_argument("queries", type=Path, help="a data set's queries.jsonl")
    parser.add_argument("--strategies", nargs="+", default=["flat", "branch", "beam", "adaptive"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=36, help="the first N queries")
    args = parser.parse_args()
    engine = Engine(Settings.from_env(store=str(args.index), cache_path=None), ExtractiveSummarizer())
    lines = args.queries.read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines if line.strip()][: args.limit]
    vectors = [engine.embed_query(text) for text in texts]
    ms: dict[str, list[float]] = {strategy: [] for strategy in args.strategies}
    for round_ in range(args.repeats + 1):
        for strategy in args.strategies:
            for text, vector in zip(texts, vectors, strict=True):
                latency = engine.search(text, strategy, vectors=vector).latency_ms
                if round_:  # the first round warms up
                    ms[strategy].append(latency)
    engine.close()
    print(f"{len(texts)} queries × {args.repeats} on {args.index}: median / p95 ms")
    for strategy, values in ms.items():
        print(f"  {strategy:10s} {statistics.median(values):6.1f} / {percentile(values, 0.95):6.1f}")


if __name__ == "__main__":
    main()
