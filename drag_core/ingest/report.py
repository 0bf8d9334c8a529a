"""What ingestion tells its callers — the words the app, the CLI and the evaluation share with the pipeline:
the stages, a file's progress and outcome, and why an indexed document is not current. Importing it loads no
store, no model and no parser."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from drag_core.text import counted

__all__ = [
    "STAGES",
    "CancelCheck",
    "IngestCancelled",
    "IngestReport",
    "IngestStatus",
    "ProgressCallback",
    "ProgressEvent",
    "StaleReason",
    "stop_if_asked",
]

STAGES = ("pages", "summaries", "tree", "vectors", "store")


class IngestStatus(StrEnum):
    """What happened to one file."""

    INDEXED = "indexed"
    REPLACED = "replaced"  # an older version of the file was replaced
    UNCHANGED = "unchanged"  # these bytes were indexed already: nothing was done
    FAILED = "failed"
    CANCELLED = "cancelled"  # stopped on request before anything was written


@dataclass(frozen=True)
class ProgressEvent:
    """Progress of one file through one stage.

    Attributes:
        file_name: the file being ingested.
        stage: one of ``STAGES``.
        done: units finished in this stage.
        total: units in this stage.
    """

    file_name: str
    stage: str
    done: int
    total: int


ProgressCallback = Callable[[ProgressEvent], None]
#: Asked between batches of every stage before the store: True stops the file (nothing of it is written).
CancelCheck = Callable[[], bool]


class IngestCancelled(Exception):
    """Someone asked to stop; raised before the store stage, so the index holds nothing of the file."""


@dataclass
class IngestReport:
    """What happened to one file.

    Attributes:
        file_name: the file (cleaned name).
        status: an ``IngestStatus``.
        reason: one-line reason when failed.
        pages: pages found.
        empty_pages: pages with no extractable text.
        nodes: tree nodes written.
        seconds: wall time for the file.
        stage_seconds: wall time per stage.
        fallbacks: nodes whose LLM description fell back to the offline summariser.
        doc_id: content hash of the document version.
    """

    file_name: str
    status: IngestStatus
    reason: str = ""
    pages: int = 0
    empty_pages: int = 0
    nodes: int = 0
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)
    fallbacks: int = 0
    doc_id: str = ""

    @property
    def ok(self) -> bool:
        return self.status not in (IngestStatus.FAILED, IngestStatus.CANCELLED)

    def line(self) -> str:
        """The one-line summary shown to people."""
        if self.status is IngestStatus.CANCELLED:
            return f"{self.file_name}: cancelled — {self.reason}"
        if not self.ok:
            return f"{self.file_name}: FAILED — {self.reason}"
        size = f"{counted(self.pages, 'page')}, {counted(self.nodes, 'node')}"
        if self.status is IngestStatus.UNCHANGED:
            return f"{self.file_name}: unchanged, already indexed ({size})"
        fallback = f", {counted(self.fallbacks, 'LLM fallback')}" if self.fallbacks else ""
        return (
            f"{self.file_name}: {self.status} — {size}, "
            f"{counted(self.empty_pages, 'empty page')}{fallback}, {self.seconds:.1f} s"
        )


class StaleReason(StrEnum):
    """Why an indexed document is not built as the current settings build it."""

    OLDER_TREE = "older tree version"
    OTHER_VECTORS = "other vector settings"


def stop_if_asked(cancel: CancelCheck | None) -> None:
    """Raise ``IngestCancelled`` when ``cancel`` says to stop."""
    if cancel is not None and cancel():
        raise IngestCancelled("stopped before anything was written; the index is unchanged")
