"""Metric functions: hand-computed cases, and agreement with ranx (the reference implementation) on the same runs."""

from __future__ import annotations

import math
import random

import pytest
from ranx import Qrels, Run, evaluate

from drag_core.evaluation.metrics import (
    bootstrap_interval,
    mean,
    mrr_at_k,
    ndcg_at_k,
    nonrelevant_discarded,
    paired_difference,
    recall_at_k,
    right_sized_recall,
)
from drag_core.text import approx_tokens

A, B, C, D, E = (("a.pdf", p) for p in range(1, 6))
RELEVANT = {B: 1, D: 1, ("other.pdf", 9): 1}  # three relevant pages, one never retrieved


def test_recall_counts_relevant_units_in_the_top_k() -> None:
    ranked = [A, B, C, D, E]
    assert recall_at_k(ranked, RELEVANT, 1) == 0
    assert recall_at_k(ranked, RELEVANT, 2) == pytest.approx(1 / 3)
    assert recall_at_k(ranked, RELEVANT, 5) == pytest.approx(2 / 3)
    assert recall_at_k(ranked, {}, 5) == 0
    assert right_sized_recall(ranked, RELEVANT) == pytest.approx(2 / 3)
    assert right_sized_recall([B], RELEVANT) == pytest.approx(1 / 3)


def test_ndcg_by_hand() -> None:
    # relevant at ranks 2 and 4; the ideal ranking has its three relevant pages at ranks 1-3
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k([A, B, C, D, E], RELEVANT, 10) == pytest.approx(dcg / ideal)
    assert ndcg_at_k([B, D], {B: 1, D: 1}, 10) == pytest.approx(1.0)
    # graded: the grade-2 page second is worse than first
    graded = {B: 2, D: 1}
    assert ndcg_at_k([D, B], graded, 10) == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert ndcg_at_k([A], {}, 10) == 0


def test_mrr_is_the_reciprocal_rank_of_the_first_relevant_within_k() -> None:
    assert mrr_at_k([A, C, D], RELEVANT, 10) == pytest.approx(1 / 3)
    assert mrr_at_k([A, C, D], RELEVANT, 2) == 0
    assert mrr_at_k([B], RELEVANT, 10) == 1


def test_tokens_round_up_quarter_characters() -> None:
    assert approx_tokens(0) == 0
    assert approx_tokens(1) == 1
    assert approx_tokens(4000) == 1000
    assert approx_tokens(4001) == 1001


def test_nonrelevant_discarded_counts_only_cut_rankings() -> None:
    # ranking 1: R N N N, kept 2 → 2 of 3 non-relevant dropped; ranking 2: N R N, kept 3 → 0 of 2 dropped
    share = nonrelevant_discarded([([True, False, False, False], 2), ([False, True, False], 3)])
    assert share == pytest.approx(2 / 5)
    assert nonrelevant_discarded([]) is None
    assert nonrelevant_discarded([([True, True], 1)]) is None


def test_mean_and_bootstrap_skip_undefined_values() -> None:
    assert mean([1.0, None, 0.0, float("nan")]) == 0.5
    assert mean([None]) is None
    assert bootstrap_interval([None]) is None
    assert bootstrap_interval([0.4] * 10) == pytest.approx((0.4, 0.4))
    values = [0.0] * 18 + [1.0] * 18
    low, high = bootstrap_interval(values)
    assert low < 0.5 < high
    # normal approximation of a proportion 0.5 with n = 36: ±1.96·sqrt(0.25/36) ≈ ±0.163
    assert high - low == pytest.approx(2 * 1.96 * math.sqrt(0.25 / 36), abs=0.03)
    assert bootstrap_interval(values) == (low, high)  # seeded


def test_paired_difference_uses_queries_defined_in_both() -> None:
    difference, (low, high) = paired_difference([1.0, 0.5, 0.0, None], [0.5, 0.5, None, 1.0])
    assert difference == pytest.approx(0.25)  # (1 - 0.5) and (0.5 - 0.5)
    assert (low, high) == pytest.approx((0.0, 0.5))
    assert paired_difference([None], [1.0]) == (None, None)


def _random_runs(seed: int) -> tuple[dict[str, dict[tuple[str, int], int]], dict[str, list[tuple[str, int]]]]:
    rng = random.Random(seed)
    units = [(f"doc{d}.pdf", p) for d in range(4) for p in range(1, 16)]
    qrels, runs = {}, {}
    for q in range(40):
        relevant = rng.sample(units, rng.randint(1, 4))
        qrels[f"q{q}"] = {u: rng.choice((1, 1, 2)) for u in relevant}
        pool = rng.sample(units, rng.randint(1, 20))
        if rng.random() < 0.6:  # make hits likely
            pool[rng.randrange(len(pool))] = relevant[0]
        runs[f"q{q}"] = list(dict.fromkeys(pool))
    return qrels, runs


def ranx_scores(
    qrels: dict[str, dict[tuple[str, int], int]], runs: dict[str, list[tuple[str, int]]], metrics: list[str]
) -> dict[str, dict[str, float]]:
    """ranx's per-query values for the same runs (units as ``file#page`` ids, scores falling with rank)."""

    def key(unit: tuple[str, int]) -> str:
        return f"{unit[0]}#{unit[1]}"

    ranx_qrels = Qrels({q: {key(u): g for u, g in rel.items()} for q, rel in qrels.items()})
    ranx_run = Run({q: {key(u): float(len(r) - i) for i, u in enumerate(r)} for q, r in runs.items() if r})
    evaluate(ranx_qrels, ranx_run, metrics, make_comparable=True)
    return ranx_run.scores


@pytest.mark.parametrize("seed", [1, 2])
def test_metrics_agree_with_ranx(seed: int) -> None:
    qrels, runs = _random_runs(seed)
    reference = ranx_scores(qrels, runs, ["recall@1", "recall@5", "recall@10", "ndcg@10", "mrr@10"])
    for q, ranked in runs.items():
        relevant = qrels[q]
        assert recall_at_k(ranked, relevant, 1) == pytest.approx(reference["recall@1"][q])
        assert recall_at_k(ranked, relevant, 5) == pytest.approx(reference["recall@5"][q])
        assert recall_at_k(ranked, relevant, 10) == pytest.approx(reference["recall@10"][q])
        assert ndcg_at_k(ranked, relevant, 10) == pytest.approx(reference["ndcg@10"][q])
        assert mrr_at_k(ranked, relevant, 10) == pytest.approx(reference["mrr@10"][q])
