"""Building the summary tree of one document.

Leaves are the pages. Consecutive nodes are grouped 3–5 per parent; within those bounds each boundary is put
where neighbouring nodes are least alike (lexical cosine of their words), by dynamic programming over the
fewest groups possible. Levels repeat until one root remains (``parent_id = -1``).

Small documents: 1 page → the page itself is the root (a leaf root); 2 pages → one parent over both
(a group of 2, the only size below 3 the tree ever makes, and only when a level has exactly 2 nodes).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Sequence

from drag_core.ingest.loading import LoadedDocument
from drag_core.text import content_words
from drag_core.types import Description, Node

__all__ = [
    "GROUP_MAX",
    "GROUP_MIN",
    "INDEX_BITS",
    "DescribeGroups",
    "build_tree",
    "group_count",
    "node_id_base",
    "parent_count",
    "plan_groups",
]

GROUP_MIN, GROUP_MAX = 3, 5
INDEX_BITS = 20  # up to ~1M nodes per document
DescribeGroups = Callable[[list[list[Description]]], list[Description]]


def node_id_base(file_name: str, doc_id: str) -> int:
    """First point id of a document version; ids stay below 2**53 so JavaScript reads them exactly."""
    digest = hashlib.sha256(f"{file_name}\x00{doc_id}".encode()).digest()
    return (int.from_bytes(digest[:8], "big") & ((1 << 33) - 1)) << INDEX_BITS


def group_count(nodes: int) -> int:
    """How many groups ``plan_groups`` makes of ``nodes`` consecutive nodes: the fewest that can hold them."""
    return math.ceil(nodes / GROUP_MAX)


def plan_groups(similarities: Sequence[float]) -> list[int]:
    """Group sizes for ``len(similarities) + 1`` consecutive nodes.

    ``similarities[i]`` is how alike node i and node i+1 are. Uses the fewest groups that can hold the nodes
    (ceil(n / 5)) and, among the sizes 3–5 that add up to n, the cuts with the smallest total similarity;
    ties go to sizes nearest 4.
    """
    n = len(similarities) + 1
    if n <= GROUP_MAX:
        return [n]
    groups = group_count(n)
    # best[g][i]: lowest cost of splitting the first i nodes into g groups
    best = [[math.inf] * (n + 1) for _ in range(groups + 1)]
    choice = [[0] * (n + 1) for _ in range(groups + 1)]
    best[0][0] = 0.0
    for g in range(1, groups + 1):
        for i in range(GROUP_MIN * g, min(GROUP_MAX * g, n) + 1):
            for size in range(GROUP_MIN, GROUP_MAX + 1):
                start = i - size
                if start < 0 or best[g - 1][start] == math.inf:
                    continue
                cut = similarities[i - 1] if i < n else 0.0
                cost = best[g - 1][start] + cut + 1e-6 * abs(size - 4)
                if cost < best[g][i]:
                    best[g][i], choice[g][i] = cost, size
    sizes, i = [], n
    for g in range(groups, 0, -1):
        sizes.append(choice[g][i])
        i -= choice[g][i]
    return sizes[::-1]


def parent_count(pages: int) -> int:
    """How many parents ``build_tree`` makes over ``pages`` leaves (the group count per level is fixed)."""
    total = 0
    while pages > 1:
        pages = group_count(pages)
        total += pages
    return total


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    dot = sum(n * b[w] for w, n in a.items() if w in b)
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def build_tree(
    document: LoadedDocument, pages: Sequence[Description], describe_groups: DescribeGroups
) -> list[Node]:
    """All nodes of the document's tree: leaves first, then each level, the root last.

    ``pages`` are the page descriptions in page order; ``describe_groups`` describes a whole level of groups
    at once (so an LLM can work on them concurrently) and returns one description per group.
    """
    if len(pages) != len(document.pages):
        raise ValueError("one description per page is required")
    base = node_id_base(document.file_name, document.doc_id)
    nodes: list[Node] = []
    bags: list[Counter[str]] = []
    for page, description in zip(document.pages, pages):
        nodes.append(_node(base + len(nodes), 0, document, page.number, page.number, description, page.text))
        bags.append(Counter(content_words(page.text)) + Counter(k.lower() for k in description.keywords))
    level_nodes, level_bags, descriptions = list(nodes), bags, list(pages)
    while len(level_nodes) > 1:
        sizes = plan_groups([_cosine(a, b) for a, b in zip(level_bags, level_bags[1:])])
        spans = _spans(sizes)
        parents_descriptions = describe_groups([descriptions[a:b] for a, b in spans])
        parents, parent_bags = [], []
        for (a, b), description in zip(spans, parents_descriptions):
            children = level_nodes[a:b]
            parent = _node(
                base + len(nodes),
                children[0].level + 1,
                document,
                children[0].page_start,
                children[-1].page_end,
                description,
            )
            parent.child_ids = [child.id for child in children]
            for child in children:
                child.parent_id = parent.id
            nodes.append(parent)
            parents.append(parent)
            parent_bags.append(sum(level_bags[a:b], Counter()))
        level_nodes, level_bags, descriptions = parents, parent_bags, list(parents_descriptions)
    return nodes


def _spans(sizes: list[int]) -> list[tuple[int, int]]:
    spans, start = [], 0
    for size in sizes:
        spans.append((start, start + size))
        start += size
    return spans


def _node(
    node_id: int,
    level: int,
    document: LoadedDocument,
    page_start: int,
    page_end: int,
    description: Description,
    text: str = "",
) -> Node:
    return Node(
        id=node_id,
        parent_id=-1,
        child_ids=[],
        level=level,
        doc_id=document.doc_id,
        file_name=document.file_name,
        page_start=page_start,
        page_end=page_end,
        keywords=list(description.keywords),
        summary=description.summary,
        text=text,
        summary_source=description.source,
        fallback_reason=description.fallback_reason,
    )
