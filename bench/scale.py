"""Cost as the index grows: open time, memory, disk, per-strategy latency and the ingest of a 100-page PDF, on
embedded indexes of 10k, 100k and 1M nodes (issue 23).

Run: ``nice -n 10 .venv/bin/python bench/scale.py --sizes 10000 100000 1000000 --json OUT [--queries 20]``.
Each index is the SciFact tree corpus written again and again (``bench/scale_index.py``: real trees, real
BM25 vectors, perturbed projection dense vectors), built once under ``data/bench/scale/<size>`` (resumable: a
second run goes on where the first stopped). With ``QDRANT_URL`` set, the indexes are collections
``drag_scale_<size>`` of that server instead (disk is then not measured). Each size is measured by a fresh
child process: open (``Engine``: the store, its recovery), every strategy on every query (strategies taking
turns, after a warm-up), its peak RSS, then the ingest of one ~100-page PDF into that index and into an empty
one (alternating, twice each; the file is removed again). Prints a table with the ratios to the smallest size
and to ``flat``; ``--json`` writes ``{"sizes": [{"nodes", "open_s", "rss_mib", "disk_mib", "p50_ms",
"p95_ms", "ingest_100_pages_s", "ingest_100_pages_empty_s"}]}``.
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

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)
from corpus import CACHE, REPO, Document, build, corpus, queries
from scale_index import build_index

from drag_core.config import Settings
from drag_core.search import DEFAULT_STRATEGIES

PDF = REPO.parent / "shared" / "data" / "financebench-dev" / "docs" / "ADOBE_2022_10K.pdf"
FOLDER = REPO / "data" / "bench" / "scale"
FULL_CORPUS = 19_953  # nodes of the whole SciFact tree corpus
MODELS = Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models"))


def _documents(embedder, nodes: int) -> list[Document]:
    """The corpus; for a small index without a kept corpus, only its first documents (built in seconds)."""
    if nodes >= FULL_CORPUS or (CACHE / "scifact-projection" / "nodes.jsonl").exists():
        return corpus(embedder)
    return build(embedder, "projection", max_nodes=nodes)


def settings_for(folder: Path, size: int | str) -> Settings:
    """The index of one size: ``<folder>/<size>``, or collection ``drag_scale_<size>`` on ``QDRANT_URL``."""
    base = Settings.from_env(store=str(folder / str(size)), cache_path=None, model_dir=MODELS)
    return (
        base if not base.qdrant_url else Settings.from_env(collection=f"drag_scale_{size}", cache_path=None)
    )


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def peak_mib() -> float:
    """This process's peak resident memory in MiB (``VmHWM``: unlike ``ru_maxrss``, not inherited from the
    process that started it, whose peak is the index build's)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def disk_mib(folder: Path) -> float | None:
    """Bytes under ``folder`` in MiB (None: not a folder, e.g. a server's collection)."""
    if not folder.is_dir():
        return None
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


def _ingest_seconds(engine, pdf: Path) -> float:
    """Seconds to ingest ``pdf`` into ``engine``'s index; the document is removed again afterwards."""
    started = time.perf_counter()
    (report,) = engine.ingest_paths([pdf])
    seconds = time.perf_counter() - started
    if not report.ok:
        raise RuntimeError(report.line())
    engine.remove(report.file_name)
    return seconds


def child(folder: Path, size: int, count: int, pdf: Path, rounds: int) -> dict:
    """Runs in a fresh process: open the index of ``size``, search, ingest; one result row."""
    from drag_core.engine import Engine
    from drag_core.ingest.describe.extractive import ExtractiveSummarizer

    settings = settings_for(folder, size)
    started = time.perf_counter()
    engine = Engine(settings, ExtractiveSummarizer())
    open_s = time.perf_counter() - started
    texts = queries(count)
    vectors = [engine.embed_query(text) for text in texts]
    strategies = list(DEFAULT_STRATEGIES)
    for strategy in strategies:
        engine.search(texts[0], strategy, vectors=vectors[0])
    ms: dict[str, list[float]] = {s: [] for s in strategies}
    for i, (text, vector) in enumerate(zip(texts, vectors)):
        for strategy in strategies[i % len(strategies) :] + strategies[: i % len(strategies)]:
            ms[strategy].append(engine.search(text, strategy, vectors=vector).latency_ms)
    rss = peak_mib()
    with tempfile.TemporaryDirectory(prefix="drag-scale-empty-") as tmp:
        empty = Engine(settings_for(Path(tmp), "empty"), ExtractiveSummarizer(), embedder=engine.embedder)
        full_s, empty_s = [], []
        for round_ in range(rounds):
            pair = ((empty, empty_s), (engine, full_s))
            for target, seconds in pair if round_ % 2 == 0 else reversed(pair):
                seconds.append(_ingest_seconds(target, pdf))
        empty.close()
    nodes = engine.node_count()
    engine.close()
    return {
        "nodes": nodes,
        "open_s": open_s,
        "rss_mib": rss,
        "disk_mib": disk_mib(folder / str(size)),
        "p50_ms": {s: percentile(v, 0.5) for s, v in ms.items()},
        "p95_ms": {s: percentile(v, 0.95) for s, v in ms.items()},
        "ingest_100_pages_s": sum(full_s) / len(full_s),
        "ingest_100_pages_empty_s": sum(empty_s) / len(empty_s),
    }


def measure(folder: Path, size: int, count: int, pdf: Path, rounds: int) -> dict:
    """``child`` in a fresh process (its own RSS and a cold open)."""
    command = [sys.executable, __file__, "--child", str(size), "--folder", str(folder)]
    command += ["--queries", str(count), "--pdf", str(pdf), "--ingest-rounds", str(rounds)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def report(rows: list[dict]) -> None:
    """The table, with every size's ratio to the smallest and adaptive's to flat."""
    base = rows[0]
    print(f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f}")
    print(
        "| nodes | open s | RSS MiB | disk MiB | ingest s (empty) | flat p50/p95 | adaptive p50/p95 | ×10k |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        growth = row["p95_ms"]["adaptive"] / base["p95_ms"]["adaptive"]
        disk = "—" if row["disk_mib"] is None else f"{row['disk_mib']:.0f}"
        print(
            f"| {row['nodes']} | {row['open_s']:.2f} | {row['rss_mib']:.0f} | {disk} | "
            f"{row['ingest_100_pages_s']:.1f} ({row['ingest_100_pages_empty_s']:.1f}) | "
            f"{row['p50_ms']['flat']:.1f}/{row['p95_ms']['flat']:.1f} | "
            f"{row['p50_ms']['adaptive']:.1f}/{row['p95_ms']['adaptive']:.1f} | {growth:.2f} |",
            flush=True,
        )
    for row in rows:
        ratios = {s: row["p95_ms"][s] / row["p95_ms"]["flat"] for s in row["p95_ms"]}
        print(f"  {row['nodes']} nodes, p95 × flat: " + ", ".join(f"{s} {r:.2f}" for s, r in ratios.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--folder", type=Path, default=FOLDER, help="where the indexes are built")
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--pdf", type=Path, default=PDF, help="the file ingested into each index")
    parser.add_argument(
        "--ingest-rounds", type=int, default=2, help="ingests into each index (and the empty)"
    )
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.folder, args.child, args.queries, args.pdf, args.ingest_rounds)))
        return
    from drag_core.models.embeddings import Embedder

    embedder = Embedder(MODELS)
    documents = _documents(embedder, max(args.sizes))
    rows = []
    for size in args.sizes:
        started = time.perf_counter()
        held = build_index(settings_for(args.folder, size), documents, size, embedder)
        built = f"{time.perf_counter() - started:.0f} s, builder's peak RSS {peak_mib():.0f} MiB"
        print(f"  index {size}: {held} nodes ({built})", file=sys.stderr)
        rows.append(measure(args.folder, size, args.queries, args.pdf, args.ingest_rounds))
        if args.json:
            args.json.write_text(json.dumps({"sizes": rows}, indent=1))
    report(rows)


if __name__ == "__main__":
    main()
