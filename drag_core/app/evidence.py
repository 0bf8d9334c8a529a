"""What the page viewer, the answer panel and the labels panel ask of the core: which page a click opens, the
page itself (``evidence.view``), an extractive answer, the user's labels (``drag_core.labels``) — marking a
page, counting, exporting — and an evaluation of the strategies on them over the app's own index. No Streamlit
here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from drag_core.config import Settings
from drag_core.engine import DocumentInfo, Engine
from drag_core.evidence import PageError, PageImages, extract_answer
from drag_core.evidence.view import PageView, view_page
from drag_core.labels import LABELS_NAME, Label, Labels

__all__ = [
    "LABELS_NAME",
    "LabelCounts",
    "PageError",
    "PageImages",
    "PageTarget",
    "PageView",
    "extract_answer",
    "label_counts",
    "labels_of",
    "mark_page",
    "page_marks",
    "target_of",
    "view_page",
]


@dataclass(frozen=True)
class PageTarget:
    """A page a click asks to see.

    Attributes:
        file_name, page: which page (1-based).
        spans: character spans of its text to highlight (a sentence an answer quotes); empty: the page's snippet.
    """

    file_name: str
    page: int
    spans: tuple[tuple[int, int], ...] = ()


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def target_of(value: Any) -> PageTarget | None:
    """The page a link's ``data-open`` names (``{"file": …, "page": …, "spans": [[start, end], …]}``), or None
    for anything else."""
    if not isinstance(value, Mapping):
        return None
    name, page, spans = value.get("file"), value.get("page"), value.get("spans", [])
    if not isinstance(name, str) or not name or not _count(page) or page < 1 or not isinstance(spans, list):
        return None
    pairs = [tuple(s) for s in spans if isinstance(s, list) and len(s) == 2 and all(map(_count, s))]
    return PageTarget(name, page, tuple((a, b) for a, b in pairs if a < b))


def labels_of(settings: Settings) -> Labels | None:
    """The labels of the app's store folder (None: a throw-away index has no folder to keep them in)."""
    layout = settings.layout
    return Labels(layout.labels) if layout else None


def mark_page(
    engine: Engine, labels: Labels, query: str, file_name: str, page: int, relevant: bool | None
) -> None:
    """Mark a page of an indexed document relevant (True), not relevant (False) or neither (None) for
    ``query``, on the indexed version; its original is linked into the labels' ``docs/``."""
    info = engine.document(file_name)
    labels.mark(query, file_name, page, relevant, info.doc_id, engine.originals.path(info.doc_id))


def page_marks(labels: Labels | None, query: str) -> dict[tuple[str, int], bool]:
    """The pages marked for ``query``: (file, page) → relevant."""
    if labels is None or not query.strip():
        return {}
    return {key: label.relevant for key, label in labels.of_query(query).items()}


@dataclass(frozen=True)
class LabelCounts:
    """What the labels hold.

    Attributes:
        questions: questions with at least one label.
        relevant, not_relevant: pages marked each way.
        stale: labels whose document is no longer indexed in the version labelled.
        ready: questions an evaluation can use (a page marked relevant that is not stale).
    """

    questions: int
    relevant: int
    not_relevant: int
    stale: int
    ready: int


def _indexed(documents: Sequence[DocumentInfo]) -> dict[str, str]:
    return {d.file_name: d.doc_id for d in documents}


def label_counts(labels: Labels, documents: Sequence[DocumentInfo]) -> LabelCounts:
    """Counts of the labels against the documents indexed now."""
    found: list[Label] = labels.all()
    indexed = _indexed(documents)
    return LabelCounts(
        questions=len({label.query_id for label in found}),
        relevant=sum(label.relevant for label in found),
        not_relevant=sum(not label.relevant for label in found),
        stale=sum(label.stale(indexed) for label in found),
        ready=len(labels.dataset(indexed).queries),
    )
