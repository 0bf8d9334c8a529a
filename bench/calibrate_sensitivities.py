"""Calibrate each knee detector's Sensitivity slider on train material (issue 28).

``measure`` runs ``adaptive`` for every question of a data set at every candidate sensitivity of every
detector, on both curves (``score_source`` dense and rrf), through the library, and writes the answer sizes (in
the data set's units, as ``eval``'s ``slider_pages`` counts them) as JSON. ``choose`` reads such files (pooled)
and prints, per detector, the chosen slider grid and its response per curve:

* the rows are the (question, curve) answer sizes over the candidates, for the curves the app offers the
  detector on (``drag_core.knobs.offered_curves``; a detector offered on none keeps its grid);
* the grid walks the candidates from the smallest: each next value is the farthest one whose step changes at
  most a share ``q`` of the rows' sizes by more than ``STEP`` (1.75) times — so every step moves answers by a
  bounded ratio, and as far as that allows — and ``q`` is the least share that gives at most ``--steps``
  values (24); the walk ends where no later candidate changes an answer;
* the detector's default is always kept.

Then, for the chosen grid, per curve: the mean distinct answer sizes, the share of questions with a step that
multiplies the answer by more than 2.5 (``diagnostics.slider_response``), the geometric-mean size at each value
and, per step, the share of questions it moves and its geometric-mean ratio.

    python bench/calibrate_sensitivities.py measure bench/data/sections-train st.json
    python bench/calibrate_sensitivities.py measure ../shared/data/scifact sf.json --split train --limit 40
    python bench/calibrate_sensitivities.py choose st.json sf.json

The index is the one ``eval`` builds (``$DRAG_EVAL_DIR``, default ``data/eval``); ``measure`` builds it if missing.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from drag_core.config import Settings
from drag_core.evaluation.datasets import load_dataset
from drag_core.evaluation.diagnostics import slider_response
from drag_core.evaluation.index import open_index
from drag_core.evaluation.runner import ranked_units
from drag_core.knee import DEFAULT_SENSITIVITIES, KNEE_METHODS, SENSITIVITIES
from drag_core.knobs import offered_curves
from drag_core.params import SCORE_SOURCES, SearchParams

#: The candidate sensitivities of each detector: fine, over the whole range where its cut moves.
CANDIDATES: dict[str, tuple[float, ...]] = {
    "relative": tuple(sorted({*np.round(np.geomspace(0.02, 1.5, 80), 2).tolist(), 0.5})),
    "kneedle": tuple(np.round(np.concatenate([np.arange(0, 10, 0.25), [12, 15, 20, 30, 50]]), 3).tolist()),
    "chord": tuple(np.round(np.arange(0, 2.0001, 0.025), 3).tolist()),
    "gap": tuple(np.round(np.concatenate([np.arange(0, 5, 0.25), np.arange(5, 30.1, 1)]), 3).tolist()),
}


#: A step that multiplies or divides an answer's size by more than this is one the grid avoids.
STEP = 1.75


def measure(dataset_path: str, out: str, split: str, limit: int | None, methods: list[str]) -> None:
    """Answer sizes of ``adaptive`` at every candidate of every detector × curve, per question, as JSON."""
    dataset = load_dataset(dataset_path, split).subset(limit)
    engine, _ = open_index(dataset, Settings.from_env())  # a bench is an entry point
    sizes: dict[str, dict[str, list[list[int]]]] = {}
    for number, query in enumerate(dataset.queries, 1):
        vectors = engine.embed_query(query.text)
        for method in methods:
            for source in SCORE_SOURCES:
                row = []
                for s in CANDIDATES[method]:
                    params = SearchParams(knee_method=method, score_source=source, sensitivity=s)
                    result = engine.search(query.text, "adaptive", params, vectors=vectors)
                    row.append(len(ranked_units(dataset, result.nodes)))
                sizes.setdefault(method, {}).setdefault(source, []).append(row)
        print(f"{number}/{len(dataset.queries)} {query.id}", flush=True)
    engine.close()
    record = {"dataset": dataset.name, "candidates": CANDIDATES, "sizes": sizes}
    Path(out).write_text(json.dumps(record))


def pooled(rows: list[list[int]]) -> np.ndarray:
    """Geometric mean size at each candidate over the rows (an empty answer counts as one page)."""
    return np.exp(np.log(np.maximum(1, np.asarray(rows, dtype=float))).mean(axis=0))


def walk(sizes: np.ndarray, share: float) -> list[int]:
    """Candidate indices from the first on, each the farthest after the previous one (at least the next) whose
    step changes the answer size of at most ``share`` of the rows by more than ``STEP`` times; the walk ends
    when no later candidate changes any answer."""
    logs = np.log(np.maximum(1, sizes))
    grid = [0]
    while True:
        later = logs[:, grid[-1] + 1 :]
        if not later.size or not (later != logs[:, [grid[-1]]]).any():
            return grid
        big = (np.abs(later - logs[:, [grid[-1]]]) > math.log(STEP)).mean(axis=0)
        allowed = np.flatnonzero(big <= share)
        stop = int(allowed[-1]) if allowed.size and allowed[0] == 0 else 0
        last_move = int(np.flatnonzero((later != logs[:, [grid[-1]]]).any(axis=0))[-1])
        grid.append(grid[-1] + 1 + min(stop, last_move))


def choose(candidates: list[float], rows: list[list[int]], default: float, steps: int) -> list[float]:
    """The grid (see the module's words): the ``walk`` of at most ``steps`` values with the least share of big
    steps, plus the default."""
    sizes = np.asarray(rows)
    low, high = 0.0, 1.0  # the least share whose walk has at most ``steps`` values
    for _ in range(30):
        middle = (low + high) / 2
        low, high = (middle, high) if len(walk(sizes, middle)) > steps else (low, middle)
    grid = walk(sizes, high)
    own = candidates.index(default)
    return [candidates[i] for i in sorted({*grid, own})]


def report(files: list[str], steps: int) -> None:
    """Per detector: the chosen grid and its response per curve."""
    records = [json.loads(Path(f).read_text()) for f in files]
    for method in records[0]["sizes"]:
        candidates = records[0]["candidates"][method]
        per_curve = {s: [row for r in records for row in r["sizes"][method][s]] for s in SCORE_SOURCES}
        rows = [row for source in offered_curves(method) for row in per_curve[source]]
        print(
            f"\n== {method} (default {DEFAULT_SENSITIVITIES[method]:g}); offered on {offered_curves(method)}"
        )
        if rows:
            grid = choose(candidates, rows, DEFAULT_SENSITIVITIES[method], steps)
            print(f"chosen on {len(rows)} question × offered curve rows: {tuple(grid)}")
        else:
            grid = [s for s in SENSITIVITIES[method] if s in candidates]
            print(
                f"offered on no curve: its grid stays {SENSITIVITIES[method]} (the candidates among it shown)"
            )
        columns = [candidates.index(s) for s in grid]
        for source, curve in per_curve.items():
            chosen = np.asarray(curve)[:, columns]
            found = slider_response(chosen.tolist())
            print(
                f"  {source:5s} distinct {found['distinct']:.2f}  big steps (>2.5x) {found['big_step_queries']:.0%}"
                f"  pooled sizes {' '.join(f'{v:.1f}' for v in pooled(chosen.tolist()))}"
            )
            ratios = np.maximum(1, chosen[:, 1:]) / np.maximum(1, chosen[:, :-1])
            print(
                "    per step: moved "
                + " ".join(f"{m:.0%}" for m in (ratios != 1).mean(axis=0))
                + " | mean ratio "
                + " ".join(f"{r:.2f}" for r in np.exp(np.log(ratios).mean(axis=0)))
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("measure", help="answer sizes at every candidate sensitivity")
    run.add_argument("dataset")
    run.add_argument("out")
    run.add_argument("--split", default="test")
    run.add_argument("--limit", type=int, default=None)
    run.add_argument("--methods", nargs="+", default=list(KNEE_METHODS), choices=KNEE_METHODS)
    pick = commands.add_parser("choose", help="print the per-step response and the chosen grids")
    pick.add_argument("files", nargs="+")
    pick.add_argument("--steps", type=int, default=24)
    args = parser.parse_args()
    if args.command == "measure":
        measure(args.dataset, args.out, args.split, args.limit, args.methods)
    else:
        report(args.files, args.steps)


if __name__ == "__main__":
    main()
