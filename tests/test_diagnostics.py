"""The knee diagnostics of ``eval`` (``drag_core.evaluation.diagnostics``) against hand computations."""

from __future__ import annotations

import math

import pytest

from drag_core.evaluation.diagnostics import (
    cut_rule,
    distribution,
    oracle_recall,
    oracle_share,
    rule_shares,
    slider_response,
    spearman,
)
from drag_core.search.base import Step

#: Flat's recall at k = 0…4 for two questions: q1 finds its two pages at ranks 2 and 4, q2 its one at rank 1.
CURVES = {"q1": [0.0, 0.0, 0.5, 0.5, 1.0], "q2": [0.0, 1.0, 1.0, 1.0, 1.0]}


def test_a_cut_rule_is_read_from_what_the_step_recorded() -> None:
    assert cut_rule(Step("s", [], knee_index=3, bound="none")) == "knee"
    assert cut_rule(Step("s", [], knee_index=None, bound="none")) == "no_knee"
    assert cut_rule(Step("s", [], knee_index=7, bound="roots", bound_value=3)) == "roots"
    assert cut_rule(Step("s", [], knee_index=0, bound="min_keep", bound_value=2)) == "min_keep"
    with pytest.raises(ValueError, match="no knee cut"):
        cut_rule(Step("breadth", []))


def test_rule_shares_list_every_rule_and_any_other_cap() -> None:
    shares = rule_shares(["knee", "knee", "max_keep", "beam_width"])
    assert shares == {
        "knee": 0.5,
        "no_knee": 0.0,
        "min_keep": 0.0,
        "max_keep": 0.25,
        "roots": 0.0,
        "beam_width": 0.25,
    }
    assert sum(rule_shares([]).values()) == 0


def test_distribution_of_pages() -> None:
    found = distribution(list(range(1, 11)))
    assert found == pytest.approx({"min": 1, "p10": 1.9, "median": 5.5, "p90": 9.1, "max": 10})


def test_spearman_by_hand_with_ties() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    # ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4): covariance 4.5, variances 4.5 and 5
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / math.sqrt(4.5 * 5))
    assert spearman([5, 5, 5], [1, 2, 3]) is None and spearman([1], [2]) is None
    with pytest.raises(ValueError):
        spearman([1, 2], [1])


def test_slider_response_counts_sizes_moves_and_cliffs() -> None:
    found = slider_response([[1, 1, 2, 2], [3, 3, 3, 3], [1, 4, 4, 8], [4, 11, 11, 11]])
    assert found == pytest.approx(
        {
            "distinct": 2.0,
            "step_moves": 4 / 12,
            "queries_moved": 3 / 4,
            "cliff_queries": 1 / 4,
            "big_step_queries": 2 / 4,
        }
    )  # 1 → 4 (×4) is a cliff and a big step; 4 → 11 (×2.75) only a big step; 4 → 8 (×2) neither
    assert slider_response([[0, 0, 1]])["distinct"] == 1  # an empty answer counts as one page


def test_the_oracle_spends_pages_where_they_recall_most() -> None:
    # q2 is done at k = 1; q1's hull is (1, 0) → (2, 0.5) → (4, 1): 0.5 per page, then 0.25 per page
    assert oracle_recall(CURVES, 1.0) == pytest.approx(0.5)
    assert oracle_recall(CURVES, 1.5) == pytest.approx((1.0 + 0.5) / 2)  # one page for q1's first segment
    assert oracle_recall(CURVES, 2.0) == pytest.approx((1.0 + 0.5 + 0.25) / 2)  # and half of its second
    assert oracle_recall(CURVES, 2.5) == pytest.approx(1.0)
    assert oracle_recall(CURVES, 9.0) == pytest.approx(1.0)  # no more to find
    assert oracle_recall({}, 3.0) == 0.0


def test_oracle_share_is_the_runs_part_of_the_oracles_gap_over_flat() -> None:
    # at 2 pages flat recalls (0.5 + 1) / 2 = 0.75 and the oracle 0.875
    assert oracle_share(0.8, 0.75, oracle_recall(CURVES, 2.0)) == pytest.approx(0.05 / 0.125)
    assert oracle_share(0.7, 0.75, 0.875) == pytest.approx(-0.4)
    assert oracle_share(0.9, 0.75, 0.75) is None  # no gap to share
