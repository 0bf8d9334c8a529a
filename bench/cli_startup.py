"""Start-up time of the CLI: ``--help``, one search and ``docs``, each against ``python -c pass`` measured in the
same run.

Usage::

    .venv/bin/python bench/cli_startup.py [--runs 5] [--store DIR]

The search and ``docs`` run on an index of the bundled sample (drag_core/app/sample/R-data.pdf), built once in
``data/bench/cli-sample`` (or ``--store``). Each command runs ``--runs`` times in a fresh process; the median wall
time is reported with its ratio to the bare interpreter, and the median CPU seconds (user + system, less sensitive
to other processes on a shared machine). Target: ``--help``, a search and ``docs`` answer in at most 1 s (``docs``,
``tree`` and ``remove`` load no embedding model).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "drag_core" / "app" / "sample" / "R-data.pdf"
QUERY = "How do I read a CSV file?"
TARGET_S = 1.0


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=REPO, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
        "python -m drag_core docs": [*drag, "docs"],
    }
    for argv in commands.values():  # warm the file cache and the .pyc files once
        run(argv, env)
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):  # interleaved, so a burst of load hits every command alike
        for name, argv in commands.items():
            wall, cpu = run(argv, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    base = statistics.median(walls["python -c pass"])
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, {args.runs} runs each, medians")
    print(f"{'command':<62} {'wall s':>7} {'ratio':>7} {'CPU s':>6}  target (wall)")
    for name in commands:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        verdict = "" if name == "python -c pass" else ("≤ 1 s met" if wall <= TARGET_S else "≤ 1 s missed")
        print(f"{name:<62} {wall:>7.3f} {wall / base:>6.1f}× {cpu:>6.3f}  {verdict}")


if __name__ == "__main__":
    main()
