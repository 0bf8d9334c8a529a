"""Plain data records that flow through ingestion and search.

Ingest: ``Page`` (loading) → ``Description`` (describe) → ``Node`` (tree) → store.
Search results are ``Node`` records read back from the store.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Description", "Node", "Page", "SparseVector"]


@dataclass(frozen=True)
class Page:
    """One unit of a document: a PDF page or a page-sized section of a text file.

    Attributes:
        file_name: name of the source file (no directories).
        number: 1-based page number (pypdf page index + 1, or section index + 1).
        text: extracted text, as shown to people; empty when the page has no extractable text.
        body: the text summaries, keywords and vectors read: ``text`` without the document's running headers
            and footers (given as None: the same as ``text``).
    """

    file_name: str
    number: int
    text: str
    body: str = None  # type: ignore[assignment]  # None → text, set in __post_init__

    def __post_init__(self) -> None:
        if self.body is None:
            object.__setattr__(self, "body", self.text)


@dataclass(frozen=True)
class Description:
    """What a summariser says about a page or a group of children.

    Attributes:
        summary: 2–5 sentences.
        keywords: 5–10 keywords, most important first.
        source: identity of the summariser that produced it (e.g. ``extractive`` or ``openai:MODEL``).
        fallback_reason: set when an LLM failed and the offline summariser was used instead.
    """

    summary: str
    keywords: list[str]
    source: str
    fallback_reason: str | None = None


@dataclass
class Node:
    """One tree node = one Qdrant point.

    Attributes:
        id: point id, unique across the index (derived from the document and the node's position).
        parent_id: id of the parent, ``-1`` for a root.
        child_ids: ids of the children, empty for a leaf.
        level: 0 for leaves (pages), +1 per level up.
        doc_id: content hash of the document version the node belongs to.
        file_name: source file name.
        page_start: first page covered (1-based, inclusive).
        page_end: last page covered (inclusive).
        keywords: keywords of the node (parents inherit their children's).
        summary: summary of the node.
        text: page text for leaves, empty for parents.
        summary_source: which summariser produced the summary (and ``fallback_reason`` if any).
        title: the title of the section the node covers (from the PDF outline or Markdown headings; empty when
            the file has none).
        units: a leaf's text cut into the units a snippet quotes, as flat ``start, end, prose`` triples
            (``ingest.units.unit_spans``), cut once at ingest; empty for parents and for leaves written before.
        extra: further payload (document statistics on roots).
    """

    id: int
    parent_id: int
    child_ids: list[int]
    level: int
    doc_id: str
    file_name: str
    page_start: int
    page_end: int
    keywords: list[str]
    summary: str
    text: str = ""
    summary_source: str = ""
    fallback_reason: str | None = None
    title: str = ""
    units: list[int] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_root(self) -> bool:
        return self.parent_id == -1

    @property
    def pages(self) -> range:
        return range(self.page_start, self.page_end + 1)

    def payload(self) -> dict[str, Any]:
        """The Qdrant payload of this node."""
        return asdict(self)

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Node:
        known = {k: payload[k] for k in cls.__dataclass_fields__ if k in payload}
        return cls(**known)


@dataclass(frozen=True)
class SparseVector:
    """BM25 term weights: hashed term ids and their weights."""

    indices: list[int]
    values: list[float]
