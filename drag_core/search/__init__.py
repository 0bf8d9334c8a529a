"""Search strategies, one module each. To add one: write a class with ``name`` and ``run(ctx)`` (see
``base.Strategy``) in its own module and register it in ``STRATEGIES``."""

from drag_core.search.adaptive import Adaptive
from drag_core.search.base import SearchContext, SearchParams, SearchResult, Step, Strategy
from drag_core.search.beam import Beam
from drag_core.search.branch import Branch
from drag_core.search.flat import Flat, FlatKnee
from drag_core.store import DENSE, SPARSE

STRATEGIES: dict[str, Strategy] = {
    s.name: s
    for s in (
        Flat(),
        FlatKnee(),
        Branch(),
        Beam(),
        Adaptive(),
        Flat("flat-dense", (DENSE,)),
        Flat("flat-sparse", (SPARSE,)),
    )
}

__all__ = ["STRATEGIES", "SearchContext", "SearchParams", "SearchResult", "Step", "Strategy"]
