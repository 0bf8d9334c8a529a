"""An evaluation on an index that is already built and open — the user's labels on the app's own index: nothing
to ingest, only the questions to ask, so it runs in a thread of this process (an embedded index admits one
process) and answers like a background ``EvalJob`` (``status``, ``cancel``, ``result``), so the Evaluate page
shows both alike. ``drag eval --labels`` runs the same evaluation in the foreground.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from drag_core.app.jobs.process import JobStage, Status
from drag_core.engine import Engine
from drag_core.evaluation.datasets import Dataset
from drag_core.evaluation.runner import Report, RunSpec, evaluate

__all__ = ["IndexEvalJob"]


class _Cancelled(Exception):
    """Raised between two questions when the job was cancelled."""


class IndexEvalJob:
    """``evaluate`` in a thread over an open engine.

    Attributes:
        started: ``time.monotonic()`` at the start.
    """

    def __init__(self, engine: Engine, dataset: Dataset, specs: list[RunSpec], index: dict[str, Any]) -> None:
        self.started = time.monotonic()
        self._status = Status(stage=JobStage.QUERYING, queries=len(dataset.queries))
        self._cancelled = threading.Event()
        self._report: Report | None = None
        self._thread = threading.Thread(
            target=self._run, args=(engine, dataset, specs, index), name="drag-eval-on-index", daemon=True
        )
        self._thread.start()

    def _run(self, engine: Engine, dataset: Dataset, specs: list[RunSpec], index: dict[str, Any]) -> None:
        def progress(done: int, total: int, query_id: str) -> None:
            self._status.queries_done = done
            if done >= 2:  # the pace of the questions asked so far
                self._status.seconds_left = self.elapsed() / done * (total - done)
            if self._cancelled.is_set():
                raise _Cancelled

        try:
            self._report = evaluate(engine, dataset, specs, progress, index)
            self._status.stage = JobStage.DONE
        except _Cancelled:
            self._status.stage = JobStage.FAILED
            self._status.error = "cancelled"
        except Exception as error:  # the page shows why
            self._status.stage, self._status.error = JobStage.FAILED, f"{type(error).__name__}: {error}"

    def status(self) -> Status:
        return self._status

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def cancel(self) -> None:
        """Stop after the question being asked, and wait for it."""
        self._cancelled.set()
        self._thread.join()

    def close(self) -> None:
        """Nothing to remove: the evaluation ran in this process (``EvalJob.close`` removes a folder)."""

    def result(self) -> tuple[Report, None]:
        """``(report, None)`` once done (the shape of ``EvalJob.result`` without a sweep)."""
        if self._report is None:
            raise RuntimeError("the evaluation has not finished")
        return self._report, None

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the evaluation ends (or ``timeout`` seconds passed); whether it ended."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def elapsed(self) -> float:
        return time.monotonic() - self.started
