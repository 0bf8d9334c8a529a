"""Kneedle: the offline knee detector of Satopää et al.

Reference:
    Ville Satopää, Jeannie Albrecht, David Irwin, Barath Raghavan,
    "Finding a 'Kneedle' in a Haystack: Detecting Knee Points in System Behavior",
    31st International Conference on Distributed Computing Systems Workshops (ICDCS Workshops), 2011.

Our input is always a convex, decreasing curve: ``x`` is the rank ``0 .. n-1`` and ``y`` the score. The
result agrees with ``kneed.KneeLocator(range(n), scores, S=S, curve="convex", direction="decreasing")``
with kneed's defaults (``interp_method="interp1d"``, ``online=False``: the *first* knee found is returned,
earlier knees are never revised). See ``docs/knee.md`` for the details and the edge cases.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_SENSITIVITY", "WITHDRAWN", "SENSITIVITIES", "detect", "difference_curve", "local_maxima"]

#: The slider's values: dense where Kneedle's knees move on typical curves (docs/knee.md, "The Sensitivity
#: slider"). Not recalibrated in issue 28: no grid helps, the app offers Kneedle on no curve (``WITHDRAWN``).
SENSITIVITIES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0)
#: The paper's default.
DEFAULT_SENSITIVITY = 1.0
#: Curve (``score_source``) → why the app does not offer this detector on it (its slider cannot move the answer
#: there, measured by ``bench/calibrate_sensitivities.py`` and ``eval``'s ``slider_response``); empty: every curve.
WITHDRAWN: dict[str, str] = dict.fromkeys(
    ("dense", "rrf"),
    "its knee jumps between the local maxima of the difference curve: over its slider 44–69 % of questions "
    "have a step that multiplies the answer by more than 2.5× (measured: docs/knee.md).",
)


def difference_curve(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Normalised x values and the Kneedle difference curve of a descending, non-flat ranking.

    Both axes are scaled to [0, 1]; the scores are flipped (``1 - y``) so that the curve becomes concave
    and increasing, and the difference curve is ``flipped - x``. A point far above the diagonal, i.e. a
    large difference value, is a knee candidate.
    """
    n = scores.size
    x_norm = np.arange(n, dtype=float) / (n - 1)
    low, high = scores.min(), scores.max()
    y_norm = (scores - low) / (high - low)
    return x_norm, (y_norm.max() - y_norm) - x_norm


def local_maxima(values: np.ndarray) -> np.ndarray:
    """Mask of local maxima: points ``>=`` both neighbours; an end point is compared with its one neighbour.

    Non-strict, so every point of a plateau is a maximum, and index 0 is a maximum whenever
    ``values[0] >= values[1]``.
    """
    before = np.concatenate((values[:1], values[:-1]))
    after = np.concatenate((values[1:], values[-1:]))
    return (values >= before) & (values >= after)


def detect(scores: np.ndarray, sensitivity: float) -> int | None:
    """Index of the first Kneedle knee of a descending ranking, or ``None``.

    Walking the difference curve ``diff`` from left to right, every local maximum ``i`` becomes the
    candidate and sets the threshold ``T_i = diff[i] - S * mean(x[k+1] - x[k])`` (the mean x step is
    ``1/(n-1)``, computed as a mean like kneed does so that rounding ties go the same way). The first time
    the next point drops strictly below the current threshold, the candidate is the knee. The last point
    can only be the one that drops, never a knee.

    Local minima need no handling: between a local minimum and the next maximum the difference curve does
    not decrease, so with ``S >= 0`` it cannot cross a threshold there (kneed's "no detection after a
    minimum" rule therefore never changes the answer). Curves with fewer than three points or with all
    scores equal have no knee.

    Args:
        scores: descending scores, length >= 1.
        sensitivity: Kneedle's ``S >= 0``; larger is more conservative (later knee or none).

    Returns:
        The 0-based index of the knee in ``scores``, or ``None``.
    """
    n = scores.size
    if n < 3 or scores[0] == scores[-1]:
        # n == 2: the difference curve is identically 0, so no drop is possible; flat: nothing to normalise.
        return None
    x_norm, diff = difference_curve(scores)
    maxima = local_maxima(diff)
    step = np.abs(np.diff(x_norm).mean())

    candidate: int | None = None
    threshold = 0.0
    for i in range(n - 1):
        if maxima[i]:
            candidate, threshold = i, diff[i] - sensitivity * step
        if candidate is not None and diff[i + 1] < threshold:
            return candidate
    return None
