"""Tree invariants: grouping 3–5 at the least-alike boundaries, one root per file, tiling page ranges."""

from __future__ import annotations

import random

import pytest
from conftest import FINANCE, PDFS

from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.ingest.describe.describer import Describer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.describe.keywords import terms
from drag_core.ingest.loading import LoadedDocument, load_bytes, load_path
from drag_core.ingest.pipeline import describe_tree
from drag_core.ingest.tree import plan_groups, plan_tree
from drag_core.types import Node, Page


@pytest.mark.parametrize("n", range(1, 60))
def test_group_sizes_are_3_to_5_and_cover_every_node(n: int) -> None:
    sizes = plan_groups([random.Random(n).random() for _ in range(n - 1)])
    assert sum(sizes) == n
    if n > 5:
        assert all(3 <= s <= 5 for s in sizes)
        assert len(sizes) == -(-n // 5)  # the fewest groups that can hold n nodes
    else:
        assert sizes == [n]


def test_boundaries_fall_where_neighbours_are_least_alike() -> None:
    # 8 nodes, two topics: nodes 0–2 alike, 3–7 alike; the cut must fall between 2 and 3
    similarities = [0.9, 0.9, 0.05, 0.8, 0.8, 0.8, 0.8]
    assert plan_groups(similarities) == [3, 5]
    similarities = [0.8, 0.8, 0.8, 0.8, 0.05, 0.9, 0.9]
    assert plan_groups(similarities) == [5, 3]


def _describer() -> Describer:
    return Describer(ExtractiveSummarizer(), DescriptionCache(None))


def _tree(document: LoadedDocument) -> list[Node]:
    return describe_tree(document, _describer())


def _synthetic(pages: int) -> LoadedDocument:
    topics = ["rivers and lakes", "stars and planets", "bread and butter", "trains and tracks"]
    texts = [
        f"Page {i} talks about {topics[i % 4]}. It has more to say on {topics[i % 4]}." for i in range(pages)
    ]
    return LoadedDocument("doc.txt", f"id{pages}", [Page("doc.txt", i + 1, t) for i, t in enumerate(texts)])


def check_invariants(nodes: list[Node], document: LoadedDocument) -> None:
    pages = len(document.pages)
    on_page = [set(terms(page.body)) for page in document.pages]
    by_id = {n.id: n for n in nodes}
    roots = [n for n in nodes if n.parent_id == -1]
    assert len(roots) == 1 and nodes[-1] is roots[0], "one root, written last"
    assert len(by_id) == len(nodes), "ids are unique"
    assert all(n.id < 2**53 for n in nodes)
    assert sorted(n.page_start for n in nodes if n.level == 0) == list(range(1, pages + 1))
    for node in nodes:
        if node.parent_id != -1:
            parent = by_id[node.parent_id]
            assert node.id in parent.child_ids and parent.level == node.level + 1
        if node.child_ids:
            children = [by_id[c] for c in node.child_ids]
            assert children[0].page_start == node.page_start and children[-1].page_end == node.page_end
            for left, right in zip(children, children[1:]):
                assert right.page_start == left.page_end + 1, "children tile their parent's pages"
            siblings_in_level = sum(1 for n in nodes if n.level == node.level - 1)
            if siblings_in_level > 2:
                assert 3 <= len(children) <= 5
            else:
                assert len(children) == siblings_in_level
            assert node.keywords
            for keyword in node.keywords:  # on at least 2 of its pages, or one of its children's
                shared = sum(keyword in on_page[p - 1] for p in node.pages) >= min(2, len(node.pages))
                assert shared or keyword in {k for c in children for k in c.keywords}


def test_one_page_file_is_its_own_root() -> None:
    document = _synthetic(1)
    nodes = _tree(document)
    assert len(nodes) == 1 and nodes[0].parent_id == -1 and nodes[0].level == 0
    check_invariants(nodes, document)


def test_two_page_file_has_one_parent_over_both() -> None:
    document = _synthetic(2)
    nodes = _tree(document)
    assert [n.level for n in nodes] == [0, 0, 1]
    check_invariants(nodes, document)


@pytest.mark.parametrize(("pages", "expected_levels"), [(6, [6, 2, 1]), (7, [7, 2, 1]), (26, [26, 6, 2, 1])])
def test_level_sizes(pages: int, expected_levels: list[int]) -> None:
    document = _synthetic(pages)
    nodes = _tree(document)
    levels = [sum(1 for n in nodes if n.level == lv) for lv in range(max(n.level for n in nodes) + 1)]
    assert levels == expected_levels
    check_invariants(nodes, document)


@pytest.mark.parametrize("path", [PDFS / "R-data.pdf", FINANCE / "FOOTLOCKER_2022_8K_dated_2022-08-19.pdf"])
def test_real_pdf_tree_invariants(path) -> None:
    document = load_path(path)
    nodes = _tree(document)
    check_invariants(nodes, document)
    for node in nodes:
        if node.level > 0 or len(node.text.split()) > 100:
            assert node.summary and 5 <= len(node.keywords) <= 10


@pytest.mark.parametrize("n", range(1, 60))
def test_the_plan_counts_the_parents_built(n: int) -> None:
    document = _synthetic(n)
    assert sum(1 for node in _tree(document) if node.level > 0) == plan_tree(document).parents


def test_tree_progress_runs_once_over_all_levels(make_engine) -> None:
    sections = [f"# Part {i}\n\n" + f"Topic {i} words about subject number {i}. " * 70 for i in range(26)]
    data = "\n\n".join(sections).encode()
    events = []
    report = make_engine().ingest_bytes("long.md", data, events.append)
    assert report.pages == 26
    parents = plan_tree(load_bytes("long.md", data)).parents
    assert parents == 11  # a chapter per section: 8 groups of 3–4 chapters, then 2, then the root
    tree = [(e.done, e.total) for e in events if e.stage == "tree"]
    assert tree[-1] == (parents, parents)
    assert [done for done, _ in tree] == sorted(done for done, _ in tree)
    assert {total for _, total in tree} == {parents}
