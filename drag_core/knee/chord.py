"""Chord (maximum distance to the line through the end points) knee detector.

After scaling ranks and scores to [0, 1], the chord joins the first point ``(0, 1)`` and the last point
``(1, 0)``. A convex, decreasing ranking sags below it; the knee is where it sags most. The signed distance
below the chord is ``(1 - x - y) / sqrt(2)``, which is the Kneedle difference curve divided by ``sqrt(2)``:
the chord knee is the *global* maximum of that curve, while Kneedle takes the first local maximum that is
followed by a large enough drop.

The sensitivity slides the knee along the sag, in one direction (a larger ``S`` keeps more): from the start
of the sag to its deepest point (``S`` 0 → 1) and on to its end (``S`` 1 → 2). ``S = 1``, the deepest point,
is the default.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DEFAULT_SENSITIVITY",
    "WITHDRAWN",
    "MAX_SENSITIVITY",
    "ON_CHORD",
    "SENSITIVITIES",
    "detect",
    "distances_below_chord",
]

#: The slider's values, calibrated on sections-train by ``bench/calibrate_sensitivities.py`` (issue 28) on the
#: dense curve, the only one it is offered on: from the smallest candidate on, each value is the farthest whose
#: step changes at most a small share of ``adaptive``'s answers by more than 1.75×, the least share that fits
#: 24 values; the default kept (docs/knee.md, "Every slider moves the answer"). A larger ``S`` keeps more.
SENSITIVITIES: tuple[float, ...] = (
    0.0,
    0.3,
    0.525,
    0.6,
    0.625,
    0.9,
    0.975,
    1.0,
    1.05,
    1.075,
    1.125,
    1.225,
    1.375,
    1.4,
    1.9,
    2.0,
)
#: The deepest point of the sag (the same knee as before the slider was turned round, issue 28).
DEFAULT_SENSITIVITY = 1.0
#: Curve (``score_source``) → why the app does not offer this detector on it (its slider cannot move the answer
#: there, measured by ``bench/calibrate_sensitivities.py`` and ``eval``'s ``slider_response``); empty: every curve.
WITHDRAWN: dict[str, str] = {
    "rrf": "on the fused scores 53–81 % of questions have a step of its slider that multiplies the answer by "
    "more than 2.5× (measured: docs/knee.md).",
}
#: ``S`` above this is treated as this: the last point below the chord.
MAX_SENSITIVITY = 2.0

#: Distances (in normalised units) at or below this are treated as "on the chord" (float noise of a line).
ON_CHORD = 1e-9


def distances_below_chord(scores: np.ndarray) -> np.ndarray:
    """Signed perpendicular distance of each point below the chord (negative above it), in normalised units.

    ``scores`` must be descending with ``scores[0] > scores[-1]`` and at least two points.
    """
    n = scores.size
    x_norm = np.arange(n, dtype=float) / (n - 1)
    y_norm = (scores - scores[-1]) / (scores[0] - scores[-1])
    return (1.0 - x_norm - y_norm) / np.sqrt(2.0)


def detect(scores: np.ndarray, sensitivity: float) -> int | None:
    """Index of the chord knee of a descending ranking at sensitivity ``S``, or ``None``.

    With ``d`` the distances below the chord and ``D`` their maximum: for ``S <= 1`` the knee is the FIRST
    point with ``d >= S * D``; for ``S > 1`` the LAST point with ``d >= (2 - S) * D``. ``S = 1`` gives the
    farthest point (the last one if several tie), ``S = 0`` the first point strictly below the chord and
    ``S = 2`` (or more) the last one. Every step up moves the knee right or leaves it, so a larger ``S``
    never keeps fewer items. No knee when no point lies below the chord (linear, concave or flat curves,
    fewer than three points).

    Args:
        scores: descending scores, length >= 1.
        sensitivity: ``S >= 0``, clamped to at most ``MAX_SENSITIVITY``.

    Returns:
        The 0-based index of the knee in ``scores``, or ``None``.
    """
    if scores.size < 3 or scores[0] == scores[-1]:
        return None
    distance = distances_below_chord(scores)
    farthest = float(distance.max())
    if farthest <= ON_CHORD:
        return None
    below = distance > ON_CHORD
    s = min(sensitivity, MAX_SENSITIVITY)
    if s < 1.0:
        return int(np.flatnonzero(below & (distance >= s * farthest))[0])
    return int(np.flatnonzero(below & (distance >= (2.0 - s) * farthest))[-1])
