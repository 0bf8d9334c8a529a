"""What a document's outline says about its pages and page spans: the section each page is in, what a
boundary between two pages costs the tree, and the title of a tree node.

* A page's section is the last (hence deepest) outline entry starting on or before it; pages before the
  first entry (a cover, front matter) are in none. Its title is the section's path, at most ``BREADCRUMB``
  levels ("8 Base modules › graph"); a page on which several sections start is titled by all of them, in
  order, under what they share ("6 Programming › Paths · Pens · Transforms"), not by the last alone.
* ``boundary(p)``: the cost of keeping pages p − 1 and p in one tree node — the weight of the shallowest entry
  starting on page p (chapter ``LEVEL_WEIGHTS[0]``, section, subsection, deeper ``DEEP_WEIGHT``), 0 when none
  starts there.
* ``span_title(first, last)``: the deepest section holding the whole span, then the sections of the next
  level it runs over when there are several: "6 Programming: Arrays, Casts, Import …".
"""

from __future__ import annotations

from collections.abc import Sequence

from drag_core.ingest.outline import OutlineEntry

__all__ = ["BREADCRUMB", "DEEP_WEIGHT", "LEVEL_WEIGHTS", "MAX_TITLE_PARTS", "SECTIONS_JOINED", "Sections"]

LEVEL_WEIGHTS = (4.0, 2.0, 1.0)  # cost of a chapter / section / subsection boundary inside a tree node
DEEP_WEIGHT = 0.5  # ... of a deeper one
BREADCRUMB = 2  # levels of a section path shown in a title
MAX_TITLE_PARTS = 3  # sections named after the common one in a node's title
SECTIONS_JOINED = " · "  # between the sections that start on one page, in its title


class Sections:
    """The outline of one document laid over its pages.

    Attributes:
        entries: the outline entries in document order (empty: the document has no outline).
        pages: how many pages the document has.
    """

    def __init__(self, entries: Sequence[OutlineEntry], pages: int) -> None:
        self.entries = [entry for entry in entries if 0 <= entry.page < pages]
        self.pages = pages
        self._paths = _paths(self.entries)
        self._starting: list[list[tuple[str, ...]]] = [[] for _ in range(pages)]
        for entry, path in zip(self.entries, self._paths, strict=True):
            self._starting[entry.page].append(path)
        self._page_paths = self._paths_of_pages()
        self._weights = [0.0] * pages
        for entry in self.entries:
            if entry.page > 0:
                weight = LEVEL_WEIGHTS[entry.level] if entry.level < len(LEVEL_WEIGHTS) else DEEP_WEIGHT
                self._weights[entry.page] = max(self._weights[entry.page], weight)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def _paths_of_pages(self) -> list[tuple[str, ...]]:
        """Per page, the path of its section (() before the first entry)."""
        by_page = sorted(range(len(self.entries)), key=lambda i: (self.entries[i].page, i))
        out: list[tuple[str, ...]] = []
        current: tuple[str, ...] = ()
        position = 0
        for page in range(self.pages):
            while position < len(by_page) and self.entries[by_page[position]].page <= page:
                current = self._paths[by_page[position]]
                position += 1
            out.append(current)
        return out

    def boundary(self, page: int) -> float:
        """The cost of keeping pages ``page − 1`` and ``page`` (0-based) in one tree node."""
        return self._weights[page] if 0 < page < self.pages else 0.0

    def page_title(self, page: int) -> str:
        """The title of page ``page`` (0-based): the path of the section it is in ("" before the first entry);
        when several sections start on it, each of them in order, under the path they share."""
        starting = self._starting[page]
        if len(starting) < 2:
            return " › ".join(self._page_paths[page][-BREADCRUMB:])
        shared = starting[0][: min(map(len, starting)) - 1]
        for path in starting[1:]:
            shared = shared[: _shared(shared, path)]
        names = SECTIONS_JOINED.join(dict.fromkeys(path[-1] for path in starting))
        return " › ".join([*shared[-(BREADCRUMB - 1) :], names])

    def starts_on(self, page: int) -> list[tuple[str, str]]:
        """The sections starting on page ``page`` (0-based), in outline order: each one's own title and its
        title as a node shows it (its path, at most ``BREADCRUMB`` levels)."""
        return [
            (entry.title, " › ".join(path[-BREADCRUMB:]))
            for entry, path in zip(self.entries, self._paths)
            if entry.page == page
        ]

    def parts(self, first: int, last: int) -> tuple[tuple[str, ...], list[tuple[str, range]]]:
        """What pages ``first … last`` (0-based, inclusive) hold: the path of the deepest section holding them
        all, and the sections of the next level they run over, each with its 0-based pages in the span (up to
        the page before the next one starts; its first page alone when the next starts on the same page)."""
        starts = [(first, self._page_paths[first])]
        starts += [(e.page, path) for e, path in zip(self.entries, self._paths) if first < e.page <= last]
        common = starts[0][1]
        for _, path in starts[1:]:
            common = common[: _shared(common, path)]
        depth = len(common)
        begun: dict[str, int] = {}
        for page, path in starts:
            if len(path) > depth:
                begun.setdefault(path[depth], page)
        names = list(begun)
        ends = [begun[name] - 1 for name in names[1:]] + [last]
        return common, [
            (name, range(begun[name], max(begun[name], end) + 1)) for name, end in zip(names, ends)
        ]

    def span_title(self, first: int, last: int) -> str:
        """The title of a node over pages ``first … last`` (0-based, inclusive)."""
        common, named = self.parts(first, last)
        parts = [name for name, _ in named]
        base = " › ".join(common[-BREADCRUMB:])
        if len(parts) <= 1:
            return base or (parts[0] if parts else "")
        shown = ", ".join(parts[:MAX_TITLE_PARTS]) + (" …" if len(parts) > MAX_TITLE_PARTS else "")
        return f"{base}: {shown}" if base else shown


def _shared(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the common prefix of two paths."""
    length = 0
    for x, y in zip(a, b):
        if x != y:
            break
        length += 1
    return length


def _paths(entries: Sequence[OutlineEntry]) -> list[tuple[str, ...]]:
    """Each entry's path: the titles of its ancestors and its own, top first."""
    paths, stack = [], []
    for entry in entries:
        while stack and stack[-1].level >= entry.level:
            stack.pop()
        stack.append(entry)
        paths.append(tuple(e.title for e in stack))
    return paths
