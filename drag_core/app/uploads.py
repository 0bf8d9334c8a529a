"""An upload running in the background: files ingested one after another in a thread, with the progress of
each (stage, batch, elapsed, an estimate of the time left) readable at any moment, and a cancel that stops
the current file between batches (nothing of it is written) and skips the rest. No Streamlit here: a page
polls :meth:`UploadJob.snapshot` and draws it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from drag_core.engine import DocumentInfo, Engine
from drag_core.ingest.loading import clean_file_name, document_id
from drag_core.ingest.pipeline import STAGES, IngestReport, IngestStatus, ProgressEvent

__all__ = [
    "UPLOAD_TYPES",
    "FileProgress",
    "IngestStatus",
    "UploadJob",
    "progress_fraction",
    "progress_text",
    "unchanged_report",
]

UPLOAD_TYPES = ("pdf", "txt", "md")


def unchanged_report(documents: Sequence[DocumentInfo], name: str, data: bytes) -> IngestReport | None:
    """The report of an upload whose exact bytes are already indexed under the same name, built as the engine
    builds now (nothing to do), else None. Costs one hash: the file is not parsed."""
    file_name = clean_file_name(name)
    doc_id = document_id(data)
    for info in documents:
        if info.file_name == file_name and info.doc_id == doc_id and info.current:
            return IngestReport(
                file_name,
                IngestStatus.UNCHANGED,
                pages=info.pages,
                empty_pages=info.empty_pages,
                nodes=info.nodes,
                doc_id=doc_id,
            )
    return None


def progress_fraction(event: ProgressEvent) -> float:
    """How far one file is through the pipeline, 0–1 (each stage an equal share)."""
    stage = STAGES.index(event.stage) if event.stage in STAGES else 0
    within = event.done / event.total if event.total else 1.0
    return min(1.0, (stage + within) / len(STAGES))


def progress_text(event: ProgressEvent) -> str:
    """``R-data.pdf — summaries 12/41``."""
    return f"{event.file_name} — {event.stage} {event.done}/{event.total}"


#: Seconds of work and share of progress before a time-left estimate is shown.
ESTIMATE_AFTER_S, ESTIMATE_AFTER_SHARE = 2.0, 0.02


@dataclass
class FileProgress:
    """Where one file is.

    Attributes:
        name: the file name as uploaded.
        size: its bytes (weights the overall estimate).
        event: the last progress event (None: not started).
        report: the outcome once done.
    """

    name: str
    size: int
    event: ProgressEvent | None = None
    report: IngestReport | None = None

    @property
    def fraction(self) -> float:
        if self.report is not None:
            return 1.0
        return progress_fraction(self.event) if self.event else 0.0

    def line(self) -> str:
        """``report.pdf — vectors 32/124`` while running, the report's line when done."""
        if self.report is not None:
            return self.report.line()
        if self.event is None:
            return f"{self.name} — waiting"
        return f"{self.name} — {self.event.stage} {self.event.done}/{self.event.total}"


@dataclass
class UploadJob:
    """Files ingested in a background thread.

    Attributes:
        files: each file's progress, in upload order.
        started: ``time.monotonic()`` at the start.
        finished: when the last file was done (None while running).
    """

    files: list[FileProgress]
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    _cancel: threading.Event = field(default_factory=threading.Event)
    _over: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def start(cls, engine: Engine, uploads: list[tuple[str, bytes]]) -> UploadJob:
        """Begin ingesting ``uploads`` (name, bytes) into ``engine`` in a daemon thread."""
        job = cls([FileProgress(name, len(data)) for name, data in uploads])
        threading.Thread(target=job._run, args=(engine, uploads), daemon=True, name="upload").start()
        return job

    def _run(self, engine: Engine, uploads: list[tuple[str, bytes]]) -> None:
        try:
            for progress, (name, data) in zip(self.files, uploads):
                report = self._ingest(engine, progress, name, data)
                with self._lock:
                    progress.report = report
        finally:
            with self._lock:
                self.finished = time.monotonic()
            self._over.set()

    def _ingest(self, engine: Engine, progress: FileProgress, name: str, data: bytes) -> IngestReport:
        if self._cancel.is_set():
            return IngestReport(name, IngestStatus.CANCELLED, reason="not started; the index is unchanged")
        return engine.ingest_bytes(
            name, data, lambda event: self._moved(progress, event), self._cancel.is_set
        )

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every file is done (or ``timeout`` seconds passed); whether it is done."""
        return self._over.wait(timeout)

    def _moved(self, progress: FileProgress, event: ProgressEvent) -> None:
        with self._lock:
            progress.event = event

    def cancel(self) -> None:
        """Stop the current file between batches (nothing of it is written) and skip the others."""
        self._cancel.set()

    @property
    def cancelling(self) -> bool:
        return self._cancel.is_set() and self.finished is None

    @property
    def done(self) -> bool:
        return self.finished is not None

    def reports(self) -> list[IngestReport]:
        """The outcomes of the files done so far."""
        with self._lock:
            return [f.report for f in self.files if f.report is not None]

    def fraction(self) -> float:
        """Share of the work done, each file weighted by its size."""
        with self._lock:
            total = sum(max(1, f.size) for f in self.files)
            return sum(max(1, f.size) * f.fraction for f in self.files) / total

    def elapsed(self, now: float | None = None) -> float:
        return (self.finished or now or time.monotonic()) - self.started

    def seconds_left(self, now: float | None = None) -> float | None:
        """Time left at the pace so far (None until there is enough to go on, or when done)."""
        if self.done:
            return None
        elapsed, share = self.elapsed(now), self.fraction()
        if elapsed < ESTIMATE_AFTER_S or share < ESTIMATE_AFTER_SHARE:
            return None
        return elapsed * (1 - share) / share

    def snapshot(self) -> list[tuple[float, str]]:
        """Each file's (fraction, line), for drawing."""
        with self._lock:
            return [(f.fraction, f.line()) for f in self.files]
