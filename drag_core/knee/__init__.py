"""Knee detection: where to cut a ranking of tree nodes.

A ranking is a sequence of scores sorted descending (fused RRF scores or dense cosine scores, best first).
:func:`find_knee` validates it, asks a detector for the knee index and turns that into how many leading
items to keep (the knee item itself is kept), clamped to ``[min_keep, max_keep]`` and to the ranking length.

Methods (see ``docs/knee.md``):
    ``kneedle``: Satopää et al. 2011, offline; agrees with ``kneed.KneeLocator`` (convex, decreasing).
    ``chord``: point farthest below the line joining the first and last points.
    ``gap``: item just before the largest drop between consecutive scores.
    ``relative``: last item within ``S`` times the top's lead over the mean below the top (the default of
    ``SearchParams``: its slider moves the cut step by step).

Adding a detector:
    1. Create ``drag_core/knee/<name>.py`` exposing ``detect(scores: np.ndarray, sensitivity: float) ->
       int | None``, ``DEFAULT_SENSITIVITY`` and ``SENSITIVITIES`` (the values the app's slider offers, in
       ascending order, the default among them). ``detect`` receives a validated, non-increasing float array
       with at least one element and returns the 0-based index of the knee in it, or ``None`` when there is
       no knee. Document what the sensitivity means; a larger one must never keep fewer items. Set
       ``WITHDRAWN`` (curve → reason) for the curves where its slider cannot move the answer.
    2. Add one line ``"<name>": <name>,`` to ``MODULES`` below. Everything else follows from it.

Attributes:
    MODULES: registry mapping a method name to its module.
    DETECTORS: method name → its ``detect`` function.
    KNEE_METHODS: the registered method names, in registry order (``("kneedle", "chord", "gap", "relative")``).
    DEFAULT_SENSITIVITIES: method name → its default sensitivity (the one place defaults come from).
    SENSITIVITIES: method name → the sensitivities the slider offers for it (a larger one never keeps fewer).
    WITHDRAWN: method name → curve → why the app does not offer the method on that curve.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

import numpy as np

from drag_core.knee import chord, gap, kneedle, relative
from drag_core.knee.base import Detector, KneeResult, check_limits, check_sensitivity, cut, prepare_scores

MODULES: dict[str, ModuleType] = {
    "kneedle": kneedle,
    "chord": chord,
    "gap": gap,
    "relative": relative,
}

DETECTORS: dict[str, Detector] = {name: module.detect for name, module in MODULES.items()}
KNEE_METHODS: tuple[str, ...] = tuple(DETECTORS)
DEFAULT_SENSITIVITIES: dict[str, float] = {name: m.DEFAULT_SENSITIVITY for name, m in MODULES.items()}
SENSITIVITIES: dict[str, tuple[float, ...]] = {name: m.SENSITIVITIES for name, m in MODULES.items()}
WITHDRAWN: dict[str, dict[str, str]] = {name: m.WITHDRAWN for name, m in MODULES.items()}


def default_sensitivity(method: str) -> float:
    """The default sensitivity of a registered method; ``ValueError`` naming the choices for another."""
    if method not in DEFAULT_SENSITIVITIES:
        raise ValueError(f"unknown knee method {method!r}; expected one of {KNEE_METHODS}")
    return DEFAULT_SENSITIVITIES[method]


def find_knee(
    scores: Sequence[float] | np.ndarray,
    method: str = "kneedle",
    sensitivity: float | None = None,
    min_keep: int = 1,
    max_keep: int | None = None,
) -> KneeResult:
    """Find the knee of a descending ranking and decide how many leading items to keep.

    Args:
        scores: scores sorted descending (best first); tiny float-noise increases are tolerated.
        method: one of ``KNEE_METHODS``.
        sensitivity: detector-specific ``S >= 0`` (see the detector's module); None: the method's default.
        min_keep: keep at least this many items (when the ranking has that many).
        max_keep: keep at most this many items; ``None`` for no limit.

    Returns:
        A :class:`KneeResult`. Without a knee every item is kept (clamped by ``max_keep``); an empty
        ranking gives ``keep=0``.

    Raises:
        ValueError: unknown method, ``min_keep < 0``, ``max_keep < min_keep``, negative or non-finite
            sensitivity, NaN or infinite scores, scores not one-dimensional or not sorted descending.
    """
    detector = DETECTORS.get(method)
    if detector is None:
        raise ValueError(f"unknown knee method {method!r}; expected one of {KNEE_METHODS}")
    check_limits(min_keep, max_keep)
    if sensitivity is None:
        sensitivity = DEFAULT_SENSITIVITIES.get(method, kneedle.DEFAULT_SENSITIVITY)
    check_sensitivity(sensitivity)
    array = prepare_scores(scores)
    knee_index = detector(array, float(sensitivity)) if array.size else None
    return KneeResult(
        keep=cut(knee_index, array.size, min_keep, max_keep),
        knee_index=knee_index,
        method=method,
        sensitivity=sensitivity,
    )


__all__ = [
    "DEFAULT_SENSITIVITIES",
    "DETECTORS",
    "KNEE_METHODS",
    "MODULES",
    "SENSITIVITIES",
    "WITHDRAWN",
    "KneeResult",
    "default_sensitivity",
    "find_knee",
]
