"""Shared pieces of the knee package: the result record, input checks and the cut rule.

Detectors never see raw user input: :func:`prepare_scores` validates and cleans it first, and
:func:`cut` turns a detector's answer into the number of items to keep.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "SORT_TOLERANCE",
    "Detector",
    "KneeResult",
    "check_limits",
    "check_sensitivity",
    "cut",
    "prepare_scores",
]

#: Relative tolerance (times the largest absolute score) for an "upward" step that is still accepted as
#: float noise in a descending ranking.
SORT_TOLERANCE = 1e-9

#: Signature of a detector: ``detect(scores, sensitivity) -> knee index or None``.
Detector = Callable[[np.ndarray, float], int | None]


@dataclass(frozen=True)
class KneeResult:
    """Where a ranking was cut.

    Attributes:
        keep: how many leading items of the ranking to keep; ``min_keep <= keep <= max_keep`` and
            ``keep <= len(scores)`` (0 for an empty ranking).
        knee_index: 0-based index of the detected knee in ``scores``; ``None`` when no knee was found
            (then ``keep`` is every item, clamped by ``max_keep``).
        method: name of the detector that was used (a key of ``KNEE_METHODS``).
        sensitivity: the sensitivity passed to the detector, as given by the caller.
    """

    keep: int
    knee_index: int | None
    method: str
    sensitivity: float


def check_limits(min_keep: int, max_keep: int | None) -> None:
    """Raise ``ValueError`` unless ``0 <= min_keep <= max_keep`` (``max_keep=None`` means no upper limit)."""
    if min_keep < 0:
        raise ValueError(f"min_keep must be >= 0, got {min_keep}")
    if max_keep is not None and max_keep < min_keep:
        raise ValueError(f"max_keep ({max_keep}) must be >= min_keep ({min_keep})")


def check_sensitivity(sensitivity: float) -> float:
    """Return ``sensitivity`` as a float; raise ``ValueError`` if it is negative, NaN or infinite."""
    value = float(sensitivity)
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"sensitivity must be a finite number >= 0, got {sensitivity!r}")
    return value


def prepare_scores(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Validate a ranking and return it as a non-increasing 1-D float array.

    Raises ``ValueError`` for non-1-D input, NaN or infinite scores, or scores that are not sorted
    descending. An increase of at most ``SORT_TOLERANCE * max(|scores|)`` between neighbours is accepted as
    float noise and flattened (each score is lowered to the running minimum), so detectors can rely on
    ``scores[i] >= scores[i + 1]``.
    """
    array = np.asarray(scores, dtype=float)
    if array.ndim != 1:
        raise ValueError(f"scores must be one-dimensional, got shape {array.shape}")
    if array.size == 0:
        return array
    if np.isnan(array).any():
        raise ValueError("scores contain NaN")
    if not np.isfinite(array).all():
        raise ValueError("scores contain an infinite value")
    rises = np.diff(array)
    tolerance = SORT_TOLERANCE * float(np.max(np.abs(array)))
    if rises.size and float(rises.max()) > tolerance:
        where = int(np.argmax(rises))
        raise ValueError(
            f"scores must be sorted descending: scores[{where + 1}]={array[where + 1]!r} > "
            f"scores[{where}]={array[where]!r}"
        )
    return np.minimum.accumulate(array)


def cut(knee_index: int | None, n: int, min_keep: int, max_keep: int | None) -> int:
    """Number of items to keep for a ranking of ``n`` items.

    ``knee_index + 1`` (the knee item itself is kept) or ``n`` when there is no knee, then raised to
    ``min_keep``, lowered to ``max_keep`` and finally to ``n``.
    """
    keep = n if knee_index is None else knee_index + 1
    keep = max(keep, min_keep)
    if max_keep is not None:
        keep = min(keep, max_keep)
    return min(keep, n)
