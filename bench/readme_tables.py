"""The README's equal-budget tables, written from ``eval --json`` and ``sweep --json`` files, so the numbers
there are the numbers a run printed (none copied by hand).

* ``--eval SET=FILE …``: one row per run and set — gain at equal budget with its 95 % interval, flat's recall
  at the run's pages, doc_hit beside flat top-5's, pages, recall, the knee's share of final cuts, the answer
  sizes over the Sensitivity slider and the oracle share — and flat's own curve (k = 1…10) per set.
* ``--sweep SET=FILE …`` (``sweep --param sensitivity --json``): each knee strategy's sweep of the sensitivity, one row per value (mean pages ·
  recall (flat's recall at those pages) · gain), the default value in bold.
* ``--before SET=FILE … --after SET=FILE …``: absolute quality before and after a change, per set — flat top-5,
  the dense list alone, BM25 alone (recall@5 each), default ``adaptive``'s right-sized recall at its pages and
  its gain at equal budget with the interval, and the run's ingest cost when the report has it.
* ``--before … --after … --runs``: instead, every run of both files, before → after: gain at equal budget,
  pages, doc_hit (flat top-5's) and recall of everything returned (issue 27's walk vectors); ``--only RUN …``
  keeps those runs.
* ``--compare LABEL=FILE …``: the runs of several reports of one set side by side (e.g. one per vector
  policy), a cell per report: gain at equal budget · pages · doc_hit.

Run: ``.venv/bin/python bench/readme_tables.py --eval financebench-dev=fb.json manuals-dev=manuals.json
"scifact (test)"=scifact.json --sweep financebench-dev=sweep-fb.json …``
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from drag_core.search import SearchParams

#: The run printed in bold: this project's strategy at its defaults.
HEADLINE = "adaptive"


def _number(value: float | None, fmt: str) -> str:
    return "–" if value is None else fmt.format(value)


def run_row(name: str, label: str, run: dict[str, Any]) -> str:
    """One run of one set as a Markdown row."""
    low, high = run["ci95"].get("gain_vs_flat") or (None, None)
    gain = _number(run["gain_vs_flat"], "{:+.3f}")
    if low is not None:
        gain += f" [{low:+.3f}, {high:+.3f}]"
    shown = f"**`{label}`**" if label == HEADLINE else f"`{label}`"
    cells = [
        name,
        shown,
        f"**{gain}**" if label == HEADLINE else gain,
        _number(run["flat_recall_at_pages"], "{:.3f}"),
        f"{_number(run['doc_hit'], '{:.2f}')} ({_number(run['flat_doc_hit'], '{:.2f}')})",
        _number(run["pages_returned"], "{:.1f}"),
        _number(run["right_sized_recall"], "{:.3f}"),
        _number(run.get("knee_decides"), "{:.0%}"),
        _number(run.get("slider_sizes"), "{:.1f}"),
        _number(run.get("oracle_share"), "{:.0%}"),
    ]
    return "| " + " | ".join(cells) + " |"


def eval_table(reports: dict[str, dict[str, Any]]) -> str:
    """Every run of every set, and each set's flat curve."""
    header = (
        "| set | run | gain_vs_flat [95 %] | flat at those pages | doc_hit (flat top-5) | pages | recall "
        "(everything returned) | knee sets the final cut | slider sizes | oracle share |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
    )
    rows = [
        run_row(name, label, run)
        for name, report in reports.items()
        for label, run in report["strategies"].items()
    ]
    curves = [
        f"{name} " + " ".join(f"{r:.3f}" for r in report["flat_curve"]["recall_at_k"][:10])
        for name, report in reports.items()
    ]
    return "\n".join([header, *rows, "", "flat's own curve, k = 1…10: " + ", ".join(curves)])


def sweep_table(sweeps: dict[str, dict[str, Any]]) -> str:
    """Each knee strategy's points over the sensitivity values, one column per set and strategy."""
    columns: list[tuple[str, str, dict[float, dict[str, Any]]]] = []
    values: list[float] = []
    for name, sweep in sweeps.items():
        by_base: dict[str, dict[float, dict[str, Any]]] = {}
        for label, run in sweep["strategies"].items():
            base = label.rsplit(" ", 1)[0]  # "adaptive sensitivity=0.5" → "adaptive"
            value = float(run["params"]["sensitivity"])
            by_base.setdefault(base, {})[value] = run
            values.append(value)
        columns.extend((name, base, points) for base, points in by_base.items())
    default = SearchParams().sensitivity
    lines = [
        "| S | " + " | ".join(f"{name} `{base}`" for name, base, _ in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for value in sorted(set(values)):
        cells = []
        for _, _, points in columns:
            run = points.get(value)
            cells.append(
                "–"
                if run is None
                else f"{run['pages_returned']:.1f} · {run['right_sized_recall']:.3f} "
                f"({run['flat_recall_at_pages']:.3f}) · {run['gain_vs_flat']:+.3f}"
            )
        shown = f"**{value:g}**" if value == default else f"{value:g}"
        lines.append(f"| {shown} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


#: The runs of the before/after table: flat top-5, each list alone, and this project's strategy.
ABSOLUTE = ("flat", "flat-dense", "flat-sparse", HEADLINE)


def absolute_cells(report: dict[str, Any]) -> list[str]:
    """flat, flat-dense and flat-sparse recall@5, and ``adaptive``'s recall @ pages and gain [95 %]."""
    runs = report["strategies"]
    cells = [_number(runs[name]["recall@5"], "{:.3f}") if name in runs else "–" for name in ABSOLUTE[:3]]
    run = runs.get(HEADLINE)
    if run is None:
        return [*cells, "–", "–"]
    low, high = run["ci95"].get("gain_vs_flat") or (None, None)
    gain = _number(run["gain_vs_flat"], "{:+.3f}") + (
        f" [{low:+.3f}, {high:+.3f}]" if low is not None else ""
    )
    recall = f"{_number(run['right_sized_recall'], '{:.3f}')} @ {_number(run['pages_returned'], '{:.1f}')}"
    return [*cells, recall, gain]


def before_after_table(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]]) -> str:
    """One row per set and version (before, after): flat top-5, dense alone, BM25 alone, adaptive."""
    lines = [
        "| set | version | flat top-5 | dense alone, top-5 | BM25 alone, top-5 | `adaptive` recall @ pages | "
        "`adaptive` gain_vs_flat [95 %] |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in dict.fromkeys([*before, *after]):
        for version, reports in (("before", before), ("after", after)):
            if name in reports:
                lines.append(f"| {name} | {version} | " + " | ".join(absolute_cells(reports[name])) + " |")
    return "\n".join(lines)


def _change(before: dict[str, Any] | None, after: dict[str, Any] | None, key: str, fmt: str) -> str:
    return " → ".join(_number(run.get(key) if run else None, fmt) for run in (before, after))


def runs_table(
    before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]], only: Sequence[str] = ()
) -> str:
    """One row per set and run (of ``only`` when given): its gain at equal budget, pages, doc_hit and recall,
    before → after."""
    lines = [
        "| set | run | gain_vs_flat | pages | doc_hit | flat top-5 doc_hit | recall (everything returned) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in dict.fromkeys([*before, *after]):
        runs_before = before.get(name, {}).get("strategies", {})
        runs_after = after.get(name, {}).get("strategies", {})
        for label in dict.fromkeys([*runs_before, *runs_after]):
            if only and label not in only:
                continue
            old, new = runs_before.get(label), runs_after.get(label)
            cells = [
                _change(old, new, "gain_vs_flat", "{:+.3f}"),
                _change(old, new, "pages_returned", "{:.1f}"),
                _change(old, new, "doc_hit", "{:.2f}"),
                _change(old, new, "flat_doc_hit", "{:.2f}"),
                _change(old, new, "right_sized_recall", "{:.3f}"),
            ]
            lines.append(f"| {name} | `{label}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def compare_table(reports: dict[str, dict[str, Any]]) -> str:
    """One row per run, one column per report: gain_vs_flat · pages · doc_hit."""
    labels = dict.fromkeys(label for report in reports.values() for label in report["strategies"])
    lines = ["| run | " + " | ".join(reports) + " |", "|---|" + "---|" * len(reports)]
    for label in labels:
        cells = []
        for report in reports.values():
            run = report["strategies"].get(label)
            cells.append(
                "–"
                if run is None
                else f"{run['gain_vs_flat']:+.3f} · {run['pages_returned']:.1f} · {run['doc_hit']:.2f}"
            )
        lines.append(f"| `{label}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _named(pairs: list[str]) -> dict[str, dict[str, Any]]:
    named = {}
    for pair in pairs:
        name, _, path = pair.rpartition("=")
        named[name] = json.loads(Path(path).read_text())
    return named


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", nargs="*", default=[], metavar="SET=FILE", help="eval --json files")
    parser.add_argument("--sweep", nargs="*", default=[], metavar="SET=FILE", help="sweep --json files")
    parser.add_argument(
        "--before", nargs="*", default=[], metavar="SET=FILE", help="eval --json before a change"
    )
    parser.add_argument("--after", nargs="*", default=[], metavar="SET=FILE", help="eval --json after it")
    parser.add_argument("--compare", nargs="*", default=[], metavar="LABEL=FILE", help="reports side by side")
    parser.add_argument("--runs", action="store_true", help="before → after of every run (not only adaptive)")
    parser.add_argument("--only", nargs="*", default=[], metavar="RUN", help="with --runs: these runs only")
    args = parser.parse_args()
    if args.eval:
        print(eval_table(_named(args.eval)))
    if args.sweep:
        print()
        print(sweep_table(_named(args.sweep)))
    if args.compare:
        print()
        print(compare_table(_named(args.compare)))
    if args.before or args.after:
        print()
        before, after = _named(args.before), _named(args.after)
        print(runs_table(before, after, args.only) if args.runs else before_after_table(before, after))


if __name__ == "__main__":
    main()
