"""Every word of a page reaches the dense ranking (issue 26): a leaf's passages — its page cut at the sections
starting on it, then into pieces the dense model reads whole — stored as a MaxSim multivector on both engines,
read by the rankings that ask for them; a collection made before them still searches by page vectors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import qdrant_edge as edge
from conftest import FINANCE, PDFS

from drag_core.config import Settings
from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.loading import LoadedDocument, load_path
from drag_core.ingest.passages import section_starts
from drag_core.ingest.pipeline import describe_tree
from drag_core.ingest.report import StaleReason
from drag_core.ingest.sections import Sections
from drag_core.ingest.vector_text import (
    VectorPolicy,
    dense_vectors,
    page_passages,
    passage_texts,
    passage_vectors,
    sparse_texts,
    stored_passages,
    titled,
)
from drag_core.layout import StoreLayout
from drag_core.params import SearchParams
from drag_core.store import DENSE, ENGINES, PASSAGES, QueryVectors, Scope, ScopeKind, open_store
from drag_core.store.edge import CONFIG_FILE
from drag_core.types import Node

MANUAL = PDFS / "R-intro.pdf"
FILING = FINANCE / "AMCOR_2023Q2_10Q.pdf"


def leaves_of(document: LoadedDocument) -> list[Node]:
    """A document's pages as leaves, one per page, with no description."""
    return [
        Node(i, -1, [], 0, document.doc_id, document.file_name, p.number, p.number, [], "")
        for i, p in enumerate(document.pages)
    ]


@pytest.fixture(scope="module")
def manual() -> LoadedDocument:
    return load_path(MANUAL)


def _non_space(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("headed", [False, True])
def test_every_passage_fits_the_model_and_the_passages_cover_the_body(embedder, manual, headed) -> None:
    bodies = [page.body for page in manual.pages]
    sections = Sections(manual.outline, len(bodies))
    nodes = leaves_of(manual)
    longest, several = 0, 0
    for node in nodes:
        passages = page_passages(node, bodies, sections, embedder, headed)
        body = bodies[node.page_start - 1]
        assert _non_space("".join(p.text for p in passages)) == _non_space(body)
        assert all(body[p.start : p.end] == p.text for p in passages)
        for p in passages:
            pieces = embedder.pieces(titled(node.file_name, p.text, p.heading if headed else ""))
            assert pieces <= embedder.max_pieces == 256
            longest = max(longest, pieces)
        several += len(passages) > 1
    assert longest > 240  # full passages exist: the cut is not needlessly small
    assert several > len(nodes) // 2  # most pages of a manual need more than one passage


def test_a_section_starting_mid_page_begins_its_own_passage_under_its_heading(embedder, manual) -> None:
    bodies = [page.body for page in manual.pages]
    sections = Sections(manual.outline, len(bodies))
    checked = 0
    for node in leaves_of(manual):
        page = node.page_start - 1
        before = sections.page_title(page - 1) if page > 0 else ""
        mid = [s for s in section_starts(bodies[page], sections.starts_on(page), before) if s.offset > 0]
        if not mid:
            continue
        passages = page_passages(node, bodies, sections, embedder, headed=True)
        for start in mid:
            (first,) = [p for p in passages if p.start == start.offset]
            assert first.heading == start.heading
            title = next(t for t, h in sections.starts_on(page) if h == start.heading)
            assert title.split()[0].lower() in first.text[:80].lower()  # it begins at its heading
            earlier = [p for p in passages if p.end <= start.offset]
            assert earlier and earlier[-1].heading != start.heading
            checked += 1
    assert checked >= 20  # R-intro's outline starts many sections mid-page


def test_the_heading_policy_puts_the_heading_in_the_dense_text_only_when_asked(embedder, manual) -> None:
    bodies = [page.body for page in manual.pages]
    sections = Sections(manual.outline, len(bodies))
    nodes = leaves_of(manual)[20:30]
    plain = passage_texts(nodes, VectorPolicy(passages="plain"), bodies, sections, embedder)
    headed = passage_texts(nodes, VectorPolicy(passages="heading"), bodies, sections, embedder)
    assert all(t.startswith("R intro\n") for texts in plain for t in texts or ())
    assert any(t.startswith("R intro › ") for texts in headed for t in texts or ())
    assert passage_texts(nodes, VectorPolicy(passages="off"), bodies, sections, embedder) == [None] * 10


# -- both engines: store, rank, MaxSim -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def filing(embedder):
    """A real 10-Q as ingestion writes it: nodes, page vectors, BM25 vectors and passages."""
    document = load_path(FILING)
    nodes = describe_tree(document, Describer(ExtractiveSummarizer(), DescriptionCache(None)))
    bodies = [page.body for page in document.pages]
    policy = VectorPolicy()
    sections = Sections(document.outline, len(bodies))
    own = passage_vectors(
        passage_texts(nodes, policy, bodies, sections, embedder), embedder.dense, embedder.dim
    )
    dense = dense_vectors(nodes, policy, embedder.dense, bodies, own)
    passages = stored_passages(own, dense)
    return nodes, dense, embedder.sparse(sparse_texts(nodes, policy, bodies)), passages, bodies


def _end_query(embedder, bodies: list[str], page: int) -> QueryVectors:
    words = bodies[page].split()
    dense, sparse = embedder.query(" ".join(words[-60:]))
    return QueryVectors(dense=dense, sparse=sparse)


def test_both_engines_rank_by_passages_with_equal_maxsim_and_find_a_page_by_its_end(embedder, filing) -> None:
    nodes, dense, sparse, passages, bodies = filing
    leaves = [n for n in nodes if n.level == 0]
    counts = [len(passages[i]) for i, n in enumerate(nodes) if n.level == 0]
    assert max(counts) >= 3 and all(p is None for p, n in zip(passages, nodes) if n.level > 0)
    by_page = {"passages": Scope(kind=ScopeKind.LEAVES, limit=10, using=(DENSE,), dense=PASSAGES)}
    by_page["page"] = Scope(kind=ScopeKind.LEAVES, limit=10, using=(DENSE,))
    found: dict[str, dict[str, list]] = {}
    for engine in ENGINES:
        store = open_store(Settings(store=":memory:", engine=engine, cache_path=None))
        store.ensure_collection(embedder.dim)
        assert store.holds_passages
        store.write_document(nodes, dense, sparse, passages=passages)
        results: dict[str, list] = {}
        for page in range(len(leaves)):
            if counts[page] < 3:
                continue
            query = _end_query(embedder, bodies, page)
            (ranked, unranked), _ = store.rank(query, [by_page["passages"], by_page["page"]], 60)
            results[f"{page}"] = [(c.id, round(c.dense_score, 5)) for c in ranked]
            results[f"{page}-page"] = [c.id for c in unranked]
            best = max(float(v @ query.dense) for v in passages[page])
            (own,) = [c for c in ranked if c.id == leaves[page].id] or [None]
            # MaxSim with one query vector: the page's best passage's cosine
            assert own is None or own.dense_score == pytest.approx(best, abs=1e-4)
        found[engine] = results
        store.close()
    for key, ranked in found["edge"].items():  # same rankings, same MaxSim scores (float32 noise aside)
        other = found["local"][key]
        if key.endswith("-page"):
            assert ranked[0] == other[0]
            continue
        assert ranked[0][0] == other[0][0]
        local = dict(other)
        assert all(local[i] == pytest.approx(score, abs=1e-4) for i, score in ranked if i in local)
    results = found["edge"]
    by_end = [p for p in results if "-" not in p and results[p][0][0] == leaves[int(p)].id]
    page_vector_missed = [p for p in by_end if results[f"{p}-page"][0] != leaves[int(p)].id]
    asked = [p for p in results if "-" not in p]
    by_page_vector = [p for p in asked if results[f"{p}-page"][0] == leaves[int(p)].id]
    assert len(by_end) >= 0.7 * len(asked) and len(by_end) >= len(by_page_vector) + 5
    assert page_vector_missed  # pages found by their ends only through their passages


# -- older indexes -------------------------------------------------------------------------------------------
def _old_collection(folder: Path, dim: int) -> None:
    """A Qdrant Edge shard as the store made it before passages: a page vector and BM25 only."""
    shard_folder = StoreLayout(folder).edge_shard("drag_nodes")
    shard_folder.mkdir(parents=True)
    config = edge.EdgeConfig(
        vectors={DENSE: edge.EdgeVectorParams(size=dim, distance=edge.Distance.Cosine)},
        sparse_vectors={"sparse": edge.EdgeSparseVectorParams(modifier=edge.Modifier.Idf)},
    )
    edge.EdgeShard.create(str(shard_folder), config).close()
    assert (shard_folder / CONFIG_FILE).exists()


def test_an_old_collection_searches_by_page_vectors_and_flags_its_documents(
    make_engine, embedder, tmp_path
) -> None:
    folder = tmp_path / "qdrant"
    _old_collection(folder, embedder.dim)
    engine = make_engine(store=str(folder))
    assert not engine.store.holds_passages
    (report,) = engine.ingest_paths([FILING])
    assert report.ok
    (info,) = engine.documents()
    assert not info.current and info.stale_reason == StaleReason.OTHER_VECTORS  # built without passages
    # re-ingesting cannot add passages to this collection: unchanged, no loop of re-ingests
    assert engine.ingest_paths([FILING])[0].status == "unchanged"
    for strategy in ("flat", "flat-dense", "adaptive"):
        result = engine.search("net sales by segment", strategy, SearchParams())
        assert result.nodes and all(step.dense == DENSE for step in result.trace)


def test_a_new_collection_ranks_by_passages_and_a_current_file_is_free_to_ingest_again(
    make_engine, tmp_path
) -> None:
    engine = make_engine(store=str(tmp_path / "qdrant"))
    assert engine.store.holds_passages
    assert engine.ingest_paths([FILING])[0].ok
    (info,) = engine.documents()
    assert info.current
    embedded = engine.embedder.embedded
    assert engine.ingest_paths([FILING])[0].status == "unchanged" and engine.embedder.embedded == embedded
    passages = engine.search("net sales by segment", "flat", SearchParams())
    assert [step.dense for step in passages.trace] == [PASSAGES]
    pages = engine.search("net sales by segment", "flat", SearchParams(passages="off"))
    assert [step.dense for step in pages.trace] == [DENSE]
    page_scores = {c.id: c.dense_score for c in pages.trace[0].candidates}
    shared = [c for c in passages.trace[0].candidates if c.id in page_scores and c.dense_score is not None]
    assert shared and any(abs(c.dense_score - page_scores[c.id]) > 1e-3 for c in shared)  # another vector
