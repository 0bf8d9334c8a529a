"""Run strategies over a data set's queries and measure each answer.

Every query is embedded once and searched by every run (a strategy with its parameters), so the runs see the
same vectors; ``latency_ms`` is the search itself (Qdrant calls and strategy logic), without that embedding.
Each query is also ranked once by flat hybrid search ``FLAT_DEPTH`` deep, so every run is judged against flat
at its own page budget (``gain_vs_flat``, see ``budget``) and against an oracle cut of that ranking
(``oracle_share``, see ``diagnostics``).

Knee diagnostics (``diagnostics``): every knee cut's rule is read from the trace; for a run whose strategy
reads ``sensitivity``, each query is searched again at every value the app's Sensitivity slider offers for the
run's detector (``slider``: on by default) — with the same query vectors, and once per distinct search: a run
of the evaluation that is one of those values (a sweep of the sensitivity) is not searched again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from drag_core.engine import Engine
from drag_core.evaluation import diagnostics
from drag_core.evaluation.budget import FLAT_DEPTH, FlatCurve, doc_hit, judge
from drag_core.evaluation.datasets import Dataset, Query
from drag_core.evaluation.metrics import (
    Unit,
    bootstrap_interval,
    mean,
    mrr_at_k,
    ndcg_at_k,
    nonrelevant_discarded,
    recall_at_k,
    right_sized_recall,
)
from drag_core.knee import SENSITIVITIES
from drag_core.search import SearchParams, SearchResult
from drag_core.search import strategy as strategy_named
from drag_core.text import approx_tokens
from drag_core.types import Node

__all__ = [
    "BUDGET_METRICS",
    "DIAGNOSTIC_METRICS",
    "METRICS",
    "Outcome",
    "PageSizes",
    "Progress",
    "Report",
    "RunSpec",
    "Summary",
    "evaluate",
    "measure",
    "param_value",
    "parse_spec",
    "knee_diagnostics",
    "ranked_units",
    "slider_pages",
    "summarise",
]

METRICS = (
    "recall@1",
    "recall@5",
    "recall@10",
    "ndcg@10",
    "mrr@10",
    "right_sized_recall",
    "pages_returned",
    "tokens_returned",
    "nonrelevant_discarded",
    "latency_ms",
    "doc_hit",
)
#: Judged against flat at the run's own mean pages (``budget.judge``), not per query; the last at each question's
#: own pages.
BUDGET_METRICS = ("gain_vs_flat", "flat_recall_at_pages", "flat_doc_hit", "gain_vs_flat_per_query")
#: One number per run from the knee diagnostics (None where they do not apply): the share of final cuts the
#: knee rule set, the mean distinct answer sizes over the slider, Spearman's ρ between pages returned and
#: relevant pages, the oracle's recall at the run's mean pages and the share of its gap over flat captured.
DIAGNOSTIC_METRICS = (
    "knee_decides",
    "slider_sizes",
    "spearman_pages_relevant",
    "oracle_recall_at_pages",
    "oracle_share",
)
Progress = Callable[[int, int, str], None]
#: Answer sizes per search, remembered for one query: (strategy, parameters) → pages returned.
Sizes = dict[tuple[str, SearchParams], int]


@dataclass(frozen=True)
class RunSpec:
    """One strategy with its parameters, as one column of a report.

    Attributes:
        label: how the run is named in tables (the spec text, e.g. ``adaptive:sensitivity=2``).
        strategy: a key of ``STRATEGIES``.
        params: the search parameters.
    """

    label: str
    strategy: str
    params: SearchParams


def parse_spec(text: str, base: SearchParams) -> RunSpec:
    """``STRATEGY`` or ``STRATEGY:field=value,field=value`` (fields of ``SearchParams``) → a run."""
    strategy, _, settings = text.strip().partition(":")
    strategy_named(strategy)  # ValueError for an unknown one
    changes: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in settings.split(","))):
        name, _, value = item.partition("=")
        changes[name.strip()] = param_value(name.strip(), value.strip())
    return RunSpec(text.strip(), strategy, base.with_(**changes))


def param_value(name: str, value: str) -> Any:
    """A ``SearchParams`` field value from text, typed like the field's default (``none`` for no value)."""
    made = SearchParams()  # the defaults as made: the default detector's own sensitivity is a float
    defaults = {f.name: getattr(made, f.name) for f in fields(SearchParams)}
    if name not in defaults:
        raise ValueError(f"unknown search parameter {name!r}; choose from {', '.join(defaults)}")
    if value.lower() == "none":
        return None
    kind = type(defaults[name])
    return kind(float(value)) if kind is int else kind(value)


@dataclass
class Outcome:
    """One run's answer to one query, measured.

    Attributes:
        query_id: the query.
        label: the run.
        values: metric name → value (None where undefined, e.g. ``nonrelevant_discarded`` without a knee).
        units: the distinct units returned, best first.
        relevant: how many units the query's qrels hold.
        cut_rules: the rule that set each knee cut of the search, in trace order (``diagnostics.cut_rule``).
        slider_pages: pages returned at each value of the Sensitivity slider for the run's detector (empty
            when the strategy does not read the sensitivity or the slider was not measured).
    """

    query_id: str
    label: str
    values: dict[str, float | None]
    units: list[Unit]
    relevant: int = 0
    cut_rules: list[str] = field(default_factory=list)
    slider_pages: list[int] = field(default_factory=list)


@dataclass
class Summary:
    """One run over all queries.

    Attributes:
        spec: the run.
        means: metric → mean over the queries where it is defined (and the ``DIAGNOSTIC_METRICS``).
        intervals: metric → bootstrap 95 % interval of that mean.
        diagnostics: the knee diagnostics that are not one number: ``cut_rules`` (``final`` and ``all`` cuts →
            share per rule; None without knee cuts), ``pages_distribution`` (min, p10, median, p90, max) and
            ``slider_response`` (``diagnostics.slider_response`` with the detector, its values and the mean
            pages at each; None when not measured or not read).
    """

    spec: RunSpec
    means: dict[str, float | None]
    intervals: dict[str, tuple[float, float] | None]
    diagnostics: dict[str, Any] = field(default_factory=dict)


@dataclass
class Report:
    """The outcome of an evaluation.

    Attributes:
        dataset: the data set's name.
        n_queries: queries evaluated.
        summaries: one per run, in the order asked.
        outcomes: one per (query, run).
        index: how the index was built (policy, summariser, models) and whether it was reused.
        flat: flat hybrid top-k of every query for k = 1…``FLAT_DEPTH``.
    """

    dataset: str
    n_queries: int
    summaries: list[Summary]
    outcomes: list[Outcome]
    index: dict[str, Any]
    flat: FlatCurve = field(default_factory=FlatCurve)

    def to_json(self) -> dict[str, Any]:
        """``dataset``, ``n_queries``, ``flat_curve``, per run its metrics (``recall@5``, ``gain_vs_flat``,
        ``doc_hit``, the diagnostics …) with ``ci95``, and per-query rows."""
        strategies = {}
        for s in self.summaries:
            intervals = {k: list(v) if v else None for k, v in s.intervals.items()}
            strategies[s.spec.label] = {
                "strategy": s.spec.strategy,
                "params": {f.name: getattr(s.spec.params, f.name) for f in fields(SearchParams)},
                **s.means,
                **s.diagnostics,
                "ci95": intervals,
            }
        return {
            "dataset": self.dataset,
            "n_queries": self.n_queries,
            "index": self.index,
            "flat_curve": self.flat.to_json(),
            "strategies": strategies,
            "queries": [
                {
                    "query_id": o.query_id,
                    "strategy": o.label,
                    **o.values,
                    "units": [list(u) for u in o.units],
                    "relevant": o.relevant,
                    "cut_rules": o.cut_rules,
                    "slider_pages": o.slider_pages,
                }
                for o in self.outcomes
            ],
        }


class PageSizes:
    """Characters of each page's text, read from the leaves returned or, for parents, from the store."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.chars: dict[tuple[str, int], int] = {}
        self._documents: set[str] = set()

    def tokens(self, nodes: Sequence[Node]) -> int:
        """Approximate context tokens of every distinct page the nodes cover."""
        for node in nodes:
            if node.level == 0:
                self.chars[(node.file_name, node.page_start)] = len(node.text)
            elif node.doc_id not in self._documents:
                leaves = self.engine.leaves([node.doc_id])
                self.chars.update({(n.file_name, n.page_start): len(n.text) for n in leaves})
                self._documents.add(node.doc_id)
        pages = {(n.file_name, page) for n in nodes for page in n.pages}
        return approx_tokens(sum(self.chars.get(page, 0) for page in pages))


def ranked_units(dataset: Dataset, nodes: Sequence[Node]) -> list[Unit]:
    """Distinct units of the returned nodes, best first; a node's pages in page order."""
    units = (u for n in nodes for u in dataset.units(n.file_name, n.page_start, n.page_end))
    return list(dict.fromkeys(units))


def measure(dataset: Dataset, query: Query, result: SearchResult, tokens: int) -> dict[str, float | None]:
    """Every metric of one search result."""
    relevant = dataset.qrels[query.id]
    ranked = ranked_units(dataset, result.nodes)
    cuts = [
        (
            [
                any(u in relevant for u in dataset.units(c.file_name, c.page_start, c.page_end))
                for c in s.candidates
            ],
            s.cut,
        )
        for s in result.trace
        if s.cut is not None
    ]
    return {
        "recall@1": recall_at_k(ranked, relevant, 1),
        "recall@5": recall_at_k(ranked, relevant, 5),
        "recall@10": recall_at_k(ranked, relevant, 10),
        "ndcg@10": ndcg_at_k(ranked, relevant, 10),
        "mrr@10": mrr_at_k(ranked, relevant, 10),
        "right_sized_recall": right_sized_recall(ranked, relevant),
        "pages_returned": float(len(ranked)),
        "tokens_returned": float(tokens),
        "nonrelevant_discarded": nonrelevant_discarded(cuts),
        "latency_ms": result.latency_ms,
        "doc_hit": doc_hit([n.file_name for n in result.nodes], dataset.own_files(query)),
    }


def evaluate(
    engine: Engine,
    dataset: Dataset,
    specs: Sequence[RunSpec],
    progress: Progress | None = None,
    index: dict[str, Any] | None = None,
    slider: bool = True,
) -> Report:
    """Search every query with every run and summarise each run with means, bootstrap intervals and the knee
    diagnostics (``slider``: also the answer sizes over the Sensitivity slider's values)."""
    sizes = PageSizes(engine)
    outcomes: list[Outcome] = []
    flat = FlatCurve()
    for done, query in enumerate(dataset.queries):
        vectors = engine.embed_query(query.text)
        ranking = engine.search(query.text, "flat", SearchParams(top_k=FLAT_DEPTH), vectors=vectors)
        flat.add(
            query.id, ranked_units(dataset, ranking.nodes), dataset.qrels[query.id], dataset.own_files(query)
        )
        answers: Sizes = {}
        mine: list[Outcome] = []
        for spec in specs:
            result = engine.search(query.text, spec.strategy, spec.params, vectors=vectors)
            values = measure(dataset, query, result, sizes.tokens(result.nodes))
            units = ranked_units(dataset, result.nodes)
            answers[(spec.strategy, spec.params)] = len(units)
            rules = [diagnostics.cut_rule(step) for step in result.trace if step.bound is not None]
            mine.append(Outcome(query.id, spec.label, values, units, len(dataset.qrels[query.id]), rules))
        if slider:
            for outcome, spec in zip(mine, specs, strict=True):
                outcome.slider_pages = slider_pages(engine, dataset, query, spec, vectors, answers)
        outcomes += mine
        if progress:
            progress(done + 1, len(dataset.queries), query.id)
    return Report(
        dataset.name,
        len(dataset.queries),
        [summarise(spec, outcomes, flat) for spec in specs],
        outcomes,
        index or {},
        flat,
    )


def slider_pages(
    engine: Engine, dataset: Dataset, query: Query, spec: RunSpec, vectors: Any, answers: Sizes
) -> list[int]:
    """Pages returned at every value of the Sensitivity slider for the run's detector (empty when the
    strategy does not read the sensitivity). ``answers`` remembers this query's searches: each distinct
    search runs once."""
    if "sensitivity" not in strategy_named(spec.strategy).params:
        return []
    out = []
    for value in SENSITIVITIES[spec.params.knee_method]:
        key = (spec.strategy, spec.params.with_(sensitivity=value))
        if key not in answers:
            result = engine.search(query.text, spec.strategy, key[1], vectors=vectors)
            answers[key] = len(ranked_units(dataset, result.nodes))
        out.append(answers[key])
    return out


def summarise(spec: RunSpec, outcomes: Sequence[Outcome], flat: FlatCurve | None = None) -> Summary:
    """Means and 95 % bootstrap intervals of one run's per-query values, the knee diagnostics, and (given
    flat's curve) the run against flat and the oracle at its own mean pages."""
    mine = [o for o in outcomes if o.label == spec.label]
    columns = {name: [o.values.get(name) for o in mine] for name in METRICS}
    means = {name: mean(values) for name, values in columns.items()}
    intervals = {name: bootstrap_interval(values) for name, values in columns.items()}
    found = knee_diagnostics(spec, mine)
    means |= found.pop("means")
    if flat is not None:
        recalls = {o.query_id: o.values.get("right_sized_recall") for o in mine}
        own_pages = {o.query_id: o.values.get("pages_returned") for o in mine}
        verdict = judge(recalls, means["pages_returned"], flat, own_pages)
        means |= {
            "gain_vs_flat": verdict.gain,
            "flat_recall_at_pages": verdict.flat_recall,
            "flat_doc_hit": verdict.flat_doc_hit,
            "gain_vs_flat_per_query": verdict.own_gain,
        }
        intervals |= {
            "gain_vs_flat": verdict.interval,
            "flat_recall_at_pages": None,
            "flat_doc_hit": None,
            "gain_vs_flat_per_query": verdict.own_interval,
        }
        if verdict.flat_recall is not None and means["right_sized_recall"] is not None:
            curves = {q: flat.recall[q] for q in recalls if q in flat.recall}
            oracle = diagnostics.oracle_recall(curves, float(means["pages_returned"] or 0.0))
            means["oracle_recall_at_pages"] = oracle
            means["oracle_share"] = diagnostics.oracle_share(
                float(means["right_sized_recall"]), verdict.flat_recall, oracle
            )
    return Summary(spec, means, intervals, found)


def knee_diagnostics(spec: RunSpec, mine: Sequence[Outcome]) -> dict[str, Any]:
    """The diagnostics of one run's outcomes: ``means`` (the ``DIAGNOSTIC_METRICS`` that need no flat curve,
    the oracle's left None), ``cut_rules``, ``pages_distribution`` and ``slider_response``."""
    pages = [float(o.values.get("pages_returned") or 0.0) for o in mine]
    cut = [o for o in mine if o.cut_rules]
    rules = None
    if cut:
        rules = {
            "final": diagnostics.rule_shares([o.cut_rules[-1] for o in cut]),
            "all": diagnostics.rule_shares([r for o in cut for r in o.cut_rules]),
        }
    measured = [o.slider_pages for o in mine if o.slider_pages]
    response = None
    if measured:
        grid = SENSITIVITIES[spec.params.knee_method]
        response = {
            "method": spec.params.knee_method,
            "curve": str(spec.params.score_source),
            "sensitivities": list(grid),
            "mean_pages": [float(sum(col) / len(col)) for col in zip(*measured, strict=True)],
            **diagnostics.slider_response(measured),
        }
    means: dict[str, float | None] = {
        "knee_decides": None if rules is None else rules["final"][diagnostics.KNEE],
        "slider_sizes": None if response is None else response["distinct"],
        "spearman_pages_relevant": diagnostics.spearman(pages, [float(o.relevant) for o in mine]),
        "oracle_recall_at_pages": None,
        "oracle_share": None,
    }
    return {
        "means": means,
        "cut_rules": rules,
        "pages_distribution": diagnostics.distribution(pages) if pages else None,
        "slider_response": response,
    }
