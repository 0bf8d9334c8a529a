"""Search strategies, one module each. To add one: write a class with ``name``, ``params`` (the
``SearchParams`` fields it reads) and ``run(ctx)`` (see ``base.Strategy``) in its own module and register it
in ``STRATEGIES``."""

from drag_core.params import SCORE_SOURCES, SearchParams
from drag_core.search.adaptive import Adaptive
from drag_core.search.base import KNEE_PARAMS, SearchContext, SearchResult, Step, StepKind, Strategy
from drag_core.search.beam import Beam
from drag_core.search.branch import Branch
from drag_core.search.flat import Flat, FlatKnee
from drag_core.search.knee_beam import KneeBeam
from drag_core.store import DENSE, SPARSE

STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in (
        Flat(),
        FlatKnee(),
        Branch(),
        Beam(),
        KneeBeam(),
        Adaptive(),
        Flat("flat-dense", (DENSE,)),
        Flat("flat-sparse", (SPARSE,)),
    )
}
#: The strategies the Compare page and ``eval`` run when none are named: the baseline, the knee on a flat list,
#: the article's walks (branch, beam and its knee beam) and this project's adaptive.
DEFAULT_STRATEGIES: tuple[str, ...] = ("flat", "flat-knee", "branch", "beam", "knee-beam", "adaptive")


def readers(param: str) -> list[str]:
    """The registered strategies whose ``params`` hold ``param`` (the ones a change of it reruns), in order."""
    return [name for name, s in STRATEGIES.items() if param in s.params]


def strategy(name: str) -> Strategy:
    """The registered strategy called ``name``; ``ValueError`` naming the choices for an unknown one."""
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}")
    return STRATEGIES[name]


__all__ = [
    "DEFAULT_STRATEGIES",
    "KNEE_PARAMS",
    "SCORE_SOURCES",
    "STRATEGIES",
    "SearchContext",
    "SearchParams",
    "SearchResult",
    "Step",
    "StepKind",
    "Strategy",
    "readers",
    "strategy",
]
