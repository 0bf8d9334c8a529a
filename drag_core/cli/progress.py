"""Ingest progress on stderr: file i/N, stage, units done (batches of pages and nodes) and time left.

On a terminal it is a rich progress bar (rich, not tqdm: the CLI already uses rich for its tables, and one
``Progress`` shows several labelled columns — file, stage, count, elapsed, time left — that redraw in place).
When stderr is not a terminal (a log, CI, a pipe) it prints plain lines instead, at most one per stage every
``PLAIN_EVERY`` seconds plus the stage's last; ``--quiet`` prints nothing.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

if TYPE_CHECKING:
    from drag_core.ingest.report import ProgressEvent

__all__ = ["PLAIN_EVERY", "IngestProgress"]

PLAIN_EVERY = 2.0


class IngestProgress:
    """Receives the engine's ``ProgressEvent``s for a batch of ``total_files`` files and shows them on stderr.

    Use as a context manager; call ``next_file()`` after each file's result so the count moves on. While the bar
    is live, rich redirects stdout above it, so result lines printed meanwhile do not tear it.
    """

    def __init__(self, total_files: int, quiet: bool = False, stream: object = None) -> None:
        self.total_files = total_files
        self.index = 1
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.live = not quiet and getattr(self.stream, "isatty", lambda: False)()
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._stage = ""
        self._last_line = 0.0

    def __enter__(self) -> IngestProgress:
        if self.live:
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                console=Console(file=self.stream),  # type: ignore[arg-type]
                transient=True,
            )
            self._bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def label(self, event: ProgressEvent) -> str:
        return f"[{self.index}/{self.total_files}] {event.file_name}: {event.stage}"

    def __call__(self, event: ProgressEvent) -> None:
        if self.quiet:
            return
        if self._bar is not None:
            self._show_live(event)
            return
        now = time.monotonic()
        finished = event.done >= event.total
        if event.stage != self._stage or finished or now - self._last_line >= PLAIN_EVERY:
            print(f"  {self.label(event)} {event.done}/{event.total}", file=self.stream, flush=True)
            self._last_line = now
        self._stage = "" if finished else event.stage

    def _show_live(self, event: ProgressEvent) -> None:
        assert self._bar is not None
        key = f"{self.index}:{event.stage}"
        if key != self._stage or self._task is None:
            if self._task is not None:
                self._bar.remove_task(self._task)
            self._task = self._bar.add_task(self.label(event), total=event.total)
            self._stage = key
        self._bar.update(self._task, completed=event.done, total=event.total)

    def next_file(self) -> None:
        self.index += 1
        self._stage = ""
