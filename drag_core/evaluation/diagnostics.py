"""Knee diagnostics of a run, as small pure functions over per-query values: which rule set each knee cut, how
the answer sizes spread, whether they follow the number of relevant pages, whether the Sensitivity slider
moves them, and how much of an oracle's headroom over flat the run captures.

* A cut's *rule* is read from its trace step (``SearchContext.knee_cut`` wrote it): ``knee`` (the detector's
  count stood), ``no_knee`` (none found: every item kept), or the bound that set it instead (``min_keep``,
  ``max_keep``, or a strategy's own cap named by its field, e.g. ``roots``).
* The *oracle* picks, for each question, the k ≥ 1 of flat's own top-k runs knowing the answers, at a mean k
  equal to the run's mean pages: the best a per-question cut of flat's ranking could do. It is solved greedily
  over each question's upper concave hull of recall against k, best recall per page first, the last segment
  taken in part (the same linear interpolation ``gain_vs_flat`` reads flat with), which is optimal for this
  relaxation. ``oracle_share = (run − flat@p) / (oracle@p − flat@p)``: above 1 the run's *ranking* beats
  flat's (it returns pages flat ranks lower).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from drag_core.search.base import Bound, Step

__all__ = [
    "BIG_STEP",
    "CLIFF",
    "KNEE",
    "NO_KNEE",
    "RULES",
    "cut_rule",
    "distribution",
    "oracle_recall",
    "oracle_share",
    "rule_shares",
    "slider_response",
    "spearman",
]

KNEE, NO_KNEE = "knee", "no_knee"
#: The rules every share table lists (a strategy cap other than ``roots`` is added when it occurs).
RULES = (KNEE, NO_KNEE, Bound.MIN_KEEP.value, Bound.MAX_KEEP.value, Bound.ROOTS.value)
#: A slider step that multiplies or divides an answer's size by more than this is a cliff.
CLIFF = 3.0
#: A slider step that multiplies or divides an answer's size by more than this is a big step (issue 28's
#: target: at most 20 % of questions have one over a detector's slider).
BIG_STEP = 2.5


def cut_rule(step: Step) -> str:
    """The rule that set a knee step's cut (see the module's words); ``ValueError`` for a step without one."""
    if step.bound is None:
        raise ValueError(f"step {step.name!r} has no knee cut")
    if step.bound != Bound.NONE:
        return step.bound
    return NO_KNEE if step.knee_index is None else KNEE


def rule_shares(rules: Sequence[str]) -> dict[str, float]:
    """Share of cuts set by each rule: every name of ``RULES``, then any other that occurs."""
    counts = Counter(rules)
    total = max(1, len(rules))
    names = [*RULES, *sorted(set(counts) - set(RULES))]
    return {name: counts.get(name, 0) / total for name in names}


def distribution(values: Sequence[float]) -> dict[str, float]:
    """Least, 10th percentile, median, 90th percentile and most of per-query values (linear quantiles)."""
    array = np.asarray(values, dtype=float)
    low, median, high = np.quantile(array, [0.1, 0.5, 0.9])
    return {
        "min": float(array.min()),
        "p10": float(low),
        "median": float(median),
        "p90": float(high),
        "max": float(array.max()),
    }


def _ranks(values: Sequence[float]) -> np.ndarray:
    """1-based ranks, ties sharing their mean rank."""
    array = np.asarray(values, dtype=float)
    order = np.argsort(array, kind="stable")
    ranks = np.empty(array.size)
    ranks[order] = np.arange(1, array.size + 1)
    for value in np.unique(array):
        tied = array == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's ρ: Pearson's correlation of the two lists' ranks (ties share their mean rank). None when
    there are fewer than two values or either list is constant."""
    if len(x) != len(y):
        raise ValueError("spearman needs two lists of one length")
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    return float(np.corrcoef(_ranks(x), _ranks(y))[0, 1])


def slider_response(sizes: Sequence[Sequence[int]]) -> dict[str, float]:
    """How answers respond to the slider: ``sizes`` holds, per query, its answer size at every slider value
    (in the slider's order).

    * ``distinct``: the mean number of distinct sizes per query;
    * ``step_moves``: the share of (query, neighbouring values) pairs whose size differs;
    * ``queries_moved``: the share of queries whose size changes at least once;
    * ``cliff_queries``: the share of queries with a step that multiplies or divides the size by more than
      ``CLIFF`` (an empty answer counts as one page);
    * ``big_step_queries``: the same with ``BIG_STEP``.
    """
    distinct, moves, steps, moved, cliffs, big = [], 0, 0, 0, 0, 0
    for row in sizes:
        row = [max(1, int(v)) for v in row]
        ratios = [max(a, b) / min(a, b) for a, b in zip(row, row[1:])]
        distinct.append(len(set(row)))
        moves += sum(r > 1 for r in ratios)
        steps += len(ratios)
        moved += any(r > 1 for r in ratios)
        cliffs += any(r > CLIFF for r in ratios)
        big += any(r > BIG_STEP for r in ratios)
    n = max(1, len(sizes))
    return {
        "distinct": float(np.mean(distinct)) if distinct else 0.0,
        "step_moves": moves / max(1, steps),
        "queries_moved": moved / n,
        "cliff_queries": cliffs / n,
        "big_step_queries": big / n,
    }


def _hull(curve: Sequence[float]) -> list[tuple[int, float]]:
    """The rising part of the upper concave hull of (k, ``curve[k]``) for k = 1…len(curve) − 1."""
    hull: list[tuple[int, float]] = []
    for point in ((k, float(curve[k])) for k in range(1, len(curve))):
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (y2 - y1) * (point[0] - x1) > (point[1] - y1) * (x2 - x1):
                break
            hull.pop()  # the middle point lies on or under the line from its neighbour to the new point
        hull.append(point)
    while len(hull) >= 2 and hull[-1][1] <= hull[-2][1]:
        hull.pop()
    return hull


def oracle_recall(curves: Mapping[str, Sequence[float]], budget: float) -> float:
    """The oracle's mean recall at a mean of ``budget`` pages (see the module's words). ``curves``: query →
    flat's recall at k = 0…depth (index k). At most the depth is spent per query."""
    if not curves:
        return 0.0
    total = sum(float(curve[1]) for curve in curves.values())  # every query holds k = 1
    spare = (budget - 1.0) * len(curves)
    segments = []
    for curve in curves.values():
        hull = _hull(curve)
        segments += [((y2 - y1) / (x2 - x1), x2 - x1) for (x1, y1), (x2, y2) in zip(hull, hull[1:])]
    for slope, cost in sorted(segments, key=lambda segment: -segment[0]):
        if spare <= 0:
            break
        take = min(cost, spare)
        total += slope * take
        spare -= take
    return total / len(curves)


def oracle_share(run_recall: float, flat_recall: float, oracle: float) -> float | None:
    """The share of the oracle's gain over flat (both at the run's mean pages) that the run achieves; None
    when the oracle has no gain to share."""
    room = oracle - flat_recall
    return None if room <= 1e-12 else (run_recall - flat_recall) / room
