"""An upload running in the background: files ingested one after another in a thread, with the progress of
each (stage, batch, elapsed, an estimate of the time left) readable at any moment, and a cancel that stops
the current file between batches (nothing of it is written) and skips the rest. No Streamlit here: a page
polls :meth:`UploadJob.snapshot` and draws it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from drag_core.app_state import progress_fraction
from drag_core.engine import Engine
from drag_core.ingest import IngestReport, ProgressEvent

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
            return IngestReport(name, "cancelled", reason="not started; the index is unchanged")
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
