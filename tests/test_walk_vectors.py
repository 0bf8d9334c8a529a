"""What the walks read above the page (issue 27): each parent vector policy's text builder on real trees of a
manual with an outline and a filing without one."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from conftest import FINANCE, PDFS, SHARED
from pypdf import PdfReader, PdfWriter

from drag_core.fusion import classic_rrf_score
from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.loading import load_path
from drag_core.ingest.pipeline import describe_tree
from drag_core.ingest.vector_text import (
    VectorPolicy,
    dense_count,
    dense_vectors,
    outline_text,
    sparse_texts,
    titled,
    vocabulary_text,
)
from drag_core.params import ROOT_RANKS, SearchParams
from drag_core.search.base import ROOT_POOL
from drag_core.search.roots import by_best_page
from drag_core.store import Candidate
from drag_core.types import Node


def _tree(path) -> tuple[list[Node], list[str]]:
    document = load_path(path)
    nodes = describe_tree(document, Describer(ExtractiveSummarizer(), DescriptionCache(None)))
    return nodes, [page.body for page in document.pages]


@pytest.fixture(scope="module")
def manual() -> tuple[list[Node], list[str]]:
    return _tree(PDFS / "R-FAQ.pdf")


@pytest.fixture(scope="module")
def filing() -> tuple[list[Node], list[str]]:
    return _tree(FINANCE / "AMCOR_2023Q2_10Q.pdf")


def _root(nodes: list[Node]) -> Node:
    (root,) = [n for n in nodes if n.parent_id == -1]
    return root


def test_the_outline_names_the_sections_below_the_node_not_its_pages_words(manual) -> None:
    nodes, bodies = manual
    by_id = {n.id: n for n in nodes}
    root = _root(nodes)
    text = outline_text(root, by_id, sparse=True)
    assert text.startswith("R FAQ › ")
    children = [by_id[c] for c in root.child_ids]
    assert all(c.title in text for c in children if c.title)  # the top of the outline, whole
    assert text.index(children[0].title) < text.index(f"Keywords: {', '.join(root.keywords)}")
    subtree = "\n".join(bodies)
    assert len(text.split()) < len(subtree.split()) / 10  # a table of contents, not the pages
    leaf_titles = {n.title for n in nodes if n.level == 0 and n.title}
    assert sum(t in text for t in leaf_titles) > len(leaf_titles) / 2  # the sections the pages are in
    dense = outline_text(root, by_id, sparse=False)
    assert not dense.startswith("R FAQ › ") and dense.startswith("R FAQ\n")  # no section title of its own


def test_without_an_outline_a_parent_is_its_file_title_and_keywords(filing) -> None:
    nodes, _ = filing
    by_id = {n.id: n for n in nodes}
    root = _root(nodes)
    assert not any(n.title for n in nodes)
    assert outline_text(root, by_id, sparse=True) == titled(
        root.file_name, f"Keywords: {', '.join(root.keywords)}"
    )


def test_the_vocabulary_holds_each_word_of_the_subtree_once(manual) -> None:
    nodes, bodies = manual
    root = _root(nodes)
    texts = dict(
        zip((n.id for n in nodes), sparse_texts(nodes, VectorPolicy(parent_sparse="vocabulary"), bodies))
    )
    words = texts[root.id].split("\n", 1)[1].split()
    assert len(words) == len(set(words))
    assert set(words) == set(re.findall(r"\w+", "\n".join(bodies).casefold()))
    subtree = sparse_texts(nodes, VectorPolicy(parent_sparse="subtree"), bodies)
    assert len(texts[root.id]) < len(subtree[nodes.index(root)]) / 3
    assert vocabulary_text("The the THE cat, the Cat") == "the cat"


def test_leaves_read_their_pages_under_every_parent_policy(manual) -> None:
    nodes, bodies = manual
    by_policy = [
        sparse_texts(nodes, VectorPolicy(parent_sparse=s), bodies)
        for s in ("subtree", "outline", "vocabulary")
    ]
    leaves = [i for i, n in enumerate(nodes) if n.level == 0]
    assert all(len({texts[i] for texts in by_policy}) == 1 for i in leaves)
    parents = [i for i, n in enumerate(nodes) if n.level > 0]
    assert all(len({texts[i] for texts in by_policy}) == 3 for i in parents)


@pytest.mark.parametrize("dense", ["outline", "blend"])
def test_outline_and_blend_parents_embed_their_outline(embedder, manual, dense) -> None:
    nodes, bodies = manual
    by_id = {n.id: n for n in nodes}
    seen: list[str] = []

    def embed(texts: list[str]) -> np.ndarray:
        seen.extend(texts)
        return embedder.dense(texts)

    policy = VectorPolicy(parent_dense=dense)
    vectors = dense_vectors(nodes, policy, embed, bodies)
    assert len(seen) == dense_count(nodes, policy) == len(nodes)
    parents = [(i, n) for i, n in enumerate(nodes) if n.level == 1]  # above pages: the same centroid
    outlines = embedder.dense([outline_text(n, by_id, sparse=False) for _, n in parents])
    centroids = dense_vectors(nodes, VectorPolicy(), embedder.dense, bodies)[[i for i, _ in parents]]
    mine = vectors[[i for i, _ in parents]]
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-5)
    to_outline = np.sum(mine * outlines, axis=1)
    if dense == "outline":
        assert np.allclose(to_outline, 1.0, atol=1e-4)
    else:  # between the two: nearer the outline than the centroid is, nearer the centroid than the outline is
        assert np.all(to_outline > np.sum(centroids * outlines, axis=1))
        assert np.all(to_outline < 1.0 - 1e-3)


# -- a real index of a manual and a filing: which document the walks' pages come from -------------------------
def _slice(source, first: int, last: int, target) -> None:
    reader, writer = PdfReader(source), PdfWriter()
    for page in reader.pages[first - 1 : last]:
        writer.add_page(page)
    writer.write(target)


def _questions(data_set: str, doc: str) -> list[str]:
    lines = (SHARED / "data" / data_set / "queries.jsonl").read_text().splitlines()
    return [q["text"] for q in map(json.loads, lines) if q["doc"] == doc]


@pytest.fixture(scope="module")
def two_kinds(tmp_path_factory):
    """R-FAQ pages 33–44 (a manual with an outline) and a whole earnings release (a filing without one), and
    the development questions about each."""
    folder = tmp_path_factory.mktemp("two-kinds")
    _slice(PDFS / "R-FAQ.pdf", 33, 44, folder / "R-FAQ.pdf")
    _slice(FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf", 1, 99, folder / "ULTABEAUTY_2023Q4_EARNINGS.pdf")
    asked = {
        "R-FAQ.pdf": _questions("manuals-dev", "R-FAQ.pdf"),
        "ULTABEAUTY_2023Q4_EARNINGS.pdf": _questions("financebench-dev", "ULTABEAUTY_2023Q4_EARNINGS.pdf"),
    }
    return sorted(folder.iterdir()), asked


def _own_share(engine, asked: dict[str, list[str]], strategy: str) -> float:
    """The mean share of the pages a walk returns that come from the question's own document."""
    shares = []
    for doc, questions in asked.items():
        for question in questions:
            pages = [
                (n.file_name, n.page_end - n.page_start + 1) for n in engine.search(question, strategy).nodes
            ]
            shares.append(sum(size for name, size in pages if name == doc) / sum(size for _, size in pages))
    return sum(shares) / len(shares)


def test_blended_parents_keep_the_beams_pages_in_the_questions_document(make_engine, two_kinds) -> None:
    files, asked = two_kinds
    assert sum(map(len, asked.values())) >= 10
    shares = {}
    for policy in (VectorPolicy(), VectorPolicy(parent_dense="blend", parent_sparse="vocabulary")):
        engine = make_engine(policy=policy)
        assert all(r.ok for r in engine.ingest_paths(files))
        shares[policy.identity] = {s: _own_share(engine, asked, s) for s in ("beam", "knee-beam")}
    old, new = shares.values()
    assert new["beam"] > old["beam"] + 0.05
    assert new["knee-beam"] >= old["knee-beam"] - 0.03


def test_the_walks_start_from_the_documents_of_the_best_pages(make_engine, two_kinds) -> None:
    """``root_rank=best-page``: a root's rank in the dense and the sparse list is its document's best page's
    rank there (flat's page ranking, ``ROOT_POOL`` deep), the two fused by RRF; the question's own document
    comes first more often than by the roots' own vectors."""
    files, asked = two_kinds
    engine = make_engine()
    assert all(r.ok for r in engine.ingest_paths(files))
    first = dict.fromkeys(ROOT_RANKS, 0)
    for doc, questions in asked.items():
        for question in questions:
            pages = engine.search(question, "flat", SearchParams(top_k=ROOT_POOL)).trace[0].candidates
            expected = {}
            for name in {p.file_name for p in pages}:
                ranks = [
                    min(filter(None, (rank(p) for p in pages if p.file_name == name)), default=None)
                    for rank in (lambda p: p.dense_rank, lambda p: p.sparse_rank)
                ]
                expected[name] = ranks
            for rank in ROOT_RANKS:
                roots = engine.search(question, "branch", SearchParams(root_rank=rank)).trace[0]
                first[rank] += roots.candidates[0].file_name == doc
                if rank == "best-page":
                    assert all(c.parent_id == -1 for c in roots.candidates)
                    assert {c.file_name for c in roots.candidates} == set(expected)
                    for c in roots.candidates:
                        assert c.fused == pytest.approx(
                            classic_rrf_score(_document_ranks(expected, c.file_name))
                        )
                    assert [c.fused for c in roots.candidates] == sorted(
                        (c.fused for c in roots.candidates), reverse=True
                    )
    assert first["best-page"] > first["root-vectors"]


def _document_ranks(best: dict[str, list[int | None]], name: str) -> list[int | None]:
    """A document's rank among the documents in each list, by its best page's rank there."""
    out = []
    for i in range(2):
        order = sorted((ranks[i], other) for other, ranks in best.items() if ranks[i] is not None)
        out.append(next((r for r, (_, other) in enumerate(order, start=1) if other == name), None))
    return out


def _candidate(id: int, doc: str, fused: float, dense: int | None, sparse: int | None, level: int = 0):
    return Candidate(id, -1 if level else 100, (), level, doc, 1, 1, fused, dense, sparse, 0.1 * id, doc, 1.0)


def test_a_root_ranks_by_its_best_pages_rank_in_each_list_fused_by_rrf() -> None:
    pages = [
        _candidate(1, "a", 0.03, 2, None),
        _candidate(2, "b", 0.02, 1, 3),
        _candidate(3, "a", 0.01, 4, 1),
        _candidate(4, "c", 0.005, 3, 2),  # a document whose root was not found: left out
    ]
    roots = [_candidate(20, "b", 0.9, 1, 1, level=1), _candidate(10, "a", 0.8, 2, 2, level=1)]
    ranked = by_best_page(pages, roots, rrf_k=60)
    assert [(c.dense_rank, c.sparse_rank) for c in ranked] == [
        (2, 1),
        (1, 2),
    ]  # a, b: tied, a's cosine higher
    assert [c.id for c in ranked] == [10, 20]
    assert ranked[0].fused == pytest.approx(1 / 62 + 1 / 61)
    assert [c.dense_score for c in ranked] == [pytest.approx(0.3), pytest.approx(0.2)]
    assert all(c.level == 1 and c.parent_id == -1 for c in ranked)
    dense_only = by_best_page(pages, roots, rrf_k=60, dense_weight=1.0)  # the dense list alone decides
    assert [c.id for c in dense_only] == [20, 10]
