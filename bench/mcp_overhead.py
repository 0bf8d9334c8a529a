"""What the MCP server adds to a search: an MCP ``search`` call (the official client, in-process session) against
the same ``Engine.search`` called directly, in one process, warm.

Usage::

    .venv/bin/python bench/mcp_overhead.py [--runs 20] [--strategy adaptive] [--store DIR]

Both run on an index of the bundled sample (drag_core/app/sample/R-data.pdf), built once in
``data/bench/mcp-sample`` (or ``--store``), with the same strategy and knobs. Every question is asked once on
each path before timing (the query model loaded, the pages' units cut); then each round asks every question
on both paths, interleaved, so a burst of load hits both alike. The MCP call includes what the tool adds to
the search: the thread hop, argument validation, the snippets and citations, the knee's line, the bounds and
the JSON (structured and text). Reported: median wall milliseconds per call and CPU milliseconds (process
time, all threads), and their ratios. Target: the MCP call costs at most 1.2× the search.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp import Client

from drag_core import Engine, Settings
from drag_core.integrations.mcp_server import build_server

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "drag_core" / "app" / "sample" / "R-data.pdf"
QUESTIONS = (
    "How do I read a CSV file into a data frame?",
    "How can I import data from an Excel spreadsheet?",
    "Which functions read fixed-width formatted files?",
    "How do I connect to a relational database from R?",
    "What are binary connections used for?",
    "How do I export a data frame to a text file?",
    "How are file encodings handled when reading data?",
    "How can I read data from a URL or a pipe?",
)
TARGET = 1.2


async def measure(engine: Engine, strategy: str, runs: int) -> dict[str, list[tuple[float, float]]]:
    """Wall and CPU seconds of each call, by path."""
    params = engine.settings.search
    times: dict[str, list[tuple[float, float]]] = {"Engine.search": [], "MCP search": []}
    async with Client(build_server(engine)) as client:

        async def mcp(question: str) -> None:
            found = await client.call_tool("search", {"question": question, "strategy": strategy})
            assert not found.is_error and found.structured_content["hits"], found.content

        async def direct(question: str) -> None:
            assert engine.search(question, strategy, params).nodes

        paths: dict[str, Callable[[str], object]] = {"Engine.search": direct, "MCP search": mcp}
        for question in QUESTIONS:  # warm: models, page units, the session
            for call in paths.values():
                await call(question)  # type: ignore[misc]
        for _ in range(runs):
            for question in QUESTIONS:
                for name, call in paths.items():
                    wall, cpu = time.perf_counter(), time.process_time()
                    await call(question)  # type: ignore[misc]
                    times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="rounds of every question on both paths")
    parser.add_argument("--strategy", default="adaptive")
    parser.add_argument("--store", type=Path, default=REPO / "data" / "bench" / "mcp-sample" / "qdrant")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env(store=str(args.store), qdrant_url=None)
    engine = Engine(settings)
    try:
        if not engine.documents():
            print(f"indexing {SAMPLE.name} into {args.store} …", file=sys.stderr)
            engine.ingest_paths([SAMPLE])
        times = anyio.run(measure, engine, args.strategy, args.runs)
    finally:
        engine.close()
    base_wall = statistics.median(w for w, _ in times["Engine.search"])
    base_cpu = statistics.median(c for _, c in times["Engine.search"])
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.strategy}, "
        f"{len(QUESTIONS)} questions × {args.runs} rounds, medians per call"
    )
    print(f"{'path':<16} {'wall ms':>8} {'ratio':>7} {'CPU ms':>8} {'ratio':>7}  target (wall)")
    for name, found in times.items():
        wall = statistics.median(w for w, _ in found)
        cpu = statistics.median(c for _, c in found)
        verdict = (
            ""
            if name == "Engine.search"
            else f"≤ {TARGET}× " + ("met" if wall <= TARGET * base_wall else "missed")
        )
        print(
            f"{name:<16} {wall * 1000:>8.2f} {wall / base_wall:>6.2f}× {cpu * 1000:>8.2f} "
            f"{cpu / base_cpu:>6.2f}×  {verdict}"
        )


if __name__ == "__main__":
    main()
