"""Tests for drag_core.knee: the four detectors, their slider grids, the cut rule and agreement with kneed."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from kneed import DataGenerator, KneeLocator

from drag_core.knee import (
    DEFAULT_SENSITIVITIES,
    DETECTORS,
    KNEE_METHODS,
    KneeResult,
    default_sensitivity,
    find_knee,
)
from drag_core.knee import SENSITIVITIES as GRIDS
from drag_core.knee.chord import distances_below_chord
from drag_core.knee.kneedle import difference_curve

RANKS = np.arange(1, 101)
#: The detectors that look for a bend in the curve's shape (``relative`` is a threshold: a line has a cut).
SHAPE_METHODS = ("kneedle", "chord", "gap")


def kneed_knee(scores: np.ndarray, sensitivity: float, online: bool = False) -> int | None:
    """kneed's knee index for a descending ranking (x = rank 0..n-1), silencing its 0/0 warnings."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        locator = KneeLocator(
            np.arange(len(scores)),
            scores,
            S=sensitivity,
            curve="convex",
            direction="decreasing",
            online=online,
        )
    return None if locator.knee is None else int(locator.knee)


def _noisy_exponential(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sort(np.exp(-0.2 * np.arange(n)) + rng.normal(0.0, 0.02, n))[::-1]


def _noisy_uniform(seed: int, n: int) -> np.ndarray:
    return np.sort(np.random.default_rng(seed).random(n))[::-1]


def _cosine_like(seed: int) -> np.ndarray:
    """Dense cosine scores: a few good hits around 0.8, then a slowly decaying tail around 0.5."""
    rng = np.random.default_rng(seed)
    head = 0.8 + rng.normal(0.0, 0.02, 4)
    tail = 0.55 - 0.004 * np.arange(26) + rng.normal(0.0, 0.005, 26)
    return np.sort(np.concatenate((head, tail)))[::-1]


def _rrf_two_lists(seed: int, n: int) -> np.ndarray:
    """RRF fusion (k=60) of two rankings of the same n items; the second is a noisy copy of the first."""
    rng = np.random.default_rng(seed)
    second = np.argsort(np.arange(n) + rng.normal(0.0, n / 10, n))
    rank_in_second = np.empty(n)
    rank_in_second[second] = np.arange(1, n + 1)
    return np.sort(1 / (60 + np.arange(1, n + 1)) + 1 / (60 + rank_in_second))[::-1]


def _rrf_partial_overlap(both: int, n: int) -> np.ndarray:
    """RRF where the top ``both`` items are found by both lists and the rest by one list only."""
    ranks = np.arange(1, n + 1)
    fused = 1 / (60 + ranks) + np.where(ranks <= both, 1 / (60 + ranks), 0.0)
    return np.sort(fused)[::-1]


_FIG2_X, _FIG2_Y = DataGenerator.figure2()

CURVES: dict[str, np.ndarray] = {
    "one_point": np.array([0.7]),
    "two_points": np.array([1.0, 0.5]),
    "two_points_equal": np.array([0.3, 0.3]),
    "three_points_sharp": np.array([1.0, 0.2, 0.0]),
    "three_points_soft": np.array([1.0, 0.5, 0.4]),
    "flat": np.full(10, 0.5),
    "linear": np.linspace(1.0, 0.0, 10),
    "linear_rrf_scale": np.linspace(0.033, 0.016, 25),
    "plateau_top_3": np.array([1.0, 1.0, 1.0, 0.5, 0.3, 0.2, 0.15, 0.1]),
    "plateau_top_2": np.array([0.9, 0.9, 0.4, 0.2, 0.1, 0.05, 0.02, 0.01, 0.0]),
    # n = 87: at S=1 the drop after the tie equals the threshold exactly; rounding makes it a knee at 0
    "plateau_top_2_n87_rounding_tie": np.concatenate(([1.0, 1.0], 0.5 * np.exp(-0.1 * np.arange(85)))),
    "exp_fast": np.exp(-0.5 * np.arange(20)),
    "exp_slow": np.exp(-0.1 * np.arange(50)),
    "power_law": 1.0 / np.arange(1, 31) ** 2,
    "rrf_10": 1 / (60 + RANKS[:10]),
    "rrf_30": 1 / (60 + RANKS[:30]),
    "rrf_100": 1 / (60 + RANKS),
    "rrf_k1_20": 1 / (1 + RANKS[:20]),
    "rrf_two_lists_40": _rrf_two_lists(3, 40),
    "rrf_partial_overlap_5_of_30": _rrf_partial_overlap(5, 30),
    "rrf_partial_overlap_12_of_50": _rrf_partial_overlap(12, 50),
    "step_3_3": np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0]),
    "step_4_6": np.array([1.0] * 4 + [0.2] * 6),
    "step_three_levels": np.array([1.0, 1.0, 0.6, 0.6, 0.6, 0.2, 0.2, 0.2, 0.2]),
    "noisy_exp_seed1": _noisy_exponential(1, 40),
    "noisy_exp_seed7": _noisy_exponential(7, 25),
    "noisy_uniform_seed2": _noisy_uniform(2, 30),
    "cosine_like_seed5": _cosine_like(5),
    "paper_fig2_reflected": -_FIG2_Y,
}

SENSITIVITIES = (0.5, 1.0, 2.0, 5.0)


@pytest.mark.parametrize("sensitivity", SENSITIVITIES, ids=lambda s: f"S={s}")
@pytest.mark.parametrize("scores", list(CURVES.values()), ids=list(CURVES))
def test_kneedle_agrees_with_kneed(scores: np.ndarray, sensitivity: float) -> None:
    expected = kneed_knee(scores, sensitivity)
    result = find_knee(scores, method="kneedle", sensitivity=sensitivity)
    assert result.knee_index == expected
    assert result.keep == (len(scores) if expected is None else expected + 1)


def test_agreement_curves_are_not_trivial() -> None:
    """The kneed comparison covers knees at several positions as well as 'no knee'."""
    answers = {kneed_knee(scores, s) for scores in CURVES.values() for s in SENSITIVITIES}
    assert None in answers
    assert len(answers - {None}) >= 8


def test_kneedle_agrees_with_kneed_on_random_curves() -> None:
    rng = np.random.default_rng(2011)
    disagreements = []
    for trial in range(400):
        n = int(rng.integers(1, 50))
        if trial % 3 == 0:
            scores = np.sort(rng.random(n))[::-1]
        elif trial % 3 == 1:
            scores = np.sort(rng.integers(0, 4, n).astype(float))[::-1]  # ties and steps
        else:
            scores = np.sort(np.exp(-rng.random() * np.arange(n)) + rng.normal(0.0, 0.01, n))[::-1]
        sensitivity = float(rng.choice([0.0, 0.5, 1.0, 2.0, 5.0]))
        ours = find_knee(scores, "kneedle", sensitivity).knee_index
        theirs = kneed_knee(scores, sensitivity)
        if ours != theirs:
            disagreements.append((scores.tolist(), sensitivity, ours, theirs))
    assert disagreements == []


def test_kneedle_matches_kneed_offline_not_online() -> None:
    """kneed's default (online=False) returns the first knee; online=True would move on to a later one."""
    scores = CURVES["plateau_top_3"]
    assert kneed_knee(scores, 1.0, online=False) == 0
    assert kneed_knee(scores, 1.0, online=True) == 4
    assert find_knee(scores, "kneedle", 1.0).knee_index == 0


def test_kneedle_paper_figure2_reflected() -> None:
    """Satopää et al., Fig. 2: y = 5 - 1/(x + 0.1) on 10 points of [0, 1], knee at x ~= 0.22.

    The paper's curve is concave increasing; its negation is convex decreasing with the same knee x.
    """
    x, y = _FIG2_X, _FIG2_Y
    concave = KneeLocator(x, y, S=1.0, curve="concave", direction="increasing")
    assert concave.knee == pytest.approx(0.22, abs=0.01)
    reflected = KneeLocator(x, -y, S=1.0, curve="convex", direction="decreasing")
    assert reflected.knee == concave.knee

    result = find_knee(-y, method="kneedle", sensitivity=1.0)
    assert result.knee_index == int(np.flatnonzero(x == concave.knee)[0]) == 2
    assert result.keep == 3


def test_kneedle_higher_sensitivity_is_more_conservative() -> None:
    scores = CURVES["rrf_30"]
    assert find_knee(scores, "kneedle", 2.0).knee_index == 13
    assert find_knee(scores, "kneedle", 5.0).knee_index is None
    for name, scores in CURVES.items():
        keeps = [find_knee(scores, "kneedle", s).keep for s in (0.0, *SENSITIVITIES, 10.0)]
        assert keeps == sorted(keeps), name


def test_kneedle_flat_head_is_cut_at_the_first_item() -> None:
    """Documented kneed behaviour we keep: a flat/shallow head makes index 0 an end-point local maximum."""
    for name in ("plateau_top_3", "step_4_6", "rrf_partial_overlap_5_of_30"):
        assert find_knee(CURVES[name], "kneedle", 1.0).keep == 1, name
    assert find_knee(CURVES["rrf_partial_overlap_5_of_30"], "kneedle", 2.0).knee_index == 5


# --- edge cases and the cut rule -------------------------------------------------------------------


def test_knee_methods_and_registry() -> None:
    assert KNEE_METHODS == ("kneedle", "chord", "gap", "relative")
    assert tuple(DETECTORS) == tuple(GRIDS) == tuple(DEFAULT_SENSITIVITIES) == KNEE_METHODS


@pytest.mark.parametrize("method", KNEE_METHODS)
def test_each_method_has_its_own_default_among_its_ascending_slider_values(method: str) -> None:
    grid = GRIDS[method]
    assert len(grid) >= 8 and list(grid) == sorted(set(grid)) and grid[0] >= 0
    assert default_sensitivity(method) in grid
    assert find_knee(CURVES["exp_slow"], method).sensitivity == DEFAULT_SENSITIVITIES[method]
    assert (DEFAULT_SENSITIVITIES["kneedle"], DEFAULT_SENSITIVITIES["relative"]) == (1.0, 0.5)
    with pytest.raises(ValueError, match="unknown knee method"):
        default_sensitivity("elbow")


def test_registry_lookup_uses_new_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(DETECTORS, "second", lambda scores, sensitivity: 1)
    result = find_knee([0.9, 0.5, 0.4, 0.3], method="second")
    assert (result.keep, result.knee_index, result.method) == (2, 1, "second")


@pytest.mark.parametrize("method", KNEE_METHODS)
def test_empty_ranking_keeps_nothing(method: str) -> None:
    assert find_knee([], method=method, min_keep=3) == KneeResult(
        0, None, method, DEFAULT_SENSITIVITIES[method]
    )


@pytest.mark.parametrize("method", KNEE_METHODS)
def test_single_point_is_kept_without_knee(method: str) -> None:
    result = find_knee([0.42], method=method, sensitivity=0.5)
    assert result == KneeResult(keep=1, knee_index=None, method=method, sensitivity=0.5)


@pytest.mark.parametrize("method", SHAPE_METHODS)
def test_flat_and_linear_have_no_knee(method: str) -> None:
    for scores in (CURVES["flat"], CURVES["linear"], CURVES["linear_rrf_scale"]):
        result = find_knee(scores, method=method)
        assert result.knee_index is None
        assert result.keep == len(scores)


def test_min_keep_raises_keep_but_not_the_knee() -> None:
    scores = [1.0, 0.2, 0.1, 0.05, 0.0, 0.0]
    plain = find_knee(scores, method="gap")
    assert (plain.keep, plain.knee_index) == (1, 0)
    clamped = find_knee(scores, method="gap", min_keep=3)
    assert (clamped.keep, clamped.knee_index) == (3, 0)


def test_max_keep_caps_keep() -> None:
    no_knee = find_knee(np.linspace(1.0, 0.0, 20), method="chord", max_keep=5)
    assert (no_knee.keep, no_knee.knee_index) == (5, None)
    knee = find_knee(CURVES["exp_slow"], method="kneedle", max_keep=4)
    assert knee.knee_index is not None
    assert knee.knee_index + 1 > 4
    assert knee.keep == 4


def test_keep_never_exceeds_length() -> None:
    assert find_knee([0.9, 0.8], min_keep=5).keep == 2
    assert find_knee([0.9, 0.8, 0.1], min_keep=0, max_keep=0).keep == 0


@pytest.mark.parametrize("method", KNEE_METHODS)
def test_a_larger_sensitivity_never_keeps_fewer(method: str) -> None:
    """One direction for every detector (issue 28), on random rankings with ties, past the slider's end."""
    rng = np.random.default_rng(28)
    sweep = np.linspace(0.0, 1.5 * max(GRIDS[method]), 91)
    for _ in range(150):
        scores = np.sort(np.round(rng.random(int(rng.integers(3, 60))) ** 2, 2))[::-1]
        keeps = [find_knee(scores, method, float(s)).keep for s in sweep]
        assert keeps == sorted(keeps), (method, scores.tolist())


@pytest.mark.parametrize("method", KNEE_METHODS)
def test_keep_within_bounds_on_random_rankings(method: str) -> None:
    rng = np.random.default_rng(99)
    for _ in range(200):
        n = int(rng.integers(0, 40))
        scores = np.sort(rng.random(n))[::-1]
        min_keep = int(rng.integers(0, 6))
        max_keep = None if rng.random() < 0.3 else min_keep + int(rng.integers(0, 10))
        result = find_knee(scores, method, float(rng.choice([0.0, 0.5, 1.0, 3.0])), min_keep, max_keep)
        assert result.keep <= n
        assert result.keep >= min(min_keep, n)
        assert max_keep is None or result.keep <= max_keep
        if result.knee_index is not None:
            assert type(result.knee_index) is int
            assert 0 <= result.knee_index < n


def test_result_is_frozen_and_records_inputs() -> None:
    result = find_knee(CURVES["exp_fast"], method="chord", sensitivity=0.75)
    assert (result.method, result.sensitivity) == ("chord", 0.75)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.keep = 3  # type: ignore[misc]


def test_tiny_float_noise_increase_is_accepted() -> None:
    scores = [0.5, 0.3, 0.3 + 1e-15, 0.1, 0.05]
    for method in KNEE_METHODS:
        assert find_knee(scores, method) == find_knee([0.5, 0.3, 0.3, 0.1, 0.05], method)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scores": [0.1, 0.5, 0.3]}, "sorted descending"),
        ({"scores": [0.5, 0.3, 0.30001]}, "sorted descending"),
        ({"scores": [0.5, float("nan"), 0.1]}, "NaN"),
        ({"scores": [float("inf"), 0.5]}, "infinite"),
        ({"scores": [[0.5, 0.3]]}, "one-dimensional"),
        ({"scores": [0.5, 0.3], "method": "elbow"}, "unknown knee method"),
        ({"scores": [0.5, 0.3], "min_keep": -1}, "min_keep"),
        ({"scores": [0.5, 0.3], "min_keep": 3, "max_keep": 2}, "max_keep"),
        ({"scores": [0.5, 0.3], "sensitivity": -0.5}, "sensitivity"),
        ({"scores": [0.5, 0.3], "sensitivity": float("nan")}, "sensitivity"),
    ],
    ids=[
        "unsorted",
        "slightly_rising",
        "nan",
        "inf",
        "two_dimensional",
        "unknown_method",
        "negative_min_keep",
        "max_below_min",
        "negative_sensitivity",
        "nan_sensitivity",
    ],
)
def test_invalid_input_raises(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_knee(**kwargs)


# --- chord ------------------------------------------------------------------------------------------


def test_chord_picks_point_farthest_below_chord() -> None:
    # normalised: x = 0, .25, .5, .75, 1; 1 - x - y = 0, .45, .3, .15, 0 -> farthest at index 1
    result = find_knee([1.0, 0.3, 0.2, 0.1, 0.0], method="chord")
    assert (result.knee_index, result.keep) == (1, 2)


def test_chord_is_global_max_of_kneedle_difference_curve() -> None:
    for name in ("rrf_100", "exp_slow", "noisy_exp_seed1", "cosine_like_seed5"):
        scores = CURVES[name]
        _, diff = difference_curve(scores)
        assert find_knee(scores, "chord").knee_index == int(np.argmax(diff)), name
        assert np.allclose(distances_below_chord(scores) * np.sqrt(2.0), diff)


def test_chord_concave_ranking_has_no_knee() -> None:
    assert find_knee([1.0, 0.9, 0.7, 0.4, 0.0], method="chord").knee_index is None


@pytest.mark.parametrize("name", ["exp_fast", "exp_slow", "rrf_100", "noisy_uniform_seed2", "step_4_6"])
def test_chord_higher_sensitivity_keeps_at_least_as_many(name: str) -> None:
    scores = CURVES[name]
    keeps = [find_knee(scores, "chord", s).keep for s in np.arange(0.0, 2.3, 0.05)]
    assert keeps == sorted(keeps)


def test_chord_sensitivity_slides_the_knee_from_the_start_of_the_sag_to_its_end() -> None:
    scores = CURVES["exp_slow"]
    distance = distances_below_chord(scores)
    deepest = find_knee(scores, "chord", 1.0).knee_index
    early, late = find_knee(scores, "chord", 0.5).knee_index, find_knee(scores, "chord", 1.5).knee_index
    assert early < deepest < late
    assert distance[early] >= 0.5 * distance.max() > distance[:early].max()  # the first to sag half as deep
    assert distance[late] >= 0.5 * distance.max() and np.all(distance[late + 1 :] < 0.5 * distance.max())
    assert find_knee(scores, "chord", 0.0).knee_index == int(np.flatnonzero(distance > 1e-9)[0])
    assert find_knee(scores, "chord", 2.0).knee_index == int(np.flatnonzero(distance > 1e-9)[-1])


def test_chord_sensitivity_above_two_is_clamped() -> None:
    scores = CURVES["rrf_30"]
    assert find_knee(scores, "chord", 5.0).knee_index == find_knee(scores, "chord", 2.0).knee_index
    assert find_knee(scores, "chord", 5.0).sensitivity == 5.0


# --- gap --------------------------------------------------------------------------------------------

CLIFF = np.array([0.91, 0.90, 0.88, 0.87, 0.42, 0.41, 0.40, 0.38, 0.37])


def test_gap_cuts_before_obvious_cliff() -> None:
    result = find_knee(CLIFF, method="gap")
    assert (result.knee_index, result.keep) == (3, 4)


def test_gap_step_curve_keeps_the_top_plateau() -> None:
    for sensitivity in (0.0, 1.0, 100.0):
        assert find_knee(CURVES["step_4_6"], "gap", sensitivity).keep == 4


def test_gap_higher_sensitivity_is_stricter() -> None:
    # largest gap 0.5, mean of the other gaps 0.1: excess 0.4 = 4 typical gaps
    scores = np.array([1.0, 0.9, 0.4, 0.3, 0.2, 0.1])
    assert find_knee(scores, "gap", 3.0).knee_index == 1
    assert find_knee(scores, "gap", 5.0).knee_index is None
    keeps = [find_knee(scores, "gap", s).keep for s in (0.0, 1.0, 2.0, 3.0, 3.9, 4.1, 5.0, 10.0)]
    assert keeps == sorted(keeps)
    assert keeps[0] == 2
    assert keeps[-1] == len(scores)


def test_gap_ignores_float_noise_in_linear_gaps() -> None:
    scores = np.linspace(1.0, 0.0, 10)  # gaps differ only by rounding (~1e-17)
    gaps = scores[:-1] - scores[1:]
    assert gaps.max() > gaps.min()
    assert find_knee(scores, "gap", 0.0).knee_index is None


def test_gap_ties_take_the_first_largest_gap() -> None:
    # gaps 0.5, 0, 0.5: the earliest cliff wins; mean of the other gaps is 0.25
    scores = [1.0, 0.5, 0.5, 0.0]
    assert find_knee(scores, "gap", 0.5).knee_index == 0
    assert find_knee(scores, "gap", 1.0).knee_index is None


def test_gap_smooth_rrf_has_no_knee_at_default_sensitivity() -> None:
    assert find_knee(CURVES["rrf_30"], "gap", 1.0).knee_index is None
    assert find_knee(CURVES["rrf_partial_overlap_5_of_30"], "gap", 1.0).knee_index == 4


# --- relative ---------------------------------------------------------------------------------------


def test_relative_keeps_what_lies_within_s_times_the_tops_lead_over_the_mean() -> None:
    scores = [1.0, 0.8, 0.5, 0.3, 0.2, 0.2]  # mean 0.5, the top leads it by 0.5
    for s, floor, knee in ((0.0, 1.0, 0), (0.5, 0.75, 1), (1.0, 0.5, 2), (1.5, 0.25, 3), (2.0, 0.0, 5)):
        result = find_knee(scores, "relative", s)
        assert result.knee_index == knee, (s, floor)
        assert all(x >= floor for x in scores[: knee + 1]) and all(x < floor for x in scores[knee + 1 :])
    assert find_knee([1.0, 0.0], "relative", 0.5).knee_index == 0  # floor 0.75
    assert find_knee([1.0, 0.0], "relative", 2.0).knee_index == 1  # floor 0


def test_relative_has_no_knee_without_two_items_or_spread_but_a_line_has_a_cut() -> None:
    for name in ("one_point", "two_points_equal", "flat"):
        assert find_knee(CURVES[name], "relative", 0.5).knee_index is None, name
    line = CURVES["linear"]  # 1.0 … 0.0, mean 0.5: at S = 0.5 everything ≥ 0.75 is kept
    assert find_knee(line, "relative", 0.5).keep == int(np.count_nonzero(line >= 0.75))


def test_relative_ignores_the_scale_and_the_level_of_the_scores() -> None:
    rng = np.random.default_rng(19)
    for _ in range(200):
        scores = np.sort(rng.random(int(rng.integers(2, 60))))[::-1]
        for s in GRIDS["relative"]:
            knee = find_knee(scores, "relative", s).knee_index
            assert find_knee(scores * 0.37 + 0.2, "relative", s).knee_index == knee
            assert find_knee(scores * 25.0 - 3.0, "relative", s).knee_index == knee


def test_relative_keeps_more_as_s_rises_and_moves_over_its_slider() -> None:
    rng = np.random.default_rng(5)
    distinct = []
    for _ in range(100):
        scores = np.sort(0.3 + 0.4 * rng.random(50) ** 3)[::-1]  # a cosine-like head over a long tail
        keeps = [find_knee(scores, "relative", s).keep for s in GRIDS["relative"]]
        assert keeps == sorted(keeps)
        distinct.append(len(set(keeps)))
    assert np.mean(distinct) >= 5  # the slider's steps move the cut, unlike Kneedle's on such curves
