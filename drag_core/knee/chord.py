"""Chord (maximum distance to the line through the end points) knee detector.

After scaling ranks and scores to [0, 1], the chord joins the first point ``(0, 1)`` and the last point
``(1, 0)``. A convex, decreasing ranking sags below it; the knee is where it sags most. The signed distance
below the chord is ``(1 - x - y) / sqrt(2)``, which is the Kneedle difference curve divided by ``sqrt(2)``:
the chord knee is the *global* maximum of that curve, while Kneedle takes the first local maximum that is
followed by a large enough drop.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_SENSITIVITY", "ON_CHORD", "SENSITIVITIES", "detect", "distances_below_chord"]

#: The slider's values: the whole useful range (``S > 1`` is treated as 1); a larger ``S`` keeps fewer.
SENSITIVITIES: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: The farthest point itself.
DEFAULT_SENSITIVITY = 1.0

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
    """Index of the chord knee of a descending ranking, or ``None``.

    The knee is the LAST point whose distance below the chord is at least ``S * max_distance`` (and
    strictly positive). ``S = 1`` gives the farthest point itself (the last one if several tie); a smaller
    ``S`` moves the knee right, so more items are kept. ``S > 1`` is treated as 1 and ``S = 0`` selects the
    last point that is strictly below the chord. No knee when no point lies below the chord (linear,
    concave or flat curves, fewer than three points).

    Args:
        scores: descending scores, length >= 1.
        sensitivity: ``S >= 0``, clamped to at most 1.

    Returns:
        The 0-based index of the knee in ``scores``, or ``None``.
    """
    if scores.size < 3 or scores[0] == scores[-1]:
        return None
    distance = distances_below_chord(scores)
    farthest = float(distance.max())
    if farthest <= ON_CHORD:
        return None
    level = min(sensitivity, 1.0) * farthest
    qualifying = np.flatnonzero((distance >= level) & (distance > ON_CHORD))
    return int(qualifying[-1])
