"""Several strategies on one query: embed the query once, run each strategy, measure what each returns, how
much the strategies agree, and export it all as JSON or CSV.

A :class:`Comparer` remembers the query embedding and every strategy's run, keyed by the index content, the
query, the strategy and only the parameters that strategy reads (its ``params``): moving the knee
sensitivity reruns ``adaptive`` and ``flat-knee`` but not ``flat``, ``branch`` or ``beam``. A strategy's pages
can be sent to the LLM for an answer with citations (``answer``, ``citations``: from ``drag_core.llm``). Every
result gets its snippet (``drag_core.evidence``): the sentences of its page that best match the query, cut once
per page and query however many strategies return the page. No Streamlit here.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

from drag_core.engine import DocumentInfo, Engine
from drag_core.evidence.snippets import Snippet, SnippetMemo, node_snippets, snippet_fields
from drag_core.llm.answer import answer, citations
from drag_core.lru import LRU
from drag_core.search import STRATEGIES, SearchParams, SearchResult, readers
from drag_core.search import strategy as strategy_named
from drag_core.store import QueryVectors
from drag_core.text import approx_tokens
from drag_core.types import Node

__all__ = [
    "Comparer",
    "Comparison",
    "Overlap",
    "StrategyRun",
    "answer",
    "citations",
    "export_tables",
    "index_key",
    "knee_pinned",
    "knob_readers",
    "params_key",
    "to_csv",
    "to_json",
]

SUMMARY_CHARS = 240
SNIPPETS_KEPT = 4096  # snippets remembered by (query, page)
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def index_key(documents: Iterable[DocumentInfo]) -> tuple[str, ...]:
    """What the index holds, as a hashable key: the sorted document versions."""
    return tuple(sorted(d.doc_id for d in documents))


def params_key(strategy: str, params: SearchParams) -> tuple[tuple[str, Any], ...]:
    """The parameters ``strategy`` reads, as a hashable key. ``ValueError`` for an unknown strategy."""
    return tuple((name, getattr(params, name)) for name in strategy_named(strategy).params)


def knob_readers(param: str) -> str:
    """Which strategies read a knob, for its help text (``Read by beam.``, ``Read by every strategy.``),
    from the strategies' declared ``params`` so it never goes stale."""
    used_by = readers(param)
    if not used_by:
        raise ValueError(f"no strategy reads {param!r}")
    return f"Read by {'every strategy' if len(used_by) == len(STRATEGIES) else ', '.join(used_by)}."


def knee_pinned(strategy: str) -> bool:
    """Whether the knee knobs leave ``strategy``'s cuts alone: it reads none of them (``knee-beam`` keeps the
    article's knee), so the Sensitivity slider cannot move it and no kept-vs-sensitivity line is drawn for it."""
    return "sensitivity" not in strategy_named(strategy).params


@dataclass(frozen=True)
class StrategyRun:
    """One strategy's answer to the query.

    Attributes:
        result: the search result (final nodes, scores, trace, latency).
        context: the pages the final nodes stand for, with their text (what an answer would read).
        snippets: node id → the page its snippet is from and the snippet (``evidence.snippets``).
    """

    result: SearchResult
    context: tuple[Node, ...]
    snippets: Mapping[int, tuple[Node, Snippet]] = field(default_factory=dict)

    @property
    def pages(self) -> int:
        return len(self.result.pages)

    @property
    def tokens(self) -> int:
        """Approximate tokens of the returned pages' text."""
        return sum(approx_tokens(len(page.text)) for page in self.context)


@dataclass(frozen=True)
class Overlap:
    """How much two strategies agree, by the pages they return.

    Attributes:
        a, b: the two strategies.
        shared_pages: pages both return.
        jaccard: shared pages / pages either returns (1.0 when both return nothing).
    """

    a: str
    b: str
    shared_pages: int
    jaccard: float


@dataclass
class Comparison:
    """Strategies run on one query with one set of parameters.

    Attributes:
        query: the query text.
        params: the parameters (each strategy used the ones it reads).
        runs: strategy name → its run, in the order asked.
        embed_ms: milliseconds spent embedding the query (0 when it was remembered).
    """

    query: str
    params: SearchParams
    runs: dict[str, StrategyRun] = field(default_factory=dict)
    embed_ms: float = 0.0

    def overlaps(self) -> list[Overlap]:
        """Every pair of strategies, by shared pages."""
        out = []
        for a, b in combinations(self.runs, 2):
            pa, pb = self.runs[a].result.pages, self.runs[b].result.pages
            union = pa | pb
            out.append(Overlap(a, b, len(pa & pb), len(pa & pb) / len(union) if union else 1.0))
        return out

    def metrics(self) -> list[dict[str, Any]]:
        """One row per strategy: nodes, pages and approximate tokens returned, latency, Qdrant calls."""
        return [
            {
                "strategy": name,
                "nodes": len(run.result.nodes),
                "pages": run.pages,
                "tokens": run.tokens,
                "latency_ms": round(run.result.latency_ms, 1),
                "qdrant_calls": run.result.round_trips,
            }
            for name, run in self.runs.items()
        ]


class Comparer:
    """Runs strategies on a query, remembering what did not change.

    Attributes:
        max_entries: how many strategy runs (and query embeddings) are remembered, least recently used first out.
        snippets: whether each result gets its snippet (off only to measure what snippets cost).
        hits: runs answered from memory.
        misses: runs computed.
    """

    def __init__(self, max_entries: int = 64, snippets: bool = True) -> None:
        self.max_entries = max_entries
        self.snippets = snippets
        self.hits = 0
        self.misses = 0
        self._runs: LRU[Hashable, StrategyRun] = LRU(max_entries)
        self._vectors: LRU[str, QueryVectors] = LRU(max_entries)
        self._snippets = SnippetMemo(SNIPPETS_KEPT)

    def compare(
        self,
        engine: Engine,
        query: str,
        strategies: Iterable[str],
        params: SearchParams,
        index: tuple[str, ...] | None = None,
    ) -> Comparison:
        """Run each strategy (or reuse its earlier run) on ``query``. ``index`` names the index content (the
        sorted document versions; read from the engine when not given): a remembered run costs no Qdrant call.
        Raises ``ValueError`` for an empty query or an unknown strategy."""
        if not query.strip():
            raise ValueError("the query is empty")
        if index is None:
            index = index_key(engine.documents())
        comparison = Comparison(query=query, params=params)
        vectors = self._vectors.get(query)
        if vectors is None:
            started = time.perf_counter()
            vectors = engine.embed_query(query)
            comparison.embed_ms = (time.perf_counter() - started) * 1000
            self._vectors.put(query, vectors)
        for strategy in strategies:
            key = (index, query, strategy, params_key(strategy, params))
            run = self._runs.get(key)
            if run is None:
                self.misses += 1
                result = engine.search(query, strategy, params, vectors=vectors)
                context = tuple(engine.context_pages(result.nodes))
                run = StrategyRun(result, context, self._snippets_of(query, result, context))
                self._runs.put(key, run)
            else:
                self.hits += 1
            comparison.runs[strategy] = run
        return comparison

    def _snippets_of(
        self, query: str, result: SearchResult, context: Sequence[Node]
    ) -> dict[int, tuple[Node, Snippet]]:
        if not self.snippets:
            return {}
        return node_snippets(query, result.nodes, context, self._snippets)


# -- export -----------------------------------------------------------------------------------------------


def to_json(comparison: Comparison, index: Mapping[str, Any] | None = None) -> str:
    """The comparison as JSON: query, parameters, per strategy its metrics, nodes (with summaries) and trace,
    and the pairwise overlap. ``index`` adds a description of the index; pass only public facts (model
    names, collection) — nothing here reads settings or the environment, so no secret can slip in."""
    metrics = {row["strategy"]: row for row in comparison.metrics()}
    strategies = {}
    for name, run in comparison.runs.items():
        data = run.result.to_json(
            {i: snippet_fields(page, found) for i, (page, found) in run.snippets.items()}
        )
        for entry, node in zip(data["nodes"], run.result.nodes):
            entry["summary"] = node.summary
            entry["keywords"] = node.keywords
        data["tokens"] = metrics[name]["tokens"]
        data["params_used"] = dict(params_key(name, comparison.params))
        strategies[name] = data
    document = {
        "query": comparison.query,
        "params": asdict(comparison.params),
        "embed_ms": round(comparison.embed_ms, 2),
        "metrics": list(metrics.values()),
        "overlap": [asdict(o) for o in comparison.overlaps()],
        "strategies": strategies,
    }
    if index:
        document["index"] = dict(index)
    return json.dumps(document, indent=2, ensure_ascii=False)


def export_tables(comparison: Comparison) -> dict[str, list[dict[str, Any]]]:
    """Flat tables for CSV: ``metrics`` (one row per strategy), ``nodes`` (final nodes) and ``trace`` (every
    candidate of every step, with its scores and what the strategy did with it)."""
    nodes, trace = [], []
    for name, run in comparison.runs.items():
        result = run.result
        for rank, node in enumerate(result.nodes, start=1):
            nodes.append(
                {
                    "strategy": name,
                    "rank": rank,
                    "node_id": node.id,
                    "file_name": node.file_name,
                    "page_start": node.page_start,
                    "page_end": node.page_end,
                    "level": node.level,
                    "score": result.scores.get(node.id),
                    "summary": node.summary[:SUMMARY_CHARS],
                }
            )
        for number, step in enumerate(result.trace, start=1):
            kept = set(step.kept)
            for rank, c in enumerate(step.candidates, start=1):
                trace.append(
                    {
                        "strategy": name,
                        "step_no": number,
                        "step": step.name,
                        "rank": rank,
                        "node_id": c.id,
                        "file_name": c.file_name,
                        "page_start": c.page_start,
                        "page_end": c.page_end,
                        "level": c.level,
                        "fused": c.fused,
                        "dense_rank": c.dense_rank,
                        "sparse_rank": c.sparse_rank,
                        "dense_score": c.dense_score,
                        "sparse_score": c.sparse_score,
                        "curve_score": step.curve[rank - 1] if rank <= len(step.curve) else None,
                        "knee": step.knee_index == rank - 1,
                        "within_cut": step.cut is None or rank <= step.cut,
                        "kept": c.id in kept,
                    }
                )
    return {"metrics": comparison.metrics(), "nodes": nodes, "trace": trace}


def to_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """Rows (dicts with the same keys) as CSV text with a header line; empty text for no rows.

    Text that a spreadsheet would run as a formula (starting with ``= + - @``, tab or CR) gets a leading
    apostrophe.
    """
    if not rows:
        return ""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: _inert(v) for k, v in row.items()} for row in rows)
    return buffer.getvalue()


def _inert(value: Any) -> Any:
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) else value
