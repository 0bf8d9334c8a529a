"""Building the summary tree of one document.

Leaves are the pages. Consecutive nodes are grouped 3–5 per parent, level by level, until one root remains
(``parent_id = -1``); the whole shape is planned first (``plan_tree``: it needs only the pages' words and the
outline), then described level by level.

* Without an outline (``plan_groups``): the fewest groups that can hold the nodes, each boundary where
  neighbouring nodes are least alike (lexical cosine of their words), by dynamic programming.
* With an outline (``plan_section_groups``): the groups follow the sections — a boundary *inside* a group costs
  the weight of the section level starting there (``sections.Sections.boundary``: chapter 4, section 2,
  subsection 1, deeper 0.5), every group costs ``GROUP_COST`` (so short sections merge into runs of 3–5, and
  only a chapter boundary buys an extra group), and the similarity at cuts breaks ties. A 40-page chapter
  becomes ~10 groups cut at its subsections, then 2–3 parents; a level's boundary costs are those of each
  node's first page.

Every node carries the title of its section (``Node.title``; empty without an outline): a page its
section's, a parent the deepest section holding its pages and the sections it runs over.

Small documents: 1 page → the page itself is the root (a leaf root); 2 pages → one parent over both
(a group of 2, the only size below 3 the tree ever makes, and only when a level has exactly 2 nodes).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from drag_core.ingest.loading import LoadedDocument
from drag_core.ingest.sections import Sections
from drag_core.ingest.units import page_units, unit_spans
from drag_core.text import content_words
from drag_core.types import Description, Node

__all__ = [
    "GROUP_COST",
    "GROUP_MAX",
    "GROUP_MIN",
    "INDEX_BITS",
    "SIMILARITY_WEIGHT",
    "TREE_VERSION",
    "DescribeLevel",
    "PlannedParent",
    "TreePlan",
    "build_tree",
    "group_count",
    "node_id_base",
    "parent_count",
    "plan_groups",
    "plan_section_groups",
    "plan_tree",
]

#: Recorded on every root: a document built by another version of the tree stage (page bodies, sections,
#: descriptions) is rebuilt on its next ingest, and listed as not current until then.
TREE_VERSION = "outline-3"  # 3: clean text (``clean_text``); parents read as a table of contents
GROUP_MIN, GROUP_MAX = 3, 5
GROUP_COST = 2.0  # outline grouping: the cost of one more group (a section boundary inside a group costs 2)
SIMILARITY_WEIGHT = 0.1  # outline grouping: the lexical similarity across a cut (0..1), the tie-break
SIZE_TIE = 1e-6  # sizes nearest 4 win the remaining ties
INDEX_BITS = 20  # up to ~1M nodes per document
#: Describes one level of groups at once (so an LLM can work on them concurrently): each group is its
#: children's descriptions and the 0-based pages it covers; returns one description per group.
DescribeLevel = Callable[[list[tuple[list[Description], range]]], list[Description]]


def node_id_base(file_name: str, doc_id: str) -> int:
    """First point id of a document version; ids stay below 2**53 so JavaScript reads them exactly."""
    digest = hashlib.sha256(f"{file_name}\x00{doc_id}".encode()).digest()
    return (int.from_bytes(digest[:8], "big") & ((1 << 33) - 1)) << INDEX_BITS


def group_count(nodes: int) -> int:
    """How many groups ``plan_groups`` makes of ``nodes`` consecutive nodes: the fewest that can hold them."""
    return math.ceil(nodes / GROUP_MAX)


def parent_count(pages: int) -> int:
    """How many parents the grouping without an outline makes over ``pages`` leaves (the group count per level
    is fixed there): the estimate of a file's tree work before its tree is planned (an outline changes it a
    little; the tree stage then reports the planned count)."""
    total = 0
    while pages > 1:
        pages = group_count(pages)
        total += pages
    return total


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
                cost = best[g - 1][start] + cut + SIZE_TIE * abs(size - 4)
                if cost < best[g][i]:
                    best[g][i], choice[g][i] = cost, size
    sizes, i = [], n
    for g in range(groups, 0, -1):
        sizes.append(choice[g][i])
        i -= choice[g][i]
    return sizes[::-1]


def plan_section_groups(boundaries: Sequence[float], similarities: Sequence[float]) -> list[int]:
    """Group sizes for ``len(boundaries) + 1`` consecutive nodes that follow the sections.

    ``boundaries[i]`` is the cost of keeping node i and node i+1 in one group (the section level starting at
    node i+1), ``similarities[i]`` how alike they are. Minimises the boundaries inside groups + ``GROUP_COST``
    per group + ``SIMILARITY_WEIGHT`` × the similarity at the cuts, over sizes 3–5 (any number of groups);
    ties go to sizes nearest 4.
    """
    n = len(boundaries) + 1
    if n <= GROUP_MAX:
        return [n]
    inside = [0.0]  # inside[i]: the boundaries between nodes 0 … i
    for boundary in boundaries:
        inside.append(inside[-1] + boundary)
    best = [math.inf] * (n + 1)  # best[i]: lowest cost of grouping the first i nodes
    choice = [0] * (n + 1)
    best[0] = 0.0
    for end in range(GROUP_MIN, n + 1):
        for size in range(GROUP_MIN, GROUP_MAX + 1):
            start = end - size
            if start < 0 or best[start] == math.inf:
                continue
            cut = similarities[end - 1] if end < n else 0.0
            within = inside[end - 1] - inside[start]  # boundaries between nodes start … end − 1
            cost = best[start] + within + GROUP_COST + SIMILARITY_WEIGHT * cut + SIZE_TIE * abs(size - 4)
            if cost < best[end]:
                best[end], choice[end] = cost, size
    sizes, end = [], n
    while end > 0:
        sizes.append(choice[end])
        end -= choice[end]
    return sizes[::-1]


@dataclass(frozen=True)
class PlannedParent:
    """One parent of a planned tree.

    Attributes:
        children: the indices of its children in the level below.
        pages: the 0-based pages it covers.
        title: its section title ("" without an outline).
    """

    children: range
    pages: range
    title: str


@dataclass(frozen=True)
class TreePlan:
    """The shape of a document's tree before anything is described.

    Attributes:
        page_titles: each page's section title ("" without an outline).
        levels: the parents of each level, level 1 first, the root's level last (none for one page).
    """

    page_titles: list[str]
    levels: list[list[PlannedParent]]

    @property
    def parents(self) -> int:
        return sum(len(level) for level in self.levels)


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    dot = sum(n * b[w] for w, n in a.items() if w in b)
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def plan_tree(document: LoadedDocument) -> TreePlan:
    """The tree's shape: groups by section where the document has an outline, by similarity where not."""
    pages = len(document.pages)
    sections = Sections(document.outline, pages)
    bags = [Counter(content_words(page.body)) for page in document.pages]
    spans = [range(p, p + 1) for p in range(pages)]
    levels: list[list[PlannedParent]] = []
    while len(spans) > 1:
        similarities = [_cosine(a, b) for a, b in zip(bags, bags[1:])]
        if sections:
            boundaries = [sections.boundary(span.start) for span in spans[1:]]
            sizes = plan_section_groups(boundaries, similarities)
        else:
            sizes = plan_groups(similarities)
        level, start = [], 0
        for size in sizes:
            children = range(start, start + size)
            covered = range(spans[children.start].start, spans[children.stop - 1].stop)
            title = sections.span_title(covered.start, covered.stop - 1) if sections else ""
            level.append(PlannedParent(children, covered, title))
            start += size
        levels.append(level)
        bags = [sum((bags[i] for i in parent.children), Counter()) for parent in level]
        spans = [parent.pages for parent in level]
    titles = [sections.page_title(p) if sections else "" for p in range(pages)]
    return TreePlan(titles, levels)


def build_tree(
    document: LoadedDocument, pages: Sequence[Description], plan: TreePlan, describe_level: DescribeLevel
) -> list[Node]:
    """All nodes of the document's tree: leaves first, then each level, the root last.

    ``pages`` are the page descriptions in page order; ``plan`` is ``plan_tree(document)``; each level's
    groups are described by one call of ``describe_level``.
    """
    if len(pages) != len(document.pages):
        raise ValueError("one description per page is required")
    base = node_id_base(document.file_name, document.doc_id)
    nodes: list[Node] = []
    for page, description, title in zip(document.pages, pages, plan.page_titles):
        nodes.append(
            _node(base + len(nodes), 0, document, page.number, page.number, description, title, page.text)
        )
    below, descriptions = list(nodes), list(pages)
    for level in plan.levels:
        described = describe_level([([descriptions[i] for i in p.children], p.pages) for p in level])
        parents = []
        for planned, description in zip(level, described):
            children = [below[i] for i in planned.children]
            parent = _node(
                base + len(nodes),
                children[0].level + 1,
                document,
                children[0].page_start,
                children[-1].page_end,
                description,
                planned.title,
            )
            parent.child_ids = [child.id for child in children]
            for child in children:
                child.parent_id = parent.id
            nodes.append(parent)
            parents.append(parent)
        below, descriptions = parents, list(described)
    return nodes


def _node(
    node_id: int,
    level: int,
    document: LoadedDocument,
    page_start: int,
    page_end: int,
    description: Description,
    title: str,
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
        title=title,
        units=unit_spans(page_units(text)) if text else [],
    )
