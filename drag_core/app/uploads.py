"""An upload running in the background: files ingested one after another in a thread, the progress of each
and of the whole upload in one measure of work (``drag_core.ingest.progress``: pages read, then vectors, on
one scale), the time left at the pace measured since the warm-up, more files queued while it runs, and a
cancel that stops the current file between batches (nothing of it is written) and skips the rest. No
Streamlit here: a page polls :meth:`UploadJob.snapshot` and draws it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from drag_core.app.display import percent
from drag_core.engine import DocumentInfo, Engine
from drag_core.ingest.loading import clean_file_name, document_id, expected_pages
from drag_core.ingest.progress import ProgressMeter
from drag_core.ingest.report import IngestReport, IngestStatus, ProgressEvent
from drag_core.text import counted

__all__ = [
    "UPLOAD_TYPES",
    "FileProgress",
    "IngestStatus",
    "UploadJob",
    "file_line",
    "outcome_counts",
    "overall_line",
    "stage_words",
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


def stage_words(event: ProgressEvent | None) -> str:
    """What a file's ingest is doing, in words: ``embedding 96 of 311 texts``."""
    if event is None:
        return "waiting"
    done, total = event.done, event.total
    if event.stage == "pages":
        return f"read: {counted(total, 'page')}" if done and done == total else "reading the file"
    words = {
        "summaries": f"summarising page {done} of {total}",
        "tree": f"describing section {done} of {total}",
        "vectors": f"embedding {done} of {counted(total, 'text')}",
        "store": "writing to the index",
    }
    return words.get(event.stage, f"{event.stage} {done} of {total}")


def file_line(name: str, fraction: float, event: ProgressEvent | None) -> str:
    """``report.pdf — 38 % · embedding 96 of 311 texts``."""
    if event is None:
        return f"{name} — waiting"
    return f"{name} — {percent(fraction)} · {stage_words(event)}"


def overall_line(fraction: float, done: int, files: int) -> str:
    """``All files: 45 % · 2 of 5 files done``."""
    return f"All files: {percent(fraction)} · {done} of {counted(files, 'file')} done"


def outcome_counts(reports: Sequence[IngestReport]) -> str:
    """``2 indexed, 1 failed, 1 cancelled``: how many files ended each way, in the order of ``IngestStatus``."""
    counts = {status: sum(r.status is status for r in reports) for status in IngestStatus}
    return ", ".join(f"{n} {status}" for status, n in counts.items() if n) or "nothing to do"


@dataclass
class FileProgress:
    """Where one file is.

    Attributes:
        name: the file name as uploaded.
        event: the last progress event (None: not started).
        report: the outcome once done.
    """

    name: str
    event: ProgressEvent | None = None
    report: IngestReport | None = None


@dataclass
class UploadJob:
    """Files ingested in a background thread, one after another; more can be queued while it runs.

    Attributes:
        files: each file's progress, in upload order.
        meter: the work of every file and the pace (``ProgressMeter``).
        started: ``time.monotonic()`` at the start.
        finished: when the last file was done (None while running).
    """

    files: list[FileProgress]
    meter: ProgressMeter
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    _uploads: list[tuple[str, bytes]] = field(default_factory=list)
    _cancel: threading.Event = field(default_factory=threading.Event)
    _over: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def start(cls, engine: Engine, uploads: list[tuple[str, bytes]]) -> UploadJob:
        """Begin ingesting ``uploads`` (name, bytes) into ``engine`` in a daemon thread."""
        started = time.monotonic()
        job = cls([], ProgressMeter([], started), started=started)
        job.add(uploads)
        threading.Thread(target=job._run, args=(engine,), daemon=True, name="upload").start()
        return job

    def add(self, uploads: list[tuple[str, bytes]]) -> bool:
        """Queue more files behind the others; False (nothing queued) once the job finished or is cancelling."""
        with self._lock:
            if self.finished is not None or self._cancel.is_set():
                return False
            for name, data in uploads:
                self.files.append(FileProgress(name))
                self.meter.add(name, expected_pages(name, data))
                self._uploads.append((name, data))
            return True

    def _run(self, engine: Engine) -> None:
        index = 0
        try:
            while True:
                with self._lock:
                    if index == len(self._uploads):
                        self.finished = time.monotonic()
                        return
                    name, data = self._uploads[index]
                    self._uploads[index] = (name, b"")  # the bytes are not needed after this
                report = self._ingest(engine, index, name, data)
                with self._lock:
                    self.files[index].report = report
                    self.meter.ended(index, time.monotonic())
                index += 1
        finally:
            with self._lock:
                self.finished = self.finished or time.monotonic()
            self._over.set()

    def _ingest(self, engine: Engine, index: int, name: str, data: bytes) -> IngestReport:
        if self._cancel.is_set():
            return IngestReport(name, IngestStatus.CANCELLED, reason="not started; the index is unchanged")
        return engine.ingest_bytes(name, data, lambda event: self._moved(index, event), self._cancel.is_set)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every file is done (or ``timeout`` seconds passed); whether it is done."""
        return self._over.wait(timeout)

    def _moved(self, index: int, event: ProgressEvent) -> None:
        with self._lock:
            self.files[index].event = event
            self.meter.moved(index, event, time.monotonic())

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

    def fraction(self, now: float | None = None) -> float:
        """Share of the whole upload's work done (1 once finished)."""
        with self._lock:
            return 1.0 if self.finished is not None else self.meter.fraction(now or time.monotonic())

    def elapsed(self, now: float | None = None) -> float:
        return (self.finished or now or time.monotonic()) - self.started

    def seconds_left(self, now: float | None = None) -> float | None:
        """Time left at the pace measured since the warm-up (None until it is known, or when done)."""
        with self._lock:
            return None if self.finished is not None else self.meter.seconds_left(now or time.monotonic())

    def snapshot(self, now: float | None = None) -> list[tuple[float, str]]:
        """Each file's (fraction, line), for drawing."""
        now = now or time.monotonic()
        rows = []
        with self._lock:
            for index, file in enumerate(self.files):
                if file.report is not None:
                    rows.append((1.0, file.report.line()))
                    continue
                share = self.meter.file_fraction(index, now)
                rows.append((share, file_line(file.name, share, file.event)))
        return rows
