"""``drag_core.compare`` on a real index: one embedding, remembered runs, pages and tokens, overlap, export."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import fields

import pytest
from conftest import FINANCE

from drag_core.app.compare import (
    Comparer,
    Comparison,
    export_tables,
    knob_readers,
    to_csv,
    to_json,
)
from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.knee import SENSITIVITIES
from drag_core.search import STRATEGIES, SearchParams
from drag_core.search.flat import Flat
from drag_core.store import DENSE
from drag_core.text import approx_tokens

QUERY = "What was net sales growth in the fourth quarter?"
ALL = list(STRATEGIES)


def test_every_strategy_runs_once_per_query_and_reports_pages_and_tokens(small_engine: Engine) -> None:
    comparer = Comparer()
    comparison = comparer.compare(small_engine, QUERY, ALL, SearchParams())
    assert list(comparison.runs) == ALL
    assert comparer.misses == len(ALL) and comparer.hits == 0
    assert comparison.embed_ms > 0
    for name, run in comparison.runs.items():
        assert run.result.strategy == name and run.result.nodes
        covered = {(p.file_name, p.page_start) for p in run.context}
        assert covered == run.result.pages, name
        assert all(p.level == 0 for p in run.context)
        assert run.pages == len(run.result.pages)
        assert run.tokens == sum(approx_tokens(len(p.text)) for p in run.context) > 0
    rows = {row["strategy"]: row for row in comparison.metrics()}
    assert rows["flat"]["pages"] == SearchParams().top_k


def test_a_knob_reruns_only_the_strategies_that_read_it(small_engine: Engine) -> None:
    comparer = Comparer()
    first = comparer.compare(small_engine, QUERY, ALL, SearchParams(sensitivity=1.0))
    second = comparer.compare(small_engine, QUERY, ALL, SearchParams(sensitivity=3.0))
    readers = [s for s in ALL if "sensitivity" in STRATEGIES[s].params]
    assert readers and len(readers) < len(ALL)
    assert comparer.misses == len(ALL) + len(readers)
    assert comparer.hits == len(ALL) - len(readers)
    assert second.embed_ms == 0  # the query embedding was remembered
    for name in ALL:
        assert (second.runs[name] is first.runs[name]) == (name not in readers), name


def test_the_default_detectors_slider_moves_the_knee_strategies_step_by_step(small_engine: Engine) -> None:
    """Every value the app's Sensitivity slider offers for the default detector, on a real question: the
    answers of adaptive and flat-knee take several sizes, and no step between neighbouring values multiplies
    or divides a size by more than 3 (no cliff)."""
    comparer = Comparer()
    grid = SENSITIVITIES[SearchParams().knee_method]
    sizes: dict[str, list[int]] = {"adaptive": [], "flat-knee": []}
    for s in grid:
        comparison = comparer.compare(small_engine, QUERY, list(sizes), SearchParams(sensitivity=s))
        for name in sizes:
            sizes[name].append(comparison.runs[name].pages)
    for name, row in sizes.items():
        assert row == sorted(row) and len(set(row)) >= 4, (name, row)
        assert max(max(a, b) / min(a, b) for a, b in zip(row, row[1:])) <= 3, (name, row)


class _Recorded(SearchParams):
    """Real parameters that note which of their fields are read (after construction)."""

    def __getattribute__(self, name: str) -> object:
        if name in PARAM_NAMES and _READ.get("on"):
            _READ.setdefault("names", set()).add(name)
        return super().__getattribute__(name)


_READ: dict = {}
PARAM_NAMES = tuple(f.name for f in fields(SearchParams))


@pytest.mark.parametrize("strategy", ALL)
def test_params_used_lists_every_parameter_a_strategy_reads(small_engine: Engine, strategy: str) -> None:
    vectors = small_engine.embed_query(QUERY)
    for params in (_Recorded(), _Recorded(score_source="dense", sensitivity=3.0, roots=1)):
        _READ.clear()
        _READ["on"] = True
        try:
            small_engine.search(QUERY, strategy, params, vectors=vectors)
        finally:
            _READ["on"] = False
        read = _READ.get("names", set())
        assert read, strategy
        declared = set(STRATEGIES[strategy].params)
        assert read <= declared, f"{strategy} reads {read - declared}"


@pytest.mark.parametrize("param", PARAM_NAMES)
def test_a_knobs_help_names_exactly_the_strategies_that_read_it(param: str) -> None:
    used_by = {name for name, s in STRATEGIES.items() if param in s.params}
    named = knob_readers(param).removeprefix("Read by ").removesuffix(".")
    assert (set(STRATEGIES) if named == "every strategy" else set(named.split(", "))) == used_by
    assert (named == "every strategy") == (used_by == set(STRATEGIES))


def test_a_knobs_help_follows_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(STRATEGIES, "flat-wide", Flat("flat-wide", (DENSE,)))
    assert knob_readers("top_k") == "Read by flat, flat-dense, flat-sparse, flat-wide."
    with pytest.raises(ValueError, match="no strategy reads 'nothing'"):
        knob_readers("nothing")


def test_overlap_is_the_jaccard_of_returned_pages(small_engine: Engine) -> None:
    comparison = Comparer().compare(small_engine, QUERY, ["flat", "beam", "adaptive"], SearchParams())
    overlaps = comparison.overlaps()
    assert [(o.a, o.b) for o in overlaps] == [("flat", "beam"), ("flat", "adaptive"), ("beam", "adaptive")]
    for o in overlaps:
        a, b = comparison.runs[o.a].result.pages, comparison.runs[o.b].result.pages
        assert o.shared_pages == len(a & b)
        assert o.jaccard == pytest.approx(len(a & b) / len(a | b))


def test_context_pages_of_a_parent_are_its_pages_with_text(small_engine: Engine) -> None:
    document = next(d for d in small_engine.documents() if d.pages > 5)
    tree = small_engine.tree(document.file_name, with_text=True)
    leaves = {n.page_start: n for n in tree if n.level == 0}
    parent = next(n for n in tree if n.level == 1)
    pages = small_engine.context_pages([parent])
    assert [p.page_start for p in pages] == list(parent.pages)
    assert [p.text for p in pages] == [leaves[i].text for i in parent.pages]
    root = small_engine.pages_of(document.root_id)
    assert [p.page_start for p in root] == sorted(leaves)
    assert small_engine.pages_of(leaves[2].id)[0].text == leaves[2].text
    assert small_engine.pages_of(12345) == []


def test_remembered_runs_are_dropped_when_the_index_changes(make_engine, tmp_path) -> None:
    engine = make_engine()
    engine.ingest_paths([FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"])
    comparer = Comparer()
    comparer.compare(engine, "comparable store sales", ["flat"], SearchParams())
    comparer.compare(engine, "comparable store sales", ["flat"], SearchParams())
    assert (comparer.misses, comparer.hits) == (1, 1)
    engine.ingest_paths([FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"])
    after = comparer.compare(engine, "comparable store sales", ["flat"], SearchParams(top_k=9))
    assert comparer.misses == 2
    assert {n.file_name for n in after.runs["flat"].result.nodes} == {
        "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf",
        "PEPSICO_2023_8K_dated-2023-05-05.pdf",
    }


def test_the_memory_is_bounded(small_engine: Engine) -> None:
    comparer = Comparer(max_entries=2)
    for top_k in (1, 2, 3):
        comparer.compare(small_engine, QUERY, ["flat"], SearchParams(top_k=top_k))
    comparer.compare(small_engine, QUERY, ["flat"], SearchParams(top_k=1))
    assert (comparer.misses, comparer.hits) == (4, 0)
    comparer.compare(small_engine, QUERY, ["flat"], SearchParams(top_k=3))
    assert comparer.hits == 1


def test_an_empty_query_or_unknown_strategy_is_refused(small_engine: Engine) -> None:
    with pytest.raises(ValueError, match="empty"):
        Comparer().compare(small_engine, "  ", ["flat"], SearchParams())
    with pytest.raises(ValueError, match="unknown strategy"):
        Comparer().compare(small_engine, QUERY, ["nope"], SearchParams())


@pytest.fixture(scope="module")
def comparison(small_engine: Engine) -> Comparison:
    return Comparer().compare(small_engine, QUERY, ["flat", "branch", "adaptive"], SearchParams())


def test_json_export_holds_metrics_nodes_traces_and_overlap(comparison: Comparison) -> None:
    data = json.loads(to_json(comparison, {"collection": "drag_nodes"}))
    assert data["query"] == QUERY and data["index"] == {"collection": "drag_nodes"}
    assert [m["strategy"] for m in data["metrics"]] == ["flat", "branch", "adaptive"]
    assert len(data["overlap"]) == 3
    for name, run in comparison.runs.items():
        exported = data["strategies"][name]
        assert [n["id"] for n in exported["nodes"]] == [n.id for n in run.result.nodes]
        assert [n["summary"] for n in exported["nodes"]] == [n.summary for n in run.result.nodes]
        assert len(exported["trace"]) == len(run.result.trace)
        assert exported["tokens"] == run.tokens
        assert set(exported["params_used"]) == set(STRATEGIES[name].params)


def test_json_export_carries_no_secret(small_index_copy, embedder, monkeypatch) -> None:
    monkeypatch.setenv("DRAG_LLM_API_KEY", "sk-llm-secret-123")
    monkeypatch.setenv("QDRANT_API_KEY", "qdrant-secret-456")
    settings = Settings.from_env(store=str(small_index_copy), cache_path=None)
    assert settings.qdrant_api_key == "qdrant-secret-456"
    engine = Engine(settings, embedder=embedder)
    try:
        comparison = Comparer().compare(engine, QUERY, ["flat", "adaptive"], SearchParams())
        index = {k: getattr(engine.settings, k) for k in ("collection", "dense_model", "sparse_model")}
        text = to_json(comparison, index) + "".join(
            to_csv(rows) for rows in export_tables(comparison).values()
        )
    finally:
        engine.close()
    assert "secret" not in text


def test_csv_tables_round_trip(comparison: Comparison) -> None:
    tables = export_tables(comparison)
    assert set(tables) == {"metrics", "nodes", "trace"}
    nodes = list(csv.DictReader(io.StringIO(to_csv(tables["nodes"]))))
    assert len(nodes) == sum(len(r.result.nodes) for r in comparison.runs.values())
    assert [int(r["node_id"]) for r in nodes if r["strategy"] == "flat"] == [
        n.id for n in comparison.runs["flat"].result.nodes
    ]
    trace = list(csv.DictReader(io.StringIO(to_csv(tables["trace"]))))
    assert len(trace) == sum(len(s.candidates) for r in comparison.runs.values() for s in r.result.trace)
    adaptive = [r for r in trace if r["strategy"] == "adaptive"]
    kept = {int(r["node_id"]) for r in adaptive if r["kept"] == "True"}
    assert kept == {i for s in comparison.runs["adaptive"].result.trace for i in s.kept}


def test_csv_neutralises_spreadsheet_formulas() -> None:
    text = to_csv([{"summary": '=HYPERLINK("http://x")', "n": -3, "plain": "ok"}])
    row = next(csv.DictReader(io.StringIO(text)))
    assert row == {"summary": '\'=HYPERLINK("http://x")', "n": "-3", "plain": "ok"}
    assert to_csv([]) == ""


def test_approx_tokens() -> None:
    assert approx_tokens(len("")) == 0
    assert approx_tokens(len("abcd")) == 1
    assert approx_tokens(len("abcde")) == 2
