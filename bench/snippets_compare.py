"""What snippets add to a Compare run: the six default strategies on every question of a data set, each run
cold (a new ``Comparer``: the query embedded, every strategy searched, every result's pages read), without
snippets and with them, in the same process.

* *cold*: the units of every page are cut afresh (``analysed`` cleared before each run), as on the first
  question about documents; the runs without and with snippets alternate their order question by question,
  so machine noise falls on both.
* *session*: then the questions again in order with snippets, the page units kept from question to question
  (the app's steady state: a session asks question after question of the same documents).

The machine is shared, so the pairs (one question, one round) are compared: the median of their ratios is less
moved by another process's burst than the ratio of the totals.

Run: ``nice -n 10 .venv/bin/python bench/snippets_compare.py [DATASET] [--index FOLDER] [--rounds 2]``
(default: financebench-dev and its evaluation index under ``DRAG_EVAL_DIR``, built by ``drag eval`` — the
index is only read). Prints medians, totals and the ratios to the run without snippets (target: ≤ 1.20).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from drag_core.app.compare import Comparer
from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.evaluation.datasets import load_dataset
from drag_core.evaluation.index import default_folder
from drag_core.evidence.snippets import analysed
from drag_core.ingest.vector_text import VectorPolicy
from drag_core.search import DEFAULT_STRATEGIES

REPO = Path(__file__).resolve().parents[1]
TARGET = 1.20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "dataset", nargs="?", default=str(REPO.parent / "shared" / "data" / "financebench-dev")
    )
    parser.add_argument("--index", help="the data set's index folder (default: its evaluation index)")
    parser.add_argument("--rounds", type=int, default=2, help="passes over the questions")
    args = parser.parse_args()
    settings = Settings.from_env()
    dataset = load_dataset(args.dataset)
    folder = Path(args.index) if args.index else default_folder(dataset, VectorPolicy(), settings)
    if not (folder / "qdrant").is_dir():
        print(f"no index at {folder}: run drag eval {args.dataset} first", file=sys.stderr)
        return 2
    engine = Engine(Settings.from_env(store=str(folder / "qdrant"), cache_path=None))  # read only
    engine.embed_query("warm up the query embedder")
    strategies = list(DEFAULT_STRATEGIES)

    def run(query: str, snippets: bool) -> tuple[float, int]:
        started = time.perf_counter()
        comparison = Comparer(snippets=snippets).compare(engine, query, strategies, settings.search)
        return (time.perf_counter() - started) * 1000, sum(len(r.snippets) for r in comparison.runs.values())

    pairs: dict[str, list[tuple[float, float]]] = {"cold": [], "session": []}  # (with, without)
    given = 0
    for round_ in range(args.rounds):
        for mode in ("cold", "session"):
            analysed.cache_clear()
            for number, query in enumerate(dataset.queries):
                if mode == "cold":
                    analysed.cache_clear()
                first = (number + round_) % 2 == 0
                timed = {s: run(query.text, s) for s in ((True, False) if first else (False, True))}
                pairs[mode].append((timed[True][0], timed[False][0]))
                given += timed[True][1]
    engine.close()
    print(
        f"{dataset.name}: {len(dataset.queries)} questions × {args.rounds} rounds, strategies {' '.join(strategies)}"
    )
    print(f"  results given a snippet: {given / sum(map(len, pairs.values())):.1f} per Compare run")
    for mode, found in pairs.items():
        on, off = [a for a, _ in found], [b for _, b in found]
        print(
            f"  {mode + ':':8} without snippets median {statistics.median(off):4.0f} ms, with {statistics.median(on):4.0f}"
            f" ms; totals {sum(off) / 1000:.1f} / {sum(on) / 1000:.1f} s; with / without: totals"
            f" {sum(on) / sum(off):.3f}, median of the pairs {statistics.median(a / b for a, b in found):.3f}"
            f" (target ≤ {TARGET:.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
