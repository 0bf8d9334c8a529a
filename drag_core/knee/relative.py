"""Relative drop: keep the items whose score is within a share of the top's lead over the ranking's mean.

With ``top`` the best score and ``mean`` the mean score of the ranking, the kept items are those with

    score >= top - S * (top - mean)

— ``S`` is how far below the top an item may fall, measured in units of the top's lead over the mean. The
scores are sorted descending, so the kept items are a prefix; the knee is its last item.

What it is: a score-threshold truncation relative to the query's own score distribution (the normalised
curve of issue 19, lever c; see ``docs/knee.md`` and ``docs/evaluation.md``, "The knee decides"). It is not a
shape detector like Kneedle: it does not look for a bend, so a straight line has a cut too. Because it
depends on each score only through ``(top - score) / (top - mean)``, adding a constant to every score or
multiplying them by a positive factor does not move the cut: one ``S`` means the same on a query whose
cosines are all high as on one whose cosines are all low. Between two values of ``S`` the kept count
changes by the number of items whose normalised drop lies between them, so the Sensitivity slider moves the
cut step by step (measured on the development sets: 9–11 distinct answer sizes over the slider's values,
where Kneedle gives about 3; docs/knee.md).

``S = 0`` keeps the top item (and exact ties with it); ``S = 1`` everything at or above the mean (about half
of a 50-deep ranking); a larger ``S`` keeps at least as many items (monotone, the same direction as
Kneedle's ``S``). Fewer than two items, or no spread (all scores equal): no knee.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_SENSITIVITY", "WITHDRAWN", "FLAT_TOLERANCE", "SENSITIVITIES", "detect"]

#: The slider's values, calibrated on sections-train by ``bench/calibrate_sensitivities.py`` (issue 28): from the
#: smallest candidate on, each value is the farthest whose step changes at most a small share of the
#: (question, curve) answers of ``adaptive`` by more than 1.75×, on both curves, the least share that fits 24
#: values; the default kept (docs/knee.md, "Every slider moves the answer").
SENSITIVITIES: tuple[float, ...] = (
    0.02,
    0.07,
    0.08,
    0.11,
    0.14,
    0.17,
    0.23,
    0.31,
    0.38,
    0.43,
    0.5,
    0.53,
    0.59,
    0.66,
    0.74,
    0.78,
    0.82,
    0.87,
    0.92,
    1.5,
)
#: Chosen on SciFact train plus a fixed half of each page set (``docs/evaluation.md``).
DEFAULT_SENSITIVITY = 0.5
#: Curve (``score_source``) → why the app does not offer this detector on it (its slider cannot move the answer
#: there, measured by ``bench/calibrate_sensitivities.py`` and ``eval``'s ``slider_response``); empty: every curve.
WITHDRAWN: dict[str, str] = {}
#: Relative tolerance (times ``max(1, |top|)``) for "no spread" and for an item lying exactly on the floor.
FLAT_TOLERANCE = 1e-12


def detect(scores: np.ndarray, sensitivity: float) -> int | None:
    """Index of the last item with ``score >= top - S * (top - mean)``, or ``None``.

    Args:
        scores: descending scores, length >= 1.
        sensitivity: ``S >= 0``; larger keeps more.

    Returns:
        The 0-based index of the knee (the last kept item), or ``None`` when the ranking has fewer than two
        items or no spread.
    """
    if scores.size < 2:
        return None
    top = float(scores[0])
    lead = top - float(scores.mean())
    noise = FLAT_TOLERANCE * max(1.0, abs(top))
    if lead <= noise:
        return None
    floor = top - sensitivity * lead
    return int(np.count_nonzero(scores >= floor - noise)) - 1
