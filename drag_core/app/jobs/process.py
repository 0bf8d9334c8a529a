"""An evaluation in a background process at a lower CPU priority, so the app's other sessions stay responsive.

The page asks :func:`plan` what a run will cost (the pages still to index — an interrupted build's ledger
counts what it already holds — and about how long at this machine's measured pace), starts an
:class:`EvalJob`, polls :meth:`EvalJob.status` (the whole indexing's share and time left, the file and its
stage, the queries) and reads the report from :meth:`EvalJob.result`. Cancel ends the process: each document
of the evaluation index is whole or absent (roots are written last; the next open removes a document without
its root) and the index is not marked complete, so the next run indexes the rest. The job's temporary
folder is removed when the job is closed (done, failed or cancelled). No Streamlit here.

The child is ``python -m drag_core.app.jobs.process JOB_FOLDER``: it reads ``job.json``, writes
``status.json`` as it goes and ``result.pickle`` at the end (or ``error`` in the status).
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from drag_core.config import Settings
from drag_core.evaluation.datasets import PASSAGE_KIND, Dataset, load_dataset
from drag_core.evaluation.index import MANIFEST, default_folder, open_index, remaining_work, seconds_per_page
from drag_core.ingest.loading import clean_file_name
from drag_core.ingest.progress import ProgressMeter
from drag_core.ingest.report import ProgressEvent
from drag_core.ingest.tree import TREE_VERSION
from drag_core.ingest.vector_text import VectorPolicy

__all__ = [
    "NICE",
    "SECONDS_PER_PAGE",
    "SECONDS_PER_PASSAGE",
    "STATUS_EVERY_S",
    "EvalJob",
    "JobStage",
    "Plan",
    "Status",
    "plan",
    "run",
]

#: Priority of the child (``os.nice`` increment): the app's searches come first.
NICE = 10
#: Seconds to index one page from scratch (parse, describe, embed) on a busy 2-core machine, and one passage,
#: for the estimate shown before a run when no earlier run measured this machine's pace (0.1 s a page idle,
#: 0.3 s at load 10: docs/benchmarks.md).
SECONDS_PER_PAGE, SECONDS_PER_PASSAGE = 0.3, 0.12
STATUS_EVERY_S = 0.5


@dataclass(frozen=True)
class Plan:
    """What a run costs before it starts.

    Attributes:
        ready: the data set's index is built for these settings (nothing to index).
        files: documents still to index (passages, for a passage data set).
        pages: pages (or passages) still to index.
        seconds: about how long indexing them takes.
        indexed: documents an interrupted build already holds (from its ledger).
        measured: ``seconds`` is at the pace earlier runs measured on this machine (else a default).
    """

    ready: bool
    files: int
    pages: int
    seconds: float
    indexed: int = 0
    measured: bool = False


def plan(dataset: Dataset, policy: VectorPolicy, settings: Settings) -> Plan:
    """Whether the data set's default index is built for ``policy``, the settings (BM25 constants, PDF engine)
    and this version of the tree and, if not, what indexing the rest costs: the documents its ledger does not
    hold yet (built with this tree), at the pace the ledgers of this data set measured (or
    ``SECONDS_PER_PAGE``)."""
    folder = default_folder(dataset, policy, settings)
    manifest = folder / MANIFEST
    if manifest.is_file():
        built = json.loads(manifest.read_text())
        if (
            built.get("fingerprint") == dataset.fingerprint()
            and built.get("vector_policy") == policy.identity
            and built.get("tree_version") == TREE_VERSION
        ):
            return Plan(True, 0, 0, 0.0)
    work = remaining_work(dataset, folder)
    pages = sum(n for _, n in work)
    passages = dataset.kind == PASSAGE_KIND
    measured = seconds_per_page(list(folder.parent.glob("*/"))) if folder.parent.is_dir() else None
    per_page = measured or (SECONDS_PER_PASSAGE if passages else SECONDS_PER_PAGE)
    files = pages if passages else len(work)
    indexed = 0 if passages else len(dataset.files) - len(work)
    return Plan(False, files, pages, pages * per_page, indexed, measured is not None)


class JobStage(StrEnum):
    """Where an evaluation in the background is."""

    STARTING = "starting"
    INDEXING = "indexing"
    QUERYING = "querying"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass
class Status:
    """What the child is doing.

    Attributes:
        stage: a ``JobStage``.
        file: the file being indexed, its stage and batch (``done``/``total``).
        files_done: files indexed so far (of ``files``, the files still to index when the run started).
        fraction: share of the indexing work done (all files, in one measure: ``ProgressMeter``).
        file_fraction: share of the current file's work done.
        seconds_left: time left of the current stage (indexing or querying) at the measured pace; None
            while it is unknown.
        queries_done, queries: the queries evaluated so far and in all.
        error: why it failed.
    """

    stage: str = JobStage.STARTING
    file: str = ""
    file_stage: str = ""
    done: int = 0
    total: int = 0
    files_done: int = 0
    files: int = 0
    fraction: float = 0.0
    file_fraction: float = 0.0
    seconds_left: float | None = None
    queries_done: int = 0
    queries: int = 0
    error: str = ""
    updated: float = field(default_factory=time.time)


class EvalJob:
    """A running (or finished) evaluation in a child process.

    Attributes:
        folder: the job's files (request, status, result).
        started: ``time.monotonic()`` at the start.
    """

    def __init__(self, folder: Path, process: subprocess.Popen) -> None:
        self.folder = folder
        self.started = time.monotonic()
        self._process = process
        self._cancelled = False

    @classmethod
    def start(
        cls,
        dataset: Path | str,
        limit: int,
        runs: list[str],
        policy: VectorPolicy,
        sweep: tuple[str, list[str]] | None = None,
        env: dict[str, str] | None = None,
    ) -> EvalJob:
        """Start ``python -m drag_core.app.jobs.process`` on a new job folder."""
        folder = Path(tempfile.mkdtemp(prefix="drag-eval-"))
        request = {
            "dataset": str(dataset),
            "limit": limit,
            "runs": runs,
            "policy": asdict(policy),
            "sweep": list(sweep) if sweep else None,
        }
        (folder / "job.json").write_text(json.dumps(request))
        command = [sys.executable, "-m", "drag_core.app.jobs.process", str(folder)]
        with (folder / "log.txt").open("w") as log:
            process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        return cls(folder, process)

    def status(self) -> Status:
        """The child's last status; ``cancelled`` once cancelled, ``failed`` with the reason when it ended
        without a result."""
        if self._cancelled:
            return Status(stage=JobStage.CANCELLED)
        try:
            status = Status(**json.loads((self.folder / "status.json").read_text()))
        except (OSError, ValueError):
            status = Status()
        if self._process.poll() is not None and status.stage not in (JobStage.DONE, JobStage.FAILED):
            log_file = self.folder / "log.txt"
            log = log_file.read_text(errors="replace").strip().splitlines() if log_file.is_file() else []
            status.stage = JobStage.FAILED
            status.error = log[-1] if log else f"exit code {self._process.returncode}"
        return status

    @property
    def running(self) -> bool:
        return self._process.poll() is None

    def cancel(self) -> None:
        """End the child (its whole process group), wait for it and remove the job's folder."""
        if self.running:
            self._cancelled = True
            os.killpg(self._process.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait()
        self.close()

    def close(self) -> None:
        """Remove the job's temporary folder (the request, status, log and result); call it once the status
        or result was read. A running child is cancelled first."""
        if self.running:
            self.cancel()
            return
        shutil.rmtree(self.folder, ignore_errors=True)

    def result(self) -> Any:
        """``(report, sweep or None)`` once done."""
        with (self.folder / "result.pickle").open("rb") as file:
            return pickle.load(file)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the child ends (or ``timeout`` seconds passed); whether it ended."""
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def elapsed(self) -> float:
        return time.monotonic() - self.started


class _Reporter:
    """Writes ``status.json`` atomically, at most every ``STATUS_EVERY_S`` unless forced, with the indexing's
    progress measured over the files still to index (``ProgressMeter``) and the queries' pace."""

    def __init__(self, folder: Path, status: Status, work: list[tuple[str, int]]) -> None:
        self.folder, self.status, self._last = folder, status, 0.0
        self.meter = ProgressMeter(work, time.monotonic())
        self._names = [clean_file_name(name) for name, _ in work]
        self._asking: float | None = None  # when the first query was asked

    def write(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < STATUS_EVERY_S:
            return
        self._last = now
        self.status.updated = time.time()
        temporary = self.folder / "status.tmp"
        temporary.write_text(json.dumps(asdict(self.status)))
        temporary.replace(self.folder / "status.json")

    def ingest(self, event: ProgressEvent) -> None:
        status, now = self.status, time.monotonic()
        if (
            event.file_name not in self._names
        ):  # not in the plan (e.g. a file the ledger held but the index not)
            self._names.append(event.file_name)
            self.meter.add(event.file_name, event.total)
        index = self._names.index(event.file_name)
        self.meter.moved(index, event, now)
        status.stage, status.file, status.file_stage = JobStage.INDEXING, event.file_name, event.stage
        status.done, status.total = event.done, event.total
        status.files_done = sum(f.ended for f in self.meter.files)
        status.fraction, status.file_fraction = self.meter.fraction(now), self.meter.file_fraction(index, now)
        status.seconds_left = self.meter.seconds_left(now)
        self.write()

    def query(self, done: int, total: int, query_id: str) -> None:
        now = time.monotonic()
        self._asking = self._asking or now
        status = self.status
        status.stage, status.queries_done, status.queries = JobStage.QUERYING, done, total
        asked = now - self._asking
        status.seconds_left = asked / done * (total - done) if done > 1 and asked > 0 else None
        self.write(force=done == total)


def run(folder: Path) -> None:
    """The child: evaluate what ``job.json`` asks, reporting to ``status.json``. An entry point: its settings
    are read once here, from the environment the app gave it (its own, with Streamlit secrets laid over)."""
    from drag_core.evaluation.runner import evaluate, parse_spec
    from drag_core.evaluation.sweep import run_sweep

    os.nice(NICE)
    settings = Settings.from_env()
    request = json.loads((folder / "job.json").read_text())
    dataset = load_dataset(request["dataset"]).subset(int(request["limit"]))
    policy = VectorPolicy(**request["policy"])
    work = (
        []
        if plan(dataset, policy, settings).ready
        else remaining_work(dataset, default_folder(dataset, policy, settings))
    )
    files = len(work) if dataset.kind != PASSAGE_KIND else 0
    reporter = _Reporter(folder, Status(files=files, queries=len(dataset.queries)), work)
    reporter.write(force=True)
    try:
        specs = [parse_spec(text, settings.search) for text in request["runs"]]
        engine, index = open_index(dataset, settings, policy=policy, progress=reporter.ingest)
        try:
            if request["sweep"]:
                param, values = request["sweep"]
                found = run_sweep(engine, dataset, specs, param, values, reporter.query, index)
                result = (found.report, found)
            else:
                result = (evaluate(engine, dataset, specs, reporter.query, index), None)
        finally:
            engine.close()
        with (folder / "result.pickle").open("wb") as out:
            pickle.dump(result, out)
        reporter.status.stage = JobStage.DONE
    except Exception as error:  # the page shows why
        reporter.status.stage, reporter.status.error = JobStage.FAILED, f"{type(error).__name__}: {error}"
    reporter.write(force=True)


if __name__ == "__main__":
    run(Path(sys.argv[1]))
