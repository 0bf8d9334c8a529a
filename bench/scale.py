"""Cost as the index grows: open time, memory, disk, per-strategy latency and the ingest of a 100-page PDF, on
embedded indexes of 10k, 100k and 1M nodes (issue 23).

Run: ``nice -n 10 .venv/bin/python bench/scale.py --sizes 10000 100000 1000000 --json OUT [--queries 20]``.
Each index is the SciFact tree corpus written again and again (``bench/scale_index.py``: real trees, real
BM25 vectors, perturbed projection dense vectors and passages), built once under ``data/bench/scale/<size>``
(resumable: a second run goes on where the first stopped). ``--variants passages no-passages`` measures, per
size, the index with the leaves' passages searched with today's defaults and the index as before passages
(issue 26: no ``passages`` vector, in ``<size>-no-passages``) searched as before them (``passages=off``), the
variants taking turns; ``passages`` stores the passage vectors as a new collection does by default (float16 since
session 11; an index built before keeps float32), ``passages-float32``, ``passages-float16`` and ``passages-int8``
as ``DRAG_PASSAGE_STORAGE`` says (the levers on its memory), ``passages-seeds``, ``passages-pages`` and
``passages-off`` the passages index searched with fewer passage uses (``VARIANTS``); ``--repeats`` measures each that many times (fresh children, alternating; latencies
pooled, RSS the highest). With ``QDRANT_URL`` set, the indexes are collections ``drag_scale_<size>`` of that
server instead (disk is then not measured). Each index is measured by a fresh child process: open (``Engine``:
the store, its recovery), every strategy on every query (strategies taking turns, after a warm-up), its peak
RSS, then the ingest of one ~100-page PDF into that index and into an empty one (alternating, twice each; the
file is removed again; ``--ingest-rounds 0``: none). Prints a table with the ratios to the smallest size, to
``flat`` and, per size, of each variant's p95 to the first variant's; ``--json`` writes ``{"sizes": [{"nodes",
"variant", "open_s", "rss_mib", "rss_anon_mib", "rss_file_mib", "disk_mib", "p50_ms", "p95_ms", "ms",
"answers", "ingest_100_pages_s", "ingest_100_pages_empty_s"}]}`` (``answers``: each strategy's pages per query,
of the last measurement, named by the document and pages they were copied from).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub, ever (models load from local folders)
from corpus import CACHE, REPO, Document, build, corpus, queries
from scale_index import build_index

from drag_core.config import DEFAULT_PASSAGE_STORAGE, Settings
from drag_core.search import DEFAULT_STRATEGIES

PDF = REPO.parent / "shared" / "data" / "financebench-dev" / "docs" / "ADOBE_2022_10K.pdf"
FOLDER = REPO / "data" / "bench" / "scale"
FULL_CORPUS = 19_953  # nodes of the whole SciFact tree corpus
MODELS = Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models"))


@dataclass(frozen=True)
class Variant:
    """One index and search measured beside the others.

    Attributes:
        passages: whether the index holds the leaves' passages.
        storage: how it stores them (``config.PASSAGE_STORAGES``).
        suffix: of its folder's name.
        search: ``SearchParams.passages`` of its searches (None: the default).
    """

    passages: bool
    storage: str = DEFAULT_PASSAGE_STORAGE
    suffix: str = ""
    search: str | None = None


VARIANTS = {
    "passages": Variant(True),
    "no-passages": Variant(False, suffix="-no-passages", search="off"),  # the index and search of before
    "passages-float32": Variant(True, "float32", "-float32"),  # the default until session 11
    "passages-float16": Variant(True, "float16", "-float16"),
    "passages-int8": Variant(True, "int8", "-int8"),
    "passages-seeds": Variant(True, search="flat+seeds+pages+curve"),  # adaptive's seeds: passages, BM25
    "passages-pages": Variant(True, search="flat+pages+curve"),  # adaptive's seeds: page vectors, BM25
    "passages-off": Variant(True, search="off"),  # the index with passages, searched without
}


def _documents(embedder, nodes: int) -> list[Document]:
    """The corpus; for a small index without a kept corpus, only its first documents (built in seconds)."""
    if nodes >= FULL_CORPUS or (CACHE / "scifact-projection" / "nodes.jsonl").exists():
        return corpus(embedder)
    return build(embedder, "projection", max_nodes=nodes)


def settings_for(folder: Path, size: int | str, variant: str = "passages") -> Settings:
    """The index of one size and variant: ``<folder>/<size><suffix>``, or collection
    ``drag_scale_<size><suffix>`` on ``QDRANT_URL``; a variant without passages searches as before them."""
    chosen = VARIANTS[variant]
    name = f"{size}{chosen.suffix}"
    base = Settings.from_env(store=str(folder / name), cache_path=None, model_dir=MODELS)
    if base.qdrant_url:
        base = Settings.from_env(collection=f"drag_scale_{name.replace('-', '_')}", cache_path=None)
    base = replace(base, passage_storage=chosen.storage)
    return (
        base if chosen.search is None else replace(base, search=replace(base.search, passages=chosen.search))
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


def resident_mib() -> dict[str, float]:
    """This process's resident memory now, in MiB: ``rss_anon_mib`` (its own heap, not evictable) and
    ``rss_file_mib`` (pages of memory-mapped files, e.g. sealed segments' vectors: page cache the system may
    evict, so this part depends on the machine's free memory)."""
    fields = {"RssAnon:": "rss_anon_mib", "RssFile:": "rss_file_mib"}
    return {
        fields[line.split()[0]]: int(line.split()[1]) / 1024
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.split() and line.split()[0] in fields
    }


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


def _original(node) -> str:
    """The node a copy was made of (``scale_index``: copy k of a file is ``…-c<k>.txt``), with its pages: the
    copies of one page share BM25 vectors, so their order among themselves is a tie that another segment layout
    may break otherwise."""
    return f"{re.sub(r'-c[0-9]{4}[.]', '.', node.file_name)}:{node.level}:{node.page_start}-{node.page_end}"


def child(folder: Path, size: int, variant: str, count: int, pdf: Path, rounds: int) -> dict:
    """Runs in a fresh process: open the index of ``size`` and ``variant``, search, ingest; one result row."""
    from drag_core.engine import Engine
    from drag_core.ingest.describe.extractive import ExtractiveSummarizer

    settings = settings_for(folder, size, variant)
    started = time.perf_counter()
    engine = Engine(settings, ExtractiveSummarizer())
    open_s = time.perf_counter() - started
    texts = queries(count)
    vectors = [engine.embed_query(text) for text in texts]
    strategies = list(DEFAULT_STRATEGIES)
    for strategy in strategies:
        engine.search(texts[0], strategy, vectors=vectors[0])
    ms: dict[str, list[float]] = {s: [] for s in strategies}
    answers: dict[str, list[list[str]]] = {s: [] for s in strategies}
    for i, (text, vector) in enumerate(zip(texts, vectors)):
        for strategy in strategies[i % len(strategies) :] + strategies[: i % len(strategies)]:
            result = engine.search(text, strategy, vectors=vector)
            ms[strategy].append(result.latency_ms)
            answers[strategy].append([_original(node) for node in result.nodes])
    rss, resident = peak_mib(), resident_mib()
    full_s, empty_s = [], []
    if rounds:
        with tempfile.TemporaryDirectory(prefix="drag-scale-empty-") as tmp:
            empty_settings = settings_for(Path(tmp), "empty", variant)
            empty = Engine(empty_settings, ExtractiveSummarizer(), embedder=engine.embedder)
            for round_ in range(rounds):
                pair = ((empty, empty_s), (engine, full_s))
                for target, seconds in pair if round_ % 2 == 0 else reversed(pair):
                    seconds.append(_ingest_seconds(target, pdf))
            empty.close()
    nodes = engine.node_count()
    engine.close()
    return {
        "nodes": nodes,
        "variant": variant,
        "open_s": open_s,
        "rss_mib": rss,
        "disk_mib": disk_mib(folder / f"{size}{VARIANTS[variant].suffix}"),
        **resident,
        "ms": ms,
        "answers": answers,
        "ingest_100_pages_s": sum(full_s) / len(full_s) if full_s else None,
        "ingest_100_pages_empty_s": sum(empty_s) / len(empty_s) if empty_s else None,
    }


def measure(folder: Path, size: int, variant: str, count: int, pdf: Path, rounds: int) -> dict:
    """``child`` in a fresh process (its own RSS and a cold open)."""
    command = [sys.executable, __file__, "--child", str(size), "--variant", variant, "--folder", str(folder)]
    command += ["--queries", str(count), "--pdf", str(pdf), "--ingest-rounds", str(rounds)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def pooled(runs: list[dict]) -> dict:
    """One row from repeated measurements of one index: latencies pooled, the highest RSS and open time, the
    mean ingest."""
    row = dict(runs[-1])
    row["ms"] = {s: [ms for run in runs for ms in run["ms"][s]] for s in runs[0]["ms"]}
    row["p50_ms"] = {s: percentile(v, 0.5) for s, v in row["ms"].items()}
    row["p95_ms"] = {s: percentile(v, 0.95) for s, v in row["ms"].items()}
    row["rss_mib"] = max(run["rss_mib"] for run in runs)
    row["open_s"] = max(run["open_s"] for run in runs)
    for key in ("ingest_100_pages_s", "ingest_100_pages_empty_s"):
        values = [run[key] for run in runs if run[key] is not None]
        row[key] = sum(values) / len(values) if values else None
    return row


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def report(rows: list[dict]) -> None:
    """The table, with every size's ratio to the smallest (same variant), adaptive's to flat and each
    variant's p95 to the first variant's of the same size."""
    print(f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f}")
    print(
        "| nodes | variant | open s | RSS MiB (anon / file at the end) | disk MiB | ingest s (empty) "
        "| flat p50/p95 | adaptive p50/p95 | ×smallest |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        base = next(r for r in rows if r["variant"] == row["variant"])
        growth = row["p95_ms"]["adaptive"] / base["p95_ms"]["adaptive"]
        disk = "—" if row["disk_mib"] is None else f"{row['disk_mib']:.0f}"
        print(
            f"| {row['nodes']} | {row['variant']} | {row['open_s']:.2f} | {row['rss_mib']:.0f} "
            f"({row['rss_anon_mib']:.0f} / {row['rss_file_mib']:.0f}) | {disk} | "
            f"{_seconds(row['ingest_100_pages_s'])} ({_seconds(row['ingest_100_pages_empty_s'])}) | "
            f"{row['p50_ms']['flat']:.1f}/{row['p95_ms']['flat']:.1f} | "
            f"{row['p50_ms']['adaptive']:.1f}/{row['p95_ms']['adaptive']:.1f} | {growth:.2f} |",
            flush=True,
        )
    for row in rows:
        ratios = {s: row["p95_ms"][s] / row["p95_ms"]["flat"] for s in row["p95_ms"]}
        print(
            f"  {row['nodes']} nodes, {row['variant']}, p95 × flat: "
            + ", ".join(f"{s} {r:.2f}" for s, r in ratios.items())
        )
    for row in rows:
        same = next((r for r in rows if r["nodes"] == row["nodes"] and r["variant"] == "passages"), row)
        if same is not row and VARIANTS[row["variant"]].passages:
            print(
                f"  {row['nodes']} nodes, {row['variant']}: queries answered with the same pages in the same "
                "order as passages: "
                + ", ".join(
                    f"{s} {sum(a == b for a, b in zip(row['answers'][s], same['answers'][s]))}/"
                    f"{len(row['answers'][s])}"
                    for s in row["answers"]
                )
            )
    for row in rows:
        first = next(r for r in rows if r["nodes"] == row["nodes"])
        if first is not row:
            print(
                f"  {row['nodes']} nodes, {row['variant']} ÷ {first['variant']}: RSS "
                f"{row['rss_mib'] / first['rss_mib']:.2f}, p50 / p95 "
                + ", ".join(
                    f"{s} {row['p50_ms'][s] / first['p50_ms'][s]:.2f} / {row['p95_ms'][s] / first['p95_ms'][s]:.2f}"
                    for s in row["p95_ms"]
                )
            )


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
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=["passages"])
    parser.add_argument("--repeats", type=int, default=1, help="measurements of each index (alternating)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--variant", choices=VARIANTS, default="passages", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        row = child(args.folder, args.child, args.variant, args.queries, args.pdf, args.ingest_rounds)
        print(json.dumps(row))
        return
    from drag_core.models.embeddings import Embedder

    embedder = Embedder(MODELS)
    documents = _documents(embedder, max(args.sizes))
    rows = []
    for size in args.sizes:
        for variant in args.variants:
            started = time.perf_counter()
            settings = settings_for(args.folder, size, variant)
            held = build_index(settings, documents, size, embedder, passages=VARIANTS[variant].passages)
            built = f"{time.perf_counter() - started:.0f} s, builder's peak RSS {peak_mib():.0f} MiB"
            print(f"  index {size} {variant}: {held} nodes ({built})", file=sys.stderr)
        runs: dict[str, list[dict]] = {variant: [] for variant in args.variants}
        for repeat in range(args.repeats):
            order = args.variants if repeat % 2 == 0 else args.variants[::-1]
            for variant in order:
                runs[variant].append(
                    measure(args.folder, size, variant, args.queries, args.pdf, args.ingest_rounds)
                )
        rows += [pooled(runs[variant]) for variant in args.variants]
        if args.json:
            args.json.write_text(json.dumps({"sizes": rows}, indent=1))
    report(rows)


if __name__ == "__main__":
    main()
