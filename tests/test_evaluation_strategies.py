"""The ranking options the evaluation study added — fusion depth, one-vector flats, scoped BM25 IDF, rankings
restricted to files — and the ``adaptive`` strategy built on them, on a real index of generated pages."""

from __future__ import annotations

import pytest
from test_evaluation import TOPICS, _page

from drag_core.knee import find_knee
from drag_core.search import SearchParams
from drag_core.store import SPARSE, Scope, ScopeKind

# a.txt: "alpha" on pages 1 and 3, "beta" on page 2 only; b.txt: "beta" on all ten pages. Globally alpha is the
# rarer term, inside a.txt beta is: a sparse ranking of a.txt's pages flips with the IDF corpus.
FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt labore "


def _pages(words: list[str]) -> str:
    return "\n\n".join(_page(f"{word} {FILLER}") for word in words)


@pytest.fixture(scope="module")
def engine(embedder, tmp_path_factory):
    from drag_core.config import Settings
    from drag_core.engine import Engine
    from drag_core.ingest.describe.extractive import ExtractiveSummarizer

    engine = Engine(
        Settings.from_env(env={}, store=":memory:", cache_path=None), ExtractiveSummarizer(), embedder
    )
    files = {"a.txt": _pages(["alpha", "beta", "alpha", "delta"]), "b.txt": _pages(["beta"] * 10)}
    for i, sentences in enumerate(TOPICS.values(), start=1):  # titles t1..t3 share no word with the pages
        files[f"t{i}.txt"] = "\n\n".join(_page(s) for s in sentences)
    for name, text in files.items():
        assert engine.ingest_bytes(name, text.encode()).ok
    yield engine
    engine.close()


def _sparse_order(engine, scoped: bool) -> list[int]:
    vectors = engine.embed_query("alpha beta")
    (a,) = [d.doc_id for d in engine.documents() if d.file_name == "a.txt"]
    scope = Scope(kind=ScopeKind.LEAVES, docs=(a,), limit=10, using=(SPARSE,), scoped_idf=scoped)
    (ranking,), _ = engine.store.rank(vectors, [scope], 60)
    assert {c.file_name for c in ranking} == {"a.txt"}
    return [c.page_start for c in ranking]


def test_scoped_idf_weighs_terms_by_the_pages_compared(engine) -> None:
    assert _sparse_order(engine, scoped=False)[0] in (1, 3)  # alpha: 2 pages of 18, beta: 11
    assert _sparse_order(engine, scoped=True)[0] == 2  # inside a.txt: beta 1 page of 4, alpha 2
    assert set(_sparse_order(engine, scoped=True)) == {1, 2, 3}  # page 4 holds neither term


def test_flat_top_k_is_the_head_of_one_deep_fused_ranking(engine) -> None:
    query = "Sailors trim jib sheets and bakers proof sourdough loaves"
    five = engine.search(query, "flat", SearchParams(top_k=5))
    fifty = engine.search(query, "flat", SearchParams(top_k=50))
    assert [n.id for n in five.nodes] == [n.id for n in fifty.nodes][:5]
    assert len(fifty.nodes) == 4 + 10 + 12  # every page, each list read 50 deep


def test_one_vector_flats_follow_their_own_list(engine) -> None:
    query = TOPICS["gamma.txt"][0]
    dense = engine.search(query, "flat-dense", SearchParams(top_k=6)).trace[0].candidates
    assert [c.dense_rank for c in dense] == [1, 2, 3, 4, 5, 6]
    cosines = [c.dense_score for c in dense]
    assert cosines == sorted(cosines, reverse=True)
    sparse = engine.search(query, "flat-sparse", SearchParams(top_k=6)).trace[0].candidates
    assert [c.sparse_rank for c in sparse] == list(range(1, len(sparse) + 1))
    assert (sparse[0].file_name, sparse[0].page_start) == ("t3.txt", 1)


@pytest.mark.parametrize("source", ["dense", "rrf"])
def test_adaptive_keeps_knee_cut_pages_of_the_documents_of_its_seed_pages(engine, source: str) -> None:
    params = SearchParams(roots=2, max_keep=6, score_source=source, doc_breadth=0, neighbours=0)
    result = engine.search(TOPICS["beta.txt"][2], "adaptive", params)
    seeds, pages = result.trace
    assert len(seeds.candidates) == 4 + 10 + 12  # every page of the index is a candidate seed
    method, s = params.knee_method, params.sensitivity  # the default detector: relative, S = 0.5
    assert (seeds.method, seeds.sensitivity, pages.method, pages.sensitivity) == ("relative", 0.5) * 2
    assert 1 <= seeds.cut <= 2 and seeds.cut == find_knee(seeds.curve, method, s, 1, 2).keep
    files = {c.file_name for c in seeds.candidates[: seeds.cut]}
    assert seeds.kept == [c.id for c in seeds.candidates[: seeds.cut]]
    assert {c.file_name for c in pages.candidates} == files
    assert pages.cut == find_knee(pages.curve, method, s, 1, 6).keep
    assert [n.id for n in result.nodes] == pages.kept == [c.id for c in pages.candidates[: pages.cut]]
    assert all(n.level == 0 for n in result.nodes)
    assert (result.nodes[0].file_name, result.nodes[0].page_start) == ("t2.txt", 3)
    if source == "dense":
        assert pages.curve == sorted((c.dense_score for c in pages.candidates), reverse=True)


def test_add_cosines_fills_in_the_cosines_the_dense_list_did_not_bring(engine) -> None:
    from dataclasses import replace

    from drag_core.search import SearchContext, Step

    query = TOPICS["alpha.txt"][0]
    flat = engine.search(query, "flat", SearchParams(top_k=8)).trace[0]
    ranked = flat.candidates
    blanked = [replace(c, dense_score=None) if i % 2 else c for i, c in enumerate(ranked)]
    step = Step("leaves", blanked, dense=flat.dense)  # the vector the ranking's dense list read
    before = engine.store.round_trips
    SearchContext(engine.store, engine.embed_query(query), SearchParams()).add_cosines(step)
    assert engine.store.round_trips == before + 2  # the list, the fields of its points
    assert [c.dense_score for c in step.candidates] == pytest.approx([c.dense_score for c in ranked])
    assert [c.id for c in step.candidates] == [c.id for c in ranked]


BREADTH_QUERIES = (
    TOPICS["beta.txt"][2],
    "Sailors trim jib sheets and bakers proof sourdough loaves",
    "alpha beta",
    "honeycomb, glaciers and chess",
)


def test_adaptive_never_drops_a_document_the_head_of_the_flat_ranking_shows(engine) -> None:
    added_somewhere = 0
    for query in BREADTH_QUERIES:
        narrow = engine.search(query, "adaptive", SearchParams(roots=1, doc_breadth=0))
        wide = engine.search(query, "adaptive", SearchParams(roots=1, doc_breadth=5))
        flat = engine.search(query, "flat", SearchParams(top_k=5))  # breadth reads flat's own ranking
        assert wide.round_trips == narrow.round_trips, "breadth costs no Qdrant call"
        assert {n.doc_id for n in flat.nodes} <= {n.doc_id for n in wide.nodes}
        answer = [n.id for n in narrow.nodes]
        assert [n.id for n in wide.nodes][: len(answer)] == answer, "the knee's answer comes first, unchanged"
        seed_page: dict[str, int] = {}
        for c in wide.trace[0].candidates[:5]:
            seed_page.setdefault(c.doc_id, c.id)
        missing: list[int] = []
        present = {n.doc_id for n in narrow.nodes}
        for node in flat.nodes:  # each missing document's best page among flat's first five, in that order,
            if node.doc_id not in present:  # then the seed ranking's page of it where that is another
                present.add(node.doc_id)
                missing += dict.fromkeys([node.id, seed_page.get(node.doc_id, node.id)])
        added = [n.id for n in wide.nodes][len(answer) :]
        assert added == missing
        breadth = wide.trace[-1]
        assert breadth.kind == "breadth" and breadth.kept == added
        assert [c.id for c in breadth.candidates][:5] == [n.id for n in flat.nodes]
        added_somewhere += len(added)
    assert added_somewhere > 0, "roots=1 should leave some document of flat's top five out of the answer"
