"""An evaluation in a background process at a lower CPU priority, so the app's other sessions stay responsive.

The page asks :func:`plan` what a run will cost (pages to index, about how long), starts an
:class:`EvalJob`, polls :meth:`EvalJob.status` (stage, file, batch, query) and reads the report from
:meth:`EvalJob.result`. Cancel ends the process: each document of the evaluation index is whole or absent
(roots are written last; the next open removes a document without its root) and the index is not marked
complete, so the next run indexes the rest. No Streamlit here.

The child is ``python -m drag_core.evaluation.background JOB_FOLDER``: it reads ``job.json``, writes
``status.json`` as it goes and ``result.pickle`` at the end (or ``error`` in the status).
"""

from __future__ import annotations

import json
import os
import pickle
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
from drag_core.evaluation.index import MANIFEST, default_folder, open_index
from drag_core.ingest.pipeline import ProgressEvent
from drag_core.ingest.tree import TREE_VERSION
from drag_core.ingest.vector_text import VectorPolicy

__all__ = [
    "NICE",
    "SECONDS_PER_PAGE",
    "SECONDS_PER_PASSAGE",
    "STATUS_EVERY_S",
    "TEXT_PAGE_BYTES",
    "EvalJob",
    "JobStage",
    "Plan",
    "Status",
    "count_pages",
    "plan",
    "run",
]

#: Priority of the child (``os.nice`` increment): the app's searches come first.
NICE = 10
#: Seconds to index one page from scratch (parse, describe, embed) on a busy 2-core machine, and one passage
#: (measured: docs/benchmarks.md), for the estimate shown before a run.
SECONDS_PER_PAGE, SECONDS_PER_PASSAGE = 1.5, 0.12
STATUS_EVERY_S = 0.5
#: About one page of a text file (the loader cuts text into sections of at most 3,000 characters).
TEXT_PAGE_BYTES = 3000


@dataclass(frozen=True)
class Plan:
    """What a run costs before it starts.

    Attributes:
        ready: the data set's index is built for these settings (nothing to index).
        files: documents to index.
        pages: pages (or passages) to index.
        seconds: about how long indexing takes.
    """

    ready: bool
    files: int
    pages: int
    seconds: float


def count_pages(dataset: Dataset) -> int:
    """Pages of the data set's documents (passages of a passage data set), read from the files' page trees."""
    if dataset.kind == PASSAGE_KIND:
        import gzip

        with gzip.open(dataset.root / "corpus.jsonl.gz", "rt") as lines:
            return sum(1 for _ in lines)
    from pypdf import PdfReader

    total = 0
    for path in dataset.files:
        try:
            pdf = path.suffix.lower() == ".pdf"
            total += len(PdfReader(path).pages) if pdf else max(1, -(-path.stat().st_size // TEXT_PAGE_BYTES))
        except Exception:  # unreadable: reported when the run ingests it
            continue
    return total


def plan(dataset: Dataset, policy: VectorPolicy, settings: Settings) -> Plan:
    """Whether the data set's default index is built for ``policy``, the settings (BM25 constants, PDF engine)
    and this version of the tree and, if not, what indexing it costs."""
    manifest = default_folder(dataset, policy, settings) / MANIFEST
    if manifest.is_file():
        built = json.loads(manifest.read_text())
        if (
            built.get("fingerprint") == dataset.fingerprint()
            and built.get("vector_policy") == policy.identity
            and built.get("tree_version") == TREE_VERSION
        ):
            return Plan(True, 0, 0, 0.0)
    pages = count_pages(dataset)
    per_page = SECONDS_PER_PASSAGE if dataset.kind == PASSAGE_KIND else SECONDS_PER_PAGE
    files = pages if dataset.kind == PASSAGE_KIND else len(dataset.files)
    return Plan(False, files, pages, pages * per_page)


class JobStage(StrEnum):
    """Where an evaluation in the background is."""

    STARTING = "starting"
    INDEXING = "indexing"
    QUERYING = "querying"
    DONE = "done"
    FAILED = "failed"


@dataclass
class Status:
    """What the child is doing.

    Attributes:
        stage: a ``JobStage``.
        file: the file being indexed, its stage and batch (``done``/``total``).
        files_done: files indexed so far (of ``files``).
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
        """Start ``python -m drag_core.evaluation.background`` on a new job folder."""
        folder = Path(tempfile.mkdtemp(prefix="drag-eval-"))
        request = {
            "dataset": str(dataset),
            "limit": limit,
            "runs": runs,
            "policy": asdict(policy),
            "sweep": list(sweep) if sweep else None,
        }
        (folder / "job.json").write_text(json.dumps(request))
        command = [sys.executable, "-m", "drag_core.evaluation.background", str(folder)]
        with (folder / "log.txt").open("w") as log:
            process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        return cls(folder, process)

    def status(self) -> Status:
        """The child's last status; ``failed`` with the reason when it ended without a result."""
        try:
            status = Status(**json.loads((self.folder / "status.json").read_text()))
        except (OSError, ValueError):
            status = Status()
        if self._process.poll() is not None and status.stage not in (JobStage.DONE, JobStage.FAILED):
            log = (self.folder / "log.txt").read_text(errors="replace").strip().splitlines()
            status.stage = JobStage.FAILED
            status.error = log[-1] if log else f"exit code {self._process.returncode}"
        return status

    @property
    def running(self) -> bool:
        return self._process.poll() is None

    def cancel(self) -> None:
        """End the child (its whole process group) and wait for it."""
        if self.running:
            os.killpg(self._process.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait()

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
    """Writes ``status.json`` atomically, at most every ``STATUS_EVERY_S`` unless forced."""

    def __init__(self, folder: Path, status: Status) -> None:
        self.folder, self.status, self._last = folder, status, 0.0

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
        status = self.status
        if event.file_name != status.file and status.file:
            status.files_done += 1
        status.stage, status.file, status.file_stage = JobStage.INDEXING, event.file_name, event.stage
        status.done, status.total = event.done, event.total
        self.write()

    def query(self, done: int, total: int, query_id: str) -> None:
        self.status.stage, self.status.queries_done, self.status.queries = JobStage.QUERYING, done, total
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
    files = len(dataset.files) if dataset.kind != PASSAGE_KIND else 0
    reporter = _Reporter(folder, Status(files=files, queries=len(dataset.queries)))
    reporter.write(force=True)
    try:
        specs = [parse_spec(text, settings.search) for text in request["runs"]]
        policy = VectorPolicy(**request["policy"])
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
