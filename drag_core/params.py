"""``SearchParams``: the knobs of every search strategy, with the library's only defaults.

Its own module (it needs nothing but the RRF convention) so that the settings can carry the default
parameters of an installation (``Settings.search``: these defaults with ``DRAG_RRF_K`` applied) without
importing the strategies.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from drag_core.fusion import DEFAULT_DENSE_WEIGHT, DEFAULT_RRF_K, rrf_weights
from drag_core.knee import KNEE_METHODS, default_sensitivity

__all__ = [
    "DEFAULT_KNEE_METHOD",
    "PASSAGE_USES",
    "ROOT_RANKS",
    "SCORE_SOURCES",
    "ScoreSource",
    "SearchParams",
]

#: The detector ``adaptive`` and ``flat-knee`` cut with by default (its slider moves the cut step by step;
#: measured in docs/evaluation.md, "The knee decides").
DEFAULT_KNEE_METHOD = "relative"


class ScoreSource(StrEnum):
    """The curve a knee cut reads."""

    RRF = "rrf"  # the fused scores: functions of ranks only
    DENSE = "dense"  # the raw dense cosines, sorted


SCORE_SOURCES: tuple[str, ...] = tuple(ScoreSource)
#: The rankings whose dense list can read a page's passages (its best passage, MaxSim) instead of its page
#: vector: ``flat`` (the leaves ranking of flat, flat-dense and flat-knee), ``seeds`` and ``pages``
#: (``adaptive``'s two rankings), and ``curve`` (a knee's cosine curve reads the best passages' cosines where
#: its ranking read passages; without it, the page vectors' cosines). ``seeds-both``: ``adaptive``'s seed
#: ranking fuses both dense readings, page vector and best passage, with BM25 (three lists; not with ``seeds``).
PASSAGE_USES = ("flat", "seeds", "seeds-both", "pages", "curve")
#: How the walks' roots are ranked (``drag_core.search.roots``): by the document's best page, or by the roots' own
#: vectors (the article's).
ROOT_RANKS = ("best-page", "root-vectors")


@dataclass(frozen=True)
class SearchParams:
    """Knobs of every strategy (each uses the ones that concern it).

    Attributes:
        top_k: nodes returned by ``flat``.
        roots: roots kept by ``branch`` (and the first beam of ``beam``, capped by ``beam_width``); the most seed
            pages ``adaptive`` keeps.
        beam_width: survivors per generation of ``beam``.
        max_iterations: generations at most for the beam searches.
        rrf_k: classic RRF constant k in 1/(k + rank).
        dense_weight: the dense list's share of the fusion against BM25's, 0 … 1: 0.5 weighs both alike (classic
            RRF), higher trusts the dense (meaning) list more, lower the BM25 (keyword) list.
        knee_method: knee detector (see ``drag_core.knee``).
        sensitivity: the detector's sensitivity S; not given: the detector's own (relative 0.5, kneedle 1.0,
            ``drag_core.knee.DEFAULT_SENSITIVITIES``), also when ``with_`` changes the detector alone.
        min_keep: fewest items a knee cut keeps.
        max_keep: most items a knee cut keeps (None: no cap): a safety rail, not the usual cut.
        score_source: the curve the knee reads: ``dense`` (raw cosine scores, the default) or ``rrf`` (fused
            scores, functions of ranks only: their knee follows list length and k more than relevance).
        knee_pool: how many leaves ``flat-knee`` (and ``adaptive``, in its final ranking) rank before cutting.
        span_merge: ``adaptive`` returns a parent instead of its pages when at least this many of its
            children survive the cut (0: never).
        neighbours: ``adaptive`` also keeps a page next to one it kept (same document, the page before or
            after) when that page is among the first ``neighbours`` of its pages' ranking (0: never): the
            rest of a section that runs over the page break, which the knee alone cut.
        doc_breadth: ``adaptive`` never drops a document that the first ``doc_breadth`` pages of the flat
            hybrid ranking show (flat top-k with k = ``doc_breadth``): each such document its answer lacks adds
            its best page there (0: off).
        passages: which rankings read a page's passages instead of its page vector in their dense list: the
            uses of ``PASSAGE_USES`` joined by ``+`` (``flat+pages``), or ``off``. An index without passages
            ranks by page vectors whatever this says.
        root_rank: how ``branch``, ``beam`` and ``knee-beam`` rank the roots they start from: ``best-page`` (a
            document by its best page in the flat hybrid ranking) or ``root-vectors`` (by the roots' own vectors,
            as the article does); ``ROOT_RANKS``.
    """

    top_k: int = 5
    roots: int = 3
    beam_width: int = 5
    max_iterations: int = 10
    rrf_k: int = DEFAULT_RRF_K
    dense_weight: float = DEFAULT_DENSE_WEIGHT
    knee_method: str = DEFAULT_KNEE_METHOD
    sensitivity: float | None = None
    min_keep: int = 1
    max_keep: int | None = 20
    score_source: ScoreSource = ScoreSource.DENSE
    knee_pool: int = 50
    span_merge: int = 0
    neighbours: int = 3
    doc_breadth: int = 5
    passages: str = "flat+seeds-both+pages+curve"
    root_rank: str = "best-page"

    def __post_init__(self) -> None:
        if self.score_source not in SCORE_SOURCES:
            raise ValueError(f"score_source must be one of {SCORE_SOURCES}")
        object.__setattr__(self, "score_source", ScoreSource(self.score_source))
        if self.knee_method not in KNEE_METHODS:
            raise ValueError(f"unknown knee method {self.knee_method!r}; expected one of {KNEE_METHODS}")
        if self.sensitivity is None:
            object.__setattr__(self, "sensitivity", default_sensitivity(self.knee_method))
        if min(self.top_k, self.roots, self.beam_width, self.max_iterations, self.knee_pool) < 1:
            raise ValueError("top_k, roots, beam_width, max_iterations and knee_pool must be ≥ 1")
        rrf_weights(self.dense_weight)  # 0 … 1, or a ValueError that says so
        if min(self.span_merge, self.neighbours, self.doc_breadth) < 0:
            raise ValueError("span_merge, neighbours and doc_breadth must be ≥ 0")
        if self.root_rank not in ROOT_RANKS:
            raise ValueError(f"root_rank must be one of {ROOT_RANKS}, not {self.root_rank!r}")
        unknown = set(self.passage_uses) - set(PASSAGE_USES)
        if unknown or not self.passages or {"seeds", "seeds-both"} <= self.passage_uses:
            raise ValueError(
                f"passages must be 'off' or uses of {PASSAGE_USES} joined by '+' (not both seeds and "
                f"seeds-both), not {self.passages!r}"
            )

    @property
    def passage_uses(self) -> frozenset[str]:
        """The uses ``passages`` names."""
        return frozenset() if self.passages == "off" else frozenset(self.passages.split("+"))

    def with_(self, **changes: Any) -> SearchParams:
        """A copy with ``changes``; a new ``knee_method`` without a ``sensitivity`` takes that detector's
        default (one detector's S means nothing to another)."""
        if changes.get("knee_method", self.knee_method) != self.knee_method:
            changes.setdefault("sensitivity", None)
        return replace(self, **changes)
