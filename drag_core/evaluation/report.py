"""An evaluation report as a text table, JSON and CSV."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from drag_core.evaluation.metrics import paired_difference
from drag_core.evaluation.runner import BUDGET_METRICS, DIAGNOSTIC_METRICS, METRICS, Report, Summary
from drag_core.evaluation.sweep import Sweep

__all__ = [
    "COLUMNS",
    "NO_GAIN",
    "FIRST",
    "WITH_INTERVAL",
    "cell",
    "comparisons",
    "headline",
    "query_rows",
    "rule_words",
    "summary_rows",
    "sweep_verdicts",
    "table",
    "verdicts",
    "write_csv",
    "write_json",
]

COLUMNS = (
    ("recall@1", "R@1", "{:.3f}"),
    ("recall@5", "R@5", "{:.3f}"),
    ("recall@10", "R@10", "{:.3f}"),
    ("ndcg@10", "nDCG@10", "{:.3f}"),
    ("mrr@10", "MRR@10", "{:.3f}"),
    ("right_sized_recall", "recall(all)", "{:.3f}"),
    ("pages_returned", "pages", "{:.1f}"),
    ("tokens_returned", "tokens", "{:.0f}"),
    ("nonrelevant_discarded", "nonrel cut", "{:.2f}"),
    ("latency_ms", "ms", "{:.0f}"),
    ("gain_vs_flat", "gain vs flat@pages", "{:+.3f}"),
    ("doc_hit", "doc hit", "{:.2f}"),
    ("flat_doc_hit", "flat@5 doc hit", "{:.2f}"),
    ("knee_decides", "knee cut", "{:.0%}"),
    ("slider_sizes", "slider sizes", "{:.1f}"),
    ("oracle_share", "oracle share", "{:.0%}"),
)
#: What a reader compares first: recall at the run's own budget against flat's (the table's left columns).
FIRST = ("right_sized_recall", "pages_returned", "gain_vs_flat", "doc_hit", "flat_doc_hit")
WITH_INTERVAL = (
    "recall@5",
    "ndcg@10",
    "right_sized_recall",
    "pages_returned",
    "gain_vs_flat",
    "gain_vs_flat_per_query",
)


def cell(summary: Summary, metric: str, fmt: str, interval: bool = False) -> str:
    """One metric's mean (``–`` when undefined), with its 95 % interval in brackets if asked."""
    value = summary.means.get(metric)
    if value is None:
        return "–"
    text = fmt.format(value)
    bounds = summary.intervals.get(metric)
    if interval and bounds:
        text += f" [{fmt.format(bounds[0])}, {fmt.format(bounds[1])}]"
    return text


def table(report: Report, markdown: bool = False, intervals: bool = True) -> str:
    """The summary table, one row per run; main means carry their bootstrap 95 % interval."""
    header = ["strategy", *(title for _, title, _ in COLUMNS)]
    rows = [
        [s.spec.label, *(cell(s, m, fmt, intervals and m in WITH_INTERVAL) for m, _, fmt in COLUMNS)]
        for s in report.summaries
    ]
    if markdown:
        lines = [header, ["---"] * len(header), *rows]
        return "\n".join("| " + " | ".join(row) + " |" for row in lines)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in [header, *rows])


def headline(report: Report) -> str:
    """One line naming the data set, the number of queries and how the index was built."""
    index = report.index
    return (
        f"{report.dataset}: {report.n_queries} queries; index {index.get('vector_policy', '?')}, "
        f"summaries {index.get('summarizer', '?')}{' (reused)' if index.get('reused') else ''}"
    )


def comparisons(report: Report, baseline: str, metric: str = "right_sized_recall") -> list[str]:
    """One line per run against the ``baseline`` run on the same queries: mean difference of ``metric``
    with its paired bootstrap 95 % interval, and on how many queries it is higher and lower."""
    by_run: dict[str, dict[str, float | None]] = {}
    for o in report.outcomes:
        by_run.setdefault(o.label, {})[o.query_id] = o.values.get(metric)
    if baseline not in by_run:
        raise ValueError(f"no run named {baseline!r} to compare with")
    base = by_run[baseline]
    lines = []
    for label, values in by_run.items():
        if label == baseline:
            continue
        ids = list(base)
        difference, bounds = paired_difference([values.get(q) for q in ids], [base[q] for q in ids])
        higher = sum(1 for q in ids if (values.get(q) or 0) > (base[q] or 0))
        lower = sum(1 for q in ids if (values.get(q) or 0) < (base[q] or 0))
        interval = f" [{bounds[0]:+.3f}, {bounds[1]:+.3f}]" if bounds else ""
        change = "–" if difference is None else f"{difference:+.3f}{interval}"
        lines.append(f"{label} − {baseline}: {metric} {change}; higher on {higher}, lower on {lower} queries")
    return lines


def write_json(report: Report, path: Path | str) -> None:
    Path(path).write_text(json.dumps(report.to_json(), indent=2))


def write_csv(report: Report, path: Path | str) -> None:
    """One row per (run, query), then one ``mean`` row per run."""
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["strategy", "query_id", *METRICS])
        for o in report.outcomes:
            writer.writerow([o.label, o.query_id, *(_number(o.values.get(m)) for m in METRICS)])
        for s in report.summaries:
            writer.writerow([s.spec.label, "mean", *(_number(s.means.get(m)) for m in METRICS)])


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def summary_rows(report: Report) -> list[dict[str, object]]:
    """One row per run: every mean (recall, pages, gain against flat and doc_hit first), and the 95 % interval
    of the main ones as ``low–high`` text."""
    rows = []
    for s in report.summaries:
        row: dict[str, object] = {"strategy": s.spec.label}
        for metric in dict.fromkeys((*FIRST, *METRICS, *BUDGET_METRICS, *DIAGNOSTIC_METRICS)):
            row[metric] = s.means.get(metric)
            bounds = s.intervals.get(metric)
            if metric in WITH_INTERVAL and bounds:
                row[f"{metric} 95%"] = f"{bounds[0]:.3f}–{bounds[1]:.3f}"
        row["final cut set by"] = rule_words(s)
        spread = s.diagnostics.get("pages_distribution")
        if spread:
            row["pages min·p10·median·p90·max"] = " · ".join(f"{spread[k]:g}" for k in spread)
        rows.append(row)
    return rows


def rule_words(summary: Summary) -> str:
    """The rules that set a run's final knee cuts, with their shares (``knee 81 %, max_keep 19 %``); empty
    for a run without knee cuts."""
    rules = summary.diagnostics.get("cut_rules")
    if not rules:
        return ""
    return ", ".join(f"{name} {share:.0%}" for name, share in rules["final"].items() if share)


#: A gain that rounds to +0.000 at three decimals is no gain.
NO_GAIN = 0.0005


def _judged(summary: Summary) -> tuple[float, tuple[float, float], float] | None:
    """A run's gain over flat, its interval and its mean pages, when all three are known."""
    gain, pages = summary.means.get("gain_vs_flat"), summary.means.get("pages_returned")
    bounds = summary.intervals.get("gain_vs_flat")
    return None if gain is None or bounds is None or pages is None else (gain, bounds, pages)


def _at(gain: float, bounds: tuple[float, float], pages: float) -> str:
    return f"{gain:+.3f} [{bounds[0]:+.3f}, {bounds[1]:+.3f}] at {pages:.1f} pages"


def verdicts(report: Report) -> list[str]:
    """One plain sentence per knee run (a run whose searches cut at a knee): does it beat flat at its own
    budget on this data set?"""
    knee_runs = {o.label for o in report.outcomes if o.cut_rules}
    lines = []
    for s in report.summaries:
        judged = _judged(s)
        if s.spec.label not in knee_runs or judged is None:
            continue
        gain, bounds, _ = judged
        at, name, where = _at(*judged), s.spec.label, report.dataset
        if max(abs(gain), abs(bounds[0]), abs(bounds[1])) < 1e-12:
            lines.append(
                f"{name} does not beat flat on {where}: on every question it recalls what flat recalls at its "
                f"budget ({at}), so the cut changes nothing here."
            )
        elif gain < NO_GAIN:
            lines.append(f"{name} does not beat flat on {where} at its own budget: {at}.")
        elif bounds[0] <= 0:
            lines.append(f"{name} is above flat on {where} at its own budget, but not clearly: {at}.")
        else:
            lines.append(f"{name} beats flat on {where} at its own budget: {at}.")
    return lines


def sweep_verdicts(sweep: Sweep) -> list[str]:
    """One plain sentence per swept knee run: at how many of its settings it is above flat's curve (and how
    many of those lie between 2 and 15 pages), its best setting, or that it never is."""
    report = sweep.report
    knee_runs = {o.label for o in report.outcomes if o.cut_rules}
    lines = []
    for base in dict.fromkeys(base for base, _ in sweep.points.values()):
        points = [
            (judged, sweep.points[s.spec.label][1])
            for s in report.summaries
            if sweep.points[s.spec.label][0] == base and s.spec.label in knee_runs and (judged := _judged(s))
        ]
        if not points:
            continue
        above = [(j, v) for j, v in points if j[0] >= NO_GAIN]
        if not above:
            lines.append(
                f"{base} does not beat flat on {report.dataset} at any {sweep.param} of the sweep "
                f"({len(points)} settings): it is on or under flat's curve."
            )
            continue
        (gain, bounds, pages), value = max(above, key=lambda point: point[0][0])
        middle = sum(2 <= j[2] <= 15 for j, _ in above)
        clearly = sum(j[1][0] > 0 for j, _ in above)
        lines.append(
            f"{base} is above flat's curve on {report.dataset} at {len(above)} of {len(points)} settings of "
            f"{sweep.param} ({middle} of them between 2 and 15 pages, {clearly} clearly); best "
            f"{sweep.param}={value}: {_at(gain, bounds, pages)}."
        )
    return lines


def query_rows(report: Report) -> list[dict[str, object]]:
    """One row per (query, run) with its metrics and the pages returned."""
    return [
        {
            "query_id": o.query_id,
            "strategy": o.label,
            **o.values,
            "pages": " ".join(f"{f}:{p}" for f, p in o.units),
        }
        for o in report.outcomes
    ]
