"""Each strategy on a small real index, with asserted behaviour and a complete trace."""

from __future__ import annotations

import json

import pytest
from conftest import FINANCE

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.knee import DEFAULT_SENSITIVITIES, find_knee
from drag_core.search import STRATEGIES, SearchParams
from drag_core.search.base import Bound, suppress
from drag_core.search.knee_beam import ARTICLE_KNEE

TOPICS = {
    "apples": "Apples grow in orchards; apple trees flower in spring and apples are picked in autumn. ",
    "volcanoes": "Volcanoes erupt lava and ash; magma chambers feed volcanic eruptions under the crust. ",
    "violins": "Violins have four strings; violin makers carve spruce tops and maple backs for violins. ",
}


def _three_topic_markdown() -> bytes:
    return "\n\n".join(f"# {name}\n\n" + text * 28 for name, text in TOPICS.items()).encode()


@pytest.fixture(scope="module")
def engine(embedder):
    engine = Engine(
        Settings.from_env(env={}, store=":memory:", cache_path=None), ExtractiveSummarizer(), embedder
    )
    reports = engine.ingest_paths(
        [
            FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf",
            FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf",
            FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf",
        ]
    )
    assert all(r.ok for r in reports)
    assert engine.ingest_bytes("topics.md", _three_topic_markdown()).pages == 3
    yield engine
    engine.close()


def _ancestors(engine: Engine, node_id: int) -> set[int]:
    nodes = {n.id: n for d in engine.documents() for n in engine.tree(d.file_name)}
    out, parent = set(), nodes[node_id].parent_id
    while parent != -1:
        out.add(parent)
        parent = nodes[parent].parent_id
    return out


def test_flat_returns_top_k_leaves_in_fused_order(engine: Engine) -> None:
    result = engine.search("Ulta Beauty net sales fourth quarter", "flat", SearchParams(top_k=4))
    assert len(result.nodes) == 4 and all(n.level == 0 for n in result.nodes)
    scores = [result.scores[n.id] for n in result.nodes]
    assert scores == sorted(scores, reverse=True)
    assert result.nodes[0].file_name == "ULTABEAUTY_2023Q4_EARNINGS.pdf"
    assert result.nodes[0].text, "leaves come back with their page text"
    assert result.round_trips == 3  # the lists, the kept points' fields, the final nodes' texts


@pytest.mark.parametrize("method", ["relative", "kneedle"])
def test_flat_knee_cuts_the_ranking_where_the_detector_says(engine: Engine, method: str) -> None:
    params = SearchParams(knee_pool=20, knee_method=method, max_keep=None, score_source="rrf")
    result = engine.search("Ulta Beauty net sales fourth quarter", "flat-knee", params)
    (step,) = result.trace
    expected = find_knee([c.fused for c in step.candidates], method, DEFAULT_SENSITIVITIES[method], 1, None)
    assert step.cut == expected.keep and step.knee_index == expected.knee_index
    assert (step.method, step.sensitivity, step.curve_source) == (
        method,
        DEFAULT_SENSITIVITIES[method],
        "rrf",
    )
    assert [n.id for n in result.nodes] == [c.id for c in step.candidates[: step.cut]]
    assert step.eliminated == [c.id for c in step.candidates[step.cut :]]


def test_branch_keeps_the_parent_when_its_children_rank_below_it(engine: Engine) -> None:
    result = engine.search("apples volcanoes violins", "branch", SearchParams(roots=1))
    roots, decision = result.trace[0], result.trace[1]
    root = next(d for d in engine.documents() if d.file_name == "topics.md")
    assert roots.kept == [root.root_id]
    assert decision.candidates[0].id == root.root_id, "the parent outranks each single-topic child"
    assert [n.id for n in result.nodes] == [root.root_id]
    assert decision.kept == [root.root_id] and len(decision.eliminated) == 3


def test_branch_descends_into_the_child_that_beats_its_parent(engine: Engine) -> None:
    result = engine.search(
        "how do violin makers carve the spruce top of violins", "branch", SearchParams(roots=1)
    )
    decision = result.trace[1]
    assert decision.candidates[0].level == 0, "the violin page outranks the whole document"
    assert [n.page_start for n in result.nodes] == [3] and result.nodes[0].level == 0
    assert "violin" in result.nodes[0].text.lower()


def test_branch_batches_each_generation_into_one_call(engine: Engine) -> None:
    result = engine.search("notes indenture trustee", "branch", SearchParams(roots=3))
    calls = [step.call for step in result.trace]
    assert calls == sorted(calls) and calls[0] == 1
    assert len(result.trace) - 1 > len(set(calls[1:])), "parents of one generation share a call"
    assert result.round_trips == 2 * len(set(calls)) + 1  # lists and fields per call, + the final nodes


@pytest.mark.parametrize("width", [1, 3, 5])
def test_beam_survivors_never_include_a_node_and_its_ancestor(engine: Engine, width: int) -> None:
    params = SearchParams(beam_width=width, roots=width)
    result = engine.search("Amcor supplemental indenture guarantee", "beam", params)
    ids = {n.id for n in result.nodes}
    assert 1 <= len(ids) <= width
    for node in result.nodes:
        assert not (_ancestors(engine, node.id) & ids)
    for step in result.trace[1:]:
        assert len(step.kept) <= width
        assert not set(step.kept) & set(step.eliminated)
        assert set(step.kept) | set(step.eliminated) == {c.id for c in step.candidates}
    assert len(result.trace) <= 1 + params.max_iterations


def test_beam_suppression_follows_rank_order(engine: Engine) -> None:
    result = engine.search("PepsiCo senior notes", "beam", SearchParams(beam_width=3))
    for step in result.trace[1:]:
        alive: set[int] = set()
        for candidate in step.candidates:
            if candidate.id in step.kept:
                assert candidate.parent_id not in alive
                assert not set(candidate.child_ids) & alive
                alive.add(candidate.id)


@pytest.mark.parametrize("source", ["rrf", "dense"])
def test_adaptive_cuts_every_ranking_at_its_knee_before_suppression(engine: Engine, source: str) -> None:
    params = SearchParams(
        knee_method="kneedle", sensitivity=1.0, max_keep=6, score_source=source, roots=6, doc_breadth=0
    )
    result = engine.search("Ulta Beauty comparable sales guidance", "adaptive", params)
    for step in result.trace:
        assert step.cut is not None and 1 <= step.cut <= 6
        expected = find_knee(step.curve, "kneedle", 1.0, 1, 6)
        assert step.cut == expected.keep
        assert set(step.kept) <= {c.id for c in step.candidates[: step.cut]}
        if source == "dense":
            assert step.curve == sorted((c.dense_score for c in step.candidates), reverse=True)
        else:
            assert step.curve == [c.fused for c in step.candidates]


def test_adaptive_roots_follow_the_knee_not_a_fixed_count(engine: Engine) -> None:
    narrow = engine.search(
        "Ulta Beauty", "adaptive", SearchParams(knee_method="chord", sensitivity=1.0, roots=10, max_keep=10)
    )
    wide = engine.search(
        "Ulta Beauty", "adaptive", SearchParams(knee_method="chord", sensitivity=2.0, roots=10, max_keep=10)
    )
    assert narrow.trace[0].cut <= wide.trace[0].cut
    assert narrow.trace[0].cut == find_knee(narrow.trace[0].curve, "chord", 1.0, 1, 10).keep


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_every_strategy_returns_nodes_and_a_json_trace(engine: Engine, strategy: str) -> None:
    result = engine.search("Amcor notes guarantee", strategy)
    data = result.to_json()
    assert data["strategy"] == strategy and data["nodes"]
    assert {"id", "file_name", "page_start", "page_end", "level", "score", "title"} <= set(data["nodes"][0])
    assert data["pages"] == len({(n.file_name, p) for n in result.nodes for p in n.pages})
    assert data["latency_ms"] > 0
    for step in data["trace"]:
        assert {"name", "candidates", "knee_index", "kept", "eliminated", "ms"} <= set(step)
        assert {"dense_rank", "sparse_rank", "fused"} <= set(step["candidates"][0])


def test_unknown_strategy_and_empty_query_are_refused(engine: Engine) -> None:
    with pytest.raises(ValueError, match="unknown strategy"):
        engine.search("x", "random")
    with pytest.raises(ValueError, match="empty"):
        engine.search("  ", "flat")


@pytest.mark.parametrize("strategy", ["branch", "adaptive"])
def test_searches_are_reproducible(engine: Engine, strategy: str) -> None:
    runs = [engine.search("Ulta Beauty net sales guidance", strategy) for _ in range(5)]
    assert len({tuple(n.id for n in run.nodes) for run in runs}) == 1
    assert len({tuple(c.id for c in run.trace[-1].candidates) for run in runs}) == 1


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_every_step_splits_its_candidates_into_kept_and_eliminated(engine: Engine, strategy: str) -> None:
    result = engine.search("net sales growth and supplemental indenture", strategy, SearchParams())
    for step in result.trace:
        ids = [c.id for c in step.candidates]
        assert set(step.kept).isdisjoint(step.eliminated), step.name
        assert sorted([*step.kept, *step.eliminated]) == sorted(ids), step.name
        assert step.eliminated == [i for i in ids if i not in set(step.kept)], "in ranking order"


def test_trace_steps_carry_their_kind_and_node_in_json(engine: Engine) -> None:
    result = engine.search("apples volcanoes violins", "branch", SearchParams(roots=1))
    trace = json.loads(json.dumps(result.to_json()))["trace"]
    assert trace[0]["kind"] == "roots" and trace[0]["node_id"] is None
    parents = trace[1:]
    assert parents and all(s["kind"] == "parent" for s in parents)
    for step in parents:
        assert step["name"] == f"parent {step['node_id']}", "the name is kept for readers of the JSON"
        assert step["node_id"] in [c["id"] for c in step["candidates"]]
    adaptive = engine.search("apples", "adaptive", SearchParams()).to_json()["trace"]
    assert [s["kind"] for s in adaptive] == ["seeds", "pages", "breadth"]


KNEE_BEAM_QUERIES = (
    "Amcor supplemental indenture guarantee",
    "PepsiCo senior notes",
    "apples volcanoes violins",
)


def test_knee_beam_cuts_the_rrf_curve_at_its_knee_before_suppression(engine: Engine) -> None:
    suppressed_inside_cut = 0
    for query in KNEE_BEAM_QUERIES:
        result = engine.search(query, "knee-beam", SearchParams())
        beam = None
        for step in result.trace:
            assert step.curve == [c.fused for c in step.candidates]
            expected = find_knee(step.curve, "kneedle", 1.0, 1, 5)  # the article's knee, pinned
            assert (step.cut, step.knee_index) == (expected.keep, expected.knee_index)
            assert step.natural == (len(step.curve) if step.knee_index is None else step.knee_index + 1)
            assert step.cut == min(step.natural, 5)  # the width is the knee, at most 5
            assert (step.bound, step.bound_value) == (("max_keep", 5) if step.natural > 5 else ("none", None))
            head = step.candidates[: step.cut]
            survivors = suppress(head, None)
            assert step.kept == [c.id for c in survivors], "suppression works on the cut head only"
            assert step.kept_by == ("suppression" if len(survivors) < len(head) else "")
            assert set(step.kept) | set(step.eliminated) == {c.id for c in step.candidates}
            suppressed_inside_cut += len(head) - len(survivors)
            if beam is not None:  # each generation ranks the previous beam plus its children
                assert {c.id for c in step.candidates} <= beam
            beam = {i for c in survivors for i in (c.id, *c.child_ids)}
        assert {n.id for n in result.nodes} == set(result.trace[-1].kept)
    assert suppressed_inside_cut > 0, "a cut after suppression would have refilled these places from below"


def test_knee_beam_keeps_the_articles_knee_whatever_the_knee_knobs(engine: Engine) -> None:
    """The library's knee defaults and the app's knee knobs are for adaptive and flat-knee: knee-beam stays
    the article's method (Kneedle, S = 1, at most 5, RRF), and its trace says so."""
    query = KNEE_BEAM_QUERIES[0]
    article = engine.search(
        query,
        "knee-beam",
        SearchParams(knee_method="kneedle", sensitivity=1.0, max_keep=5, score_source="rrf"),
    )
    for knobs in (
        SearchParams(),
        SearchParams(knee_method="relative", sensitivity=0.05, min_keep=3, max_keep=50, score_source="dense"),
        SearchParams(knee_method="gap", sensitivity=15.0, max_keep=None),
    ):
        result = engine.search(query, "knee-beam", knobs)
        assert [s.kept for s in result.trace] == [s.kept for s in article.trace]
        for step in result.trace:
            assert (step.method, step.sensitivity, step.curve_source) == ("kneedle", 1.0, "rrf")
            assert (step.least, step.most) == (1, 5)
    assert ARTICLE_KNEE.max_keep == 5 and "sensitivity" not in STRATEGIES["knee-beam"].params


def test_each_knee_step_records_the_curve_the_rule_and_the_bound_that_set_its_cut(engine: Engine) -> None:
    query = "Ulta Beauty gross profit margin"  # at S = 0.7 the relative knee keeps 2 of its pages
    capped = engine.search(
        query, "adaptive", SearchParams(roots=1, max_keep=1, doc_breadth=0, sensitivity=0.7)
    )
    seeds, pages = capped.trace
    assert (seeds.curve_source, seeds.method, seeds.sensitivity) == ("dense", "relative", 0.7)
    assert seeds.natural == find_knee(seeds.curve, "relative", 0.7).keep
    assert seeds.natural > 1 and (seeds.cut, seeds.bound, seeds.bound_value) == (1, Bound.ROOTS, 1)
    assert pages.natural > 1 and (pages.cut, pages.bound, pages.bound_value) == (1, "max_keep", 1)
    raised = engine.search(query, "flat-knee", SearchParams(sensitivity=0.0, min_keep=4))
    (step,) = raised.trace
    assert (step.natural, step.cut, step.bound, step.bound_value) == (1, 4, "min_keep", 4)
    free = engine.search(query, "flat-knee", SearchParams(max_keep=None))
    assert (free.trace[0].bound, free.trace[0].cut) == ("none", free.trace[0].natural)
    data = json.loads(json.dumps(capped.to_json()))["trace"][0]
    for key in (
        "curve",
        "curve_source",
        "method",
        "sensitivity",
        "natural",
        "cut",
        "bound",
        "bound_value",
        "kept",
    ):
        assert key in data, key
    assert data["bound"] == seeds.bound and data["curve_source"] == "dense"


@pytest.mark.parametrize("cap", [1, 2])
def test_knee_beam_stops_at_the_iteration_cap(engine: Engine, cap: int) -> None:
    unlimited = engine.search("Amcor supplemental indenture guarantee", "knee-beam", SearchParams())
    capped = engine.search(
        "Amcor supplemental indenture guarantee", "knee-beam", SearchParams(max_iterations=cap)
    )
    assert len(capped.trace) == min(len(unlimited.trace), 1 + cap)  # roots + at most `cap` generations
    assert [s.kept for s in capped.trace] == [s.kept for s in unlimited.trace[: len(capped.trace)]]


def test_adaptive_span_merge_returns_the_parent_of_surviving_siblings(engine: Engine) -> None:
    query = "PepsiCo senior notes indenture"
    plain = engine.search(query, "adaptive", SearchParams(max_keep=10, doc_breadth=0))
    merged = engine.search(query, "adaptive", SearchParams(max_keep=10, span_merge=2, doc_breadth=0))
    siblings: dict[int, list[int]] = {}
    for node in plain.nodes:
        siblings.setdefault(node.parent_id, []).append(node.id)
    spans = {parent for parent, ids in siblings.items() if len(ids) >= 2 and parent != -1}
    assert spans, "the query should keep two pages of one parent"
    returned = {n.id for n in merged.nodes}
    assert spans <= returned
    assert not any(n.parent_id in spans for n in merged.nodes)  # their pages are not returned again
    others = [n.id for n in plain.nodes if n.parent_id not in spans]
    assert [i for i in (n.id for n in merged.nodes) if i not in spans] == others
    assert set(merged.trace[-1].kept) == spans
