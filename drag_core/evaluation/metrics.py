"""Retrieval metrics over one query's ranked units, one small function each.

``ranked`` is the list of distinct units (``(file, page)`` pairs) a search returned, best first — a node covering
several pages contributes each of them, in page order. ``relevant`` maps each relevant unit to its grade (> 0).
The ranked definitions follow trec_eval (``recall_k``, ``ndcg_cut_k``, ``recip_rank``) as implemented by ranx,
which the tests use as the reference on the same runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = [
    "BOOTSTRAP_ROUNDS",
    "Unit",
    "bootstrap_interval",
    "dcg_at_k",
    "mean",
    "mrr_at_k",
    "ndcg_at_k",
    "nonrelevant_discarded",
    "paired_difference",
    "recall_at_k",
    "right_sized_recall",
]

#: What a metric counts: a page of a file (``(file, page)``), or a passage of a passage data set.
Unit = tuple[str, int]
BOOTSTRAP_ROUNDS = 2000


def recall_at_k(ranked: Sequence[Unit], relevant: Mapping[Unit, int], k: int | None) -> float:
    """Share of the relevant units found in the first ``k`` ranked units (all of them when ``k`` is None).

    Definition: trec_eval ``recall_k`` = |relevant ∩ top-k| / |relevant| (Manning, Raghavan & Schütze,
    *Introduction to Information Retrieval*, 2008, §8.3). 0 when nothing is relevant.
    """
    if not relevant:
        return 0.0
    top = ranked if k is None else ranked[:k]
    return sum(1 for unit in set(top) if unit in relevant) / len(relevant)


def right_sized_recall(ranked: Sequence[Unit], relevant: Mapping[Unit, int]) -> float:
    """Recall over everything the strategy returned, however many units that is (``recall_at_k`` with no k).

    A strategy that decides its own result size is judged on the size it chose; read it next to
    ``pages_returned``.
    """
    return recall_at_k(ranked, relevant, None)


def dcg_at_k(ranked: Sequence[Unit], relevant: Mapping[Unit, int], k: int) -> float:
    """Discounted cumulative gain: Σ_{i=1..k} grade_i / log2(i + 1) (Järvelin & Kekäläinen, ACM TOIS 2002;
    linear gain as in trec_eval ``ndcg_cut``)."""
    return sum(relevant.get(unit, 0) / math.log2(i + 2) for i, unit in enumerate(ranked[:k]))


def ndcg_at_k(ranked: Sequence[Unit], relevant: Mapping[Unit, int], k: int) -> float:
    """DCG@k divided by the DCG@k of the ideal ranking (relevant units by grade, best first); 0 when nothing
    is relevant (Järvelin & Kekäläinen, 2002)."""
    ideal = sorted(relevant.values(), reverse=True)[:k]
    best = sum(grade / math.log2(i + 2) for i, grade in enumerate(ideal))
    return dcg_at_k(ranked, relevant, k) / best if best else 0.0


def mrr_at_k(ranked: Sequence[Unit], relevant: Mapping[Unit, int], k: int) -> float:
    """Reciprocal rank of the first relevant unit within the first ``k``, else 0 (Voorhees, TREC-8 QA track,
    1999); averaged over queries it is MRR@k."""
    for i, unit in enumerate(ranked[:k]):
        if unit in relevant:
            return 1.0 / (i + 1)
    return 0.0


def nonrelevant_discarded(cut_rankings: Sequence[tuple[Sequence[bool], int]]) -> float | None:
    """Of the non-relevant candidates in rankings that a knee cut, the share the cut discarded.

    Each item is (relevance of each candidate, best first; how many the cut kept). None when no ranking was
    cut or none held a non-relevant candidate (the share is undefined, not 0).
    """
    nonrelevant = discarded = 0
    for relevance, kept in cut_rankings:
        for position, is_relevant in enumerate(relevance):
            if not is_relevant:
                nonrelevant += 1
                discarded += position >= kept
    return discarded / nonrelevant if nonrelevant else None


def mean(values: Sequence[float | None]) -> float | None:
    """Mean of the defined values (None entries skipped); None when no value is defined."""
    defined = [v for v in values if v is not None and not math.isnan(v)]
    return float(np.mean(defined)) if defined else None


def bootstrap_interval(
    values: Sequence[float | None], level: float = 0.95, rounds: int = BOOTSTRAP_ROUNDS, seed: int = 0
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean (Efron & Tibshirani, *An Introduction to the Bootstrap*,
    1993, §13.3): resample the per-query values with replacement ``rounds`` times and take the
    ``(1 ± level) / 2`` quantiles of the resampled means. Undefined values are skipped; None when none is
    defined. Seeded, so a report is reproducible."""
    defined = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if defined.size == 0:
        return None
    rng = np.random.default_rng(seed)
    means = defined[rng.integers(0, defined.size, size=(rounds, defined.size))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


def paired_difference(
    values: Sequence[float | None], baseline: Sequence[float | None]
) -> tuple[float | None, tuple[float, float] | None]:
    """Mean per-query difference ``values - baseline`` and its bootstrap 95 % interval, over the queries where
    both are defined (a paired comparison: the same queries resampled for both; Efron & Tibshirani §14)."""
    diffs = [a - b for a, b in zip(values, baseline) if a is not None and b is not None]
    return mean(diffs), bootstrap_interval(diffs)
