"""Largest-gap (cliff) knee detector.

The gaps of a descending ranking are ``g[i] = scores[i] - scores[i + 1]``. The knee is the item just before
the largest gap, so the items above the cliff are kept; it only counts when that gap clearly stands out
from the others.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_SENSITIVITY", "WITHDRAWN", "SENSITIVITIES", "TOLERANCE", "detect"]

#: The slider's values. ``S`` only decides whether the largest gap counts, never where it is, so a gap cut
#: takes at most two sizes over any grid (the knee, or everything); the app offers it on no curve (``WITHDRAWN``).
SENSITIVITIES: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0, 10.0, 15.0)
#: The cliff must be at least twice a typical gap.
DEFAULT_SENSITIVITY = 1.0
#: Curve (``score_source``) → why the app does not offer this detector on it (its slider cannot move the answer
#: there, measured by ``bench/calibrate_sensitivities.py`` and ``eval``'s ``slider_response``); empty: every curve.
WITHDRAWN: dict[str, str] = dict.fromkeys(
    ("dense", "rrf"),
    "S decides only whether the largest drop counts, never where it is, so the slider gives at most two answer "
    "sizes (1.1–1.6 on average, measured: docs/knee.md).",
)

#: Relative tolerance (times the score range) below which a gap's excess is float noise.
TOLERANCE = 1e-9


def detect(scores: np.ndarray, sensitivity: float) -> int | None:
    """Index just before the largest gap, or ``None`` when no gap stands out.

    With ``g`` the largest gap (the first one if several tie) and ``m`` the mean of all other gaps, the
    knee is declared when ``g - m > S * m`` (beyond float noise): the cliff must exceed a typical gap by at
    least ``S`` typical gaps. ``S = 0`` accepts any largest gap that is strictly larger than the mean of
    the others; ``S = 1`` needs at least twice that mean. Higher ``S`` is stricter, so it finds a knee
    less often and, as "no knee" keeps everything, keeps as many items or more; the knee position itself
    never depends on ``S``. Equal gaps (a linear or flat ranking) and rankings with fewer than three
    points have no knee.

    Args:
        scores: descending scores, length >= 1.
        sensitivity: ``S >= 0``.

    Returns:
        The 0-based index of the knee in ``scores``, or ``None``.
    """
    if scores.size < 3:
        return None
    gaps = scores[:-1] - scores[1:]
    largest = int(np.argmax(gaps))
    others = np.delete(gaps, largest).mean()
    noise = TOLERANCE * float(scores[0] - scores[-1])
    if gaps[largest] - others - sensitivity * others > noise:
        return largest
    return None
