"""What every search strategy shares: parameters, the trace, the result, and the ranking step.

Search flows one way: query → store (fused rankings) → strategy (which nodes to compare, which to keep)
→ knee (how many of a ranking to keep) → trace (every step kept as data).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

from drag_core.fusion import DEFAULT_DENSE_WEIGHT
from drag_core.knee import find_knee
from drag_core.params import ScoreSource, SearchParams
from drag_core.store import DENSE, PASSAGES, Candidate, NodeStore, QueryVectors, Scope
from drag_core.types import Node

__all__ = [
    "FUSION_DEPTH",
    "KNEE_PARAMS",
    "ROOT_POOL",
    "Bound",
    "KneeRule",
    "SearchContext",
    "SearchResult",
    "Step",
    "StepKind",
    "Strategy",
    "suppress",
]

#: The parameters a knee cut reads (``SearchContext.knee_cut``).
KNEE_PARAMS = ("knee_method", "sensitivity", "min_keep", "max_keep", "score_source")
ROOT_POOL = 100
#: Each vector's list is read this deep (at least as deep as the result) before RRF fuses the lists, so a
#: top-5 ranking is the head of the same fused ranking a top-50 one is.
FUSION_DEPTH = 50


class Bound(StrEnum):
    """Which bound, if any, set a knee cut instead of the detector (a strategy's own cap is named by the
    ``SearchParams`` field it comes from, e.g. ``roots``)."""

    NONE = "none"  # the detector's count stood
    MIN_KEEP = "min_keep"  # raised to the fewest items a cut keeps
    MAX_KEEP = "max_keep"  # lowered to the most items a cut keeps
    ROOTS = "roots"  # lowered to ``adaptive``'s most seed pages


@dataclass(frozen=True)
class KneeRule:
    """How a knee cut reads and bounds a ranking.

    Attributes:
        method: the detector (a key of ``drag_core.knee.DETECTORS``).
        sensitivity: its sensitivity S.
        source: the curve it reads (``dense``: the sorted cosines; ``rrf``: the fused scores).
        min_keep: fewest items kept.
        max_keep: most items kept (None: no cap).
    """

    method: str
    sensitivity: float
    source: ScoreSource
    min_keep: int
    max_keep: int | None

    @classmethod
    def of(cls, params: SearchParams) -> KneeRule:
        """The rule the knee knobs of ``params`` set."""
        return cls(
            params.knee_method,
            float(params.sensitivity),
            params.score_source,
            params.min_keep,
            params.max_keep,
        )


class StepKind(StrEnum):
    """What a step ranked."""

    ROOTS = "roots"
    GENERATION = "generation"
    PARENT = "parent"
    LEAVES = "leaves"
    SEEDS = "seeds"
    PAGES = "pages"
    SPANS = "spans"
    BREADTH = "breadth"
    RANKING = "ranking"


@dataclass
class Step:
    """One ranking of a search and what the strategy did with it.

    Attributes:
        name: what was compared, for people (``roots``, ``generation 2``, ``parent 123``, ``leaves``).
        candidates: the fused ranking, best first (dense rank, sparse rank, fused score, cosine).
        curve: the scores the knee read (empty when no knee was used).
        curve_source: which curve that is, as read (``dense``: sorted cosines; ``rrf``: fused scores; None:
            no knee used).
        method, sensitivity: the detector and the sensitivity the cut used (None: no knee used).
        knee_index: 0-based index of the knee in ``curve`` (None: no knee found or none used).
        natural: how many items the detector alone keeps (``knee_index + 1``, every item without a knee;
            None: no knee used).
        cut: how many candidates the knee cut kept, after clamping (None: no cut).
        least, most: the bounds the cut was clamped to (``min_keep``; the smaller of ``max_keep`` and the
            strategy's cap, None: no cap).
        bound: which bound set the cut instead of the detector (``Bound`` or a strategy cap's field name;
            ``none``: the detector's count stood; None: no knee used), and ``bound_value`` its value.
        kept: ids the strategy kept from this ranking (after the cut, its own rules: ``kept_by``).
        kept_by: the strategy's rule that kept other than the cut, when one applies (fewer: ``suppression``,
            parent/child, in ``knee-beam``; ``span merge``; more: ``neighbouring pages``, in ``adaptive``);
            empty when ``kept`` is the cut.
        eliminated: ids it dropped, by the cut or by parent/child suppression.
        ms: milliseconds of this step (a generation's Qdrant call is shared by its steps).
        call: which Qdrant call of the search ranked it (steps of one generation share a call).
        kind: what was ranked (see ``StepKind``).
        node_id: the node the ranking is about (the parent of a ``PARENT`` step), else None.
        dense: the vector its dense list read (``DENSE``: page vectors; ``PASSAGES``: the best passages).
    """

    name: str
    candidates: list[Candidate]
    curve: list[float] = field(default_factory=list)
    curve_source: str | None = None
    method: str | None = None
    sensitivity: float | None = None
    knee_index: int | None = None
    natural: int | None = None
    cut: int | None = None
    least: int = 0
    most: int | None = None
    bound: str | None = None
    bound_value: int | None = None
    kept: list[int] = field(default_factory=list)
    kept_by: str = ""
    eliminated: list[int] = field(default_factory=list)
    ms: float = 0.0
    call: int = 0
    kind: StepKind = StepKind.RANKING
    node_id: int | None = None
    dense: str = DENSE

    def keep(self, kept: Sequence[Candidate]) -> list[Candidate]:
        """Record the candidates the strategy kept from this ranking; every other one is eliminated (by the
        knee cut, by parent/child suppression, or not followed). Returns ``kept``."""
        ids = {c.id for c in kept}
        self.kept = [c.id for c in kept]
        self.eliminated = [c.id for c in self.candidates if c.id not in ids]
        return list(kept)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["candidates"] = [asdict(c) for c in self.candidates]
        data["kind"] = self.kind.value
        return data


@dataclass
class SearchResult:
    """The outcome of one search.

    Attributes:
        strategy: the strategy's name.
        query: the query text.
        nodes: the final nodes (with page text for leaves), best first.
        scores: fused score of each final node in the last ranking it was in.
        trace: every step, in order.
        latency_ms: wall time of the search (query embedding included).
        round_trips: Qdrant calls made.
        params: the parameters used.
    """

    strategy: str
    query: str
    nodes: list[Node]
    scores: dict[int, float]
    trace: list[Step]
    latency_ms: float
    round_trips: int
    params: SearchParams

    @property
    def pages(self) -> set[tuple[str, int]]:
        """Distinct (file, page) pairs covered by the final nodes."""
        return {(n.file_name, p) for n in self.nodes for p in n.pages}

    def final_candidates(self) -> dict[int, Candidate]:
        """Each final node's record in the last ranking it was in — its cosine, BM25 score, rank in each list
        and fused score there (a cosine only an earlier ranking measured is carried over)."""
        wanted = {n.id for n in self.nodes}
        found: dict[int, Candidate] = {}
        for step in self.trace:
            for c in step.candidates:
                if c.id in wanted:
                    earlier = found.get(c.id)
                    if c.dense_score is None and earlier is not None and earlier.dense_score is not None:
                        c = replace(c, dense_score=earlier.dense_score)
                    found[c.id] = c
        return found

    def to_json(self, extra: Mapping[int, Mapping[str, Any]] | None = None) -> dict[str, Any]:
        """The JSON object printed by ``search --json``; each node also carries its cosine, BM25 score and rank
        in each list from the last ranking it was in, and ``extra[node id]`` (e.g. its snippet)."""
        final = self.final_candidates()
        extra = extra or {}
        return {
            "strategy": self.strategy,
            "query": self.query,
            "nodes": [
                {
                    "id": n.id,
                    "file_name": n.file_name,
                    "page_start": n.page_start,
                    "page_end": n.page_end,
                    "level": n.level,
                    "score": self.scores.get(n.id),
                    "title": n.title,
                    "cosine": final[n.id].dense_score if n.id in final else None,
                    "bm25": final[n.id].sparse_score if n.id in final else None,
                    "dense_rank": final[n.id].dense_rank if n.id in final else None,
                    "sparse_rank": final[n.id].sparse_rank if n.id in final else None,
                    **extra.get(n.id, {}),
                }
                for n in self.nodes
            ],
            "pages": len(self.pages),
            "trace": [step.to_dict() for step in self.trace],
            "latency_ms": round(self.latency_ms, 2),
            "round_trips": self.round_trips,
            "params": asdict(self.params),
        }


@dataclass
class SearchContext:
    """What a strategy works with: the store, the embedded query and the parameters."""

    store: NodeStore
    query: QueryVectors
    params: SearchParams
    calls: int = 0

    def rank(
        self,
        scopes: Sequence[Scope],
        kind: StepKind,
        names: Sequence[str],
        node_ids: Sequence[int] | None = None,
    ) -> list[Step]:
        """Rank every scope from one batch of Qdrant lists (``NodeStore.rank``); one step per scope, of
        ``kind``, named ``names`` (and about ``node_ids``, when given)."""
        fusing = any(len(scope.using) > 1 for scope in scopes)  # the weight of a fusion, if there is one
        weight = self.params.dense_weight if fusing else DEFAULT_DENSE_WEIGHT
        rankings, ms = self.store.rank(self.query, scopes, self.params.rrf_k, weight)
        self.calls += 1
        share = ms / max(1, len(rankings))
        about = list(node_ids) if node_ids is not None else [None] * len(rankings)
        held = self.store.holds_passages
        return [
            Step(
                name,
                ranking,
                ms=share,
                call=self.calls,
                kind=kind,
                node_id=node_id,
                dense=scope.dense if held else DENSE,
            )
            for name, ranking, node_id, scope in zip(names, rankings, about, scopes, strict=True)
        ]

    def dense_of(self, use: str) -> str:
        """The vector the dense list of the ranking ``use`` (one of ``params.PASSAGE_USES``) reads."""
        return PASSAGES if use in self.params.passage_uses else DENSE

    def _cosines(self, ids: tuple[int, ...], dense: str) -> dict[int, float | None]:
        """The cosines of these points by the vector ``dense``, in one more Qdrant call."""
        scope = Scope(ids=ids, limit=len(ids), using=(DENSE,), dense=dense)
        (found,), _ = self.store.rank(self.query, [scope], self.params.rrf_k)
        return {c.id: c.dense_score for c in found}

    def add_cosines(self, step: Step) -> None:
        """Give every candidate its cosine: those only the sparse list brought in get it from one more Qdrant
        call, so a cosine curve never mixes real scores with stand-ins."""
        missing = tuple(c.id for c in step.candidates if c.dense_score is None)
        if not missing:
            return
        cosine = self._cosines(missing, step.dense)
        step.candidates = [
            c if c.dense_score is not None else replace(c, dense_score=cosine.get(c.id))
            for c in step.candidates
        ]

    def cosine_curve(self, step: Step) -> list[float]:
        """The sorted cosines a knee reads: the step's own dense scores, or, where its ranking read passages
        and the ``curve`` use is off, the page vectors' cosines of its candidates."""
        if step.dense == PASSAGES and "curve" not in self.params.passage_uses and step.candidates:
            cosine = self._cosines(tuple(c.id for c in step.candidates), DENSE)
            return sorted((cosine.get(c.id) or 0.0 for c in step.candidates), reverse=True)
        self.add_cosines(step)
        return sorted((c.dense_score or 0.0 for c in step.candidates), reverse=True)

    def knee_cut(
        self, step: Step, rule: KneeRule | None = None, cap: int | None = None, cap_name: str = "cap"
    ) -> list[Candidate]:
        """Cut a step's ranking at the knee of its score curve with ``rule`` (by default the knee knobs of
        the parameters), keeping at most ``max_keep`` and ``cap`` (a strategy's own bound, named ``cap_name``
        in the trace) items; records on the step the curve as read, the rule, the detector's own count, the
        cut, the bound that set it, and what it kept."""
        rule = rule or KneeRule.of(self.params)
        if rule.source is ScoreSource.DENSE:
            curve = self.cosine_curve(step)
        else:
            curve = [c.fused for c in step.candidates]
        uppers = [
            (name, x) for name, x in ((cap_name, cap), (Bound.MAX_KEEP, rule.max_keep)) if x is not None
        ]
        most = min((x for _, x in uppers), default=None)
        least = min(rule.min_keep, len(curve), *(x for _, x in uppers))
        result = find_knee(curve, rule.method, rule.sensitivity, least, most)
        natural = len(curve) if result.knee_index is None else result.knee_index + 1
        step.curve, step.curve_source = curve, rule.source.value
        step.method, step.sensitivity = rule.method, rule.sensitivity
        step.knee_index, step.natural, step.cut = result.knee_index, natural, result.keep
        step.least, step.most = least, most
        step.bound, step.bound_value = _binding(natural, result.keep, least, uppers)
        return step.keep(step.candidates[: result.keep])


def _binding(natural: int, cut: int, least: int, uppers: Sequence[tuple[str, int]]) -> tuple[str, int | None]:
    """Which bound made ``cut`` differ from the detector's ``natural`` count, and its value: an upper bound
    that lowered it (the strategy's cap before ``max_keep`` when both equal the cut), ``min_keep`` that raised
    it, or none."""
    if cut < natural:
        name = next(name for name, value in uppers if value == cut)
        return str(name), cut
    if cut > natural:
        return Bound.MIN_KEEP.value, least
    return Bound.NONE.value, None


class Strategy(Protocol):
    """A search strategy: one module each under ``drag_core/search``, registered in ``STRATEGIES``.

    Attributes:
        name: the strategy's name.
        params: the ``SearchParams`` fields it reads (Compare reruns it only when one of them changes).
    """

    name: str
    params: tuple[str, ...]

    def run(self, ctx: SearchContext) -> tuple[list[Candidate], list[Step]]:
        """The final candidates (best first) and the steps that led to them."""
        ...


def suppress(ranking: Sequence[Candidate], width: int | None) -> list[Candidate]:
    """Walk a ranking best first: a node survives unless its parent or one of its children already survived;
    stop after ``width`` survivors (None: no limit). Returns the survivors."""
    survivors: list[Candidate] = []
    alive: set[int] = set()
    for candidate in ranking:
        related = candidate.parent_id in alive or any(child in alive for child in candidate.child_ids)
        if related or (width is not None and len(survivors) >= width):
            continue
        survivors.append(candidate)
        alive.add(candidate.id)
    return survivors
