"""Start-up time of the CLI: ``--help`` and one search, each against ``python -c pass`` measured in the same run.

Usage::

    .venv/bin/python bench/cli_startup.py [--runs 5] [--store DIR]

The search runs on an index of the bundled sample (samples/R-data.pdf), built once in ``data/bench/cli-sample``
(or ``--store``). Each command runs ``--runs`` times in a fresh process; the median wall time is reported with
its ratio to the bare interpreter. Target: ``--help`` and a search answer in at most 1 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "samples" / "R-data.pdf"
QUERY = "How do I read a CSV file?"
TARGET_S = 1.0


def wall(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=REPO, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--store", type=Path, default=REPO / "data" / "bench" / "cli-sample" / "qdrant")
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "DRAG_STORE": str(args.store)}
    env.pop("QDRANT_URL", None)
    drag = [sys.executable, "-m", "drag_core"]
    if not args.store.exists():
        print(f"indexing {SAMPLE.name} into {args.store} …", file=sys.stderr)
        subprocess.run([*drag, "ingest", "--quiet", str(SAMPLE)], env=env, cwd=REPO, check=True)
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -m drag_core --help": [*drag, "--help"],
        f'python -m drag_core search "{QUERY}"': [*drag, "search", QUERY],
        f'python -m drag_core search "{QUERY}" --json': [*drag, "search", QUERY, "--json"],
    }
    for argv in commands.values():  # warm the file cache and the .pyc files once
        wall(argv, env)
    times = {name: [] for name in commands}  # type: dict[str, list[float]]
    for _ in range(args.runs):  # interleaved, so a burst of load hits every command alike
        for name, argv in commands.items():
            times[name].append(wall(argv, env))
    base = statistics.median(times["python -c pass"])
    print(f"load average {os.getloadavg()[0]:.1f}, {args.runs} runs each, median wall seconds")
    print(f"{'command':<62} {'seconds':>8} {'ratio':>7}  target")
    for name, values in times.items():
        median = statistics.median(values)
        verdict = "" if name == "python -c pass" else ("≤ 1 s met" if median <= TARGET_S else "≤ 1 s MISSED")
        print(f"{name:<62} {median:>8.3f} {median / base:>6.1f}×  {verdict}")


if __name__ == "__main__":
    main()
