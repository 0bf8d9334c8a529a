"""What the Evaluate page asks of ``drag_core.evaluation``: the data sets it can list (the user's own labels
first), what a run costs, a run in the background (or, on the labels, in a thread over the app's index), and
the report's tables. No Streamlit here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from drag_core.app.display import clock, percent
from drag_core.app.jobs.process import EvalJob, JobStage, Plan, Status, plan
from drag_core.app.jobs.thread import IndexEvalJob
from drag_core.app.uploads import file_line
from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.evaluation.datasets import PASSAGE_KIND, Dataset, find_datasets, load_dataset
from drag_core.evaluation.index import LEDGER, MANIFEST, default_folder
from drag_core.evaluation.report import headline, query_rows, summary_rows, sweep_verdicts, verdicts
from drag_core.evaluation.runner import Report, RunSpec, parse_spec
from drag_core.ingest.report import ProgressEvent
from drag_core.ingest.vector_text import PARENT_DENSE_CHOICES, PARENT_SPARSE_CHOICES, VectorPolicy
from drag_core.knee import KNEE_METHODS, SENSITIVITIES
from drag_core.labels import LABELS_NAME, Labels, labels_dataset
from drag_core.text import counted

__all__ = [
    "PARENT_DENSE_CHOICES",
    "PARENT_SPARSE_CHOICES",
    "SWEEPABLE",
    "SWEEP_VALUES",
    "LABELS_NAME",
    "EvalJob",
    "IndexEvalJob",
    "JobStage",
    "Plan",
    "VectorPolicy",
    "find_datasets",
    "HEADLINE_COLUMNS",
    "headline",
    "headline_rows",
    "labels_dataset",
    "index_version",
    "indexing_lines",
    "load_dataset",
    "plan",
    "plan_warning",
    "query_rows",
    "run_specs",
    "start_labels_evaluation",
    "summary_rows",
    "sweep_values",
    "sweep_verdicts",
    "verdicts",
]

#: The Evaluate page's first table, narrow enough for a 1000 px window: the run, its gain at equal budget
#: first, then what it finds and what it costs (every column, intervals too, in the full table under it).
HEADLINE_COLUMNS = ("strategy", "gain_vs_flat", "right_sized_recall", "pages_returned", "doc_hit")


def headline_rows(report: Report) -> list[dict[str, object]]:
    """One row per run with the ``HEADLINE_COLUMNS`` only (``summary_rows`` has them all)."""
    rows: list[Mapping[str, object]] = summary_rows(report)
    return [{name: row.get(name) for name in HEADLINE_COLUMNS} for row in rows]


#: The parameters the page offers to sweep.
SWEEPABLE = (
    "sensitivity",
    "beam_width",
    "rrf_k",
    "score_source",
    "max_keep",
    "top_k",
    "roots",
    "root_rank",
    "knee_method",
)


#: The values a sweep of a parameter starts from (the sensitivity's: the default detector's slider values).
SWEEP_VALUES = {
    "beam_width": "2 3 5 10",
    "rrf_k": "10 30 60 100",
    "score_source": "dense rrf",
    "max_keep": "5 10 20 50",
    "top_k": "1 2 3 4 5 7 10 15 20",
    "roots": "1 2 3 5 10",
    "root_rank": "best-page root-vectors",
    "knee_method": " ".join(KNEE_METHODS),
}


def sweep_values(param: str, settings: Settings) -> str:
    """The values a sweep of ``param`` starts from; for the sensitivity, the slider's values of the settings'
    detector, so the sweep draws the knee's whole range against flat's curve."""
    if param == "sensitivity":
        return " ".join(f"{s:g}" for s in SENSITIVITIES[settings.search.knee_method])
    return SWEEP_VALUES.get(param, "")


def index_version(dataset: Dataset, policy: VectorPolicy, settings: Settings) -> tuple[float, int]:
    """When the data set's index for this policy and these settings was last completed (0: never) and how
    much its ledger holds, so a cached estimate is redone after a run builds the index or part of it."""
    folder = default_folder(dataset, policy, settings)
    manifest, ledger = folder / MANIFEST, folder / LEDGER
    return (
        manifest.stat().st_mtime if manifest.is_file() else 0.0,
        ledger.stat().st_size if ledger.is_file() else 0,
    )


def run_specs(texts: Iterable[str], settings: Settings) -> list[RunSpec]:
    """The runs named (``STRATEGY`` or ``STRATEGY:field=value,…``), over the settings' default parameters.
    Raises ``ValueError`` for an unknown strategy or field."""
    return [parse_spec(text, settings.search) for text in texts]


def start_labels_evaluation(
    engine: Engine, labels: Labels, runs: Iterable[str], limit: int | None, settings: Settings
) -> IndexEvalJob:
    """The runs on the user's labels over the app's own index, in a thread: nothing is ingested. Raises
    ``ValueError`` for an unknown run."""
    specs = run_specs(runs, settings)
    dataset, index = labels_dataset(engine, labels, limit)
    return IndexEvalJob(engine, dataset, specs, index)


def indexing_lines(status: Status, left: str) -> tuple[str, str]:
    """The two bars' texts while an evaluation indexes: the whole indexing (``Indexing: 45 % · 2 of 5
    documents done · about 1:20 left``) and the current file (``R-lang.pdf — 38 % · embedding 32 of 69
    texts``); ``left`` is the time left in words."""
    files = f"{status.files_done} of {counted(status.files, 'document')} done · " if status.files else ""
    event = ProgressEvent(status.file, status.file_stage, status.done, status.total)
    return f"Indexing: {percent(status.fraction)} · {files}{left}", file_line(
        status.file, status.file_fraction, event
    )


def plan_warning(cost: Plan, kind: str) -> str:
    """What a run that must index first costs, in words: the pages and documents still to index (and how
    many an earlier, interrupted run indexed already), about how long, at whose pace."""
    unit, holder = ("passage", "passage") if kind == PASSAGE_KIND else ("page", "document")
    pace = "at the pace earlier runs measured on this machine" if cost.measured else "at a typical pace"
    size = f"{counted(cost.pages, unit)} in {counted(cost.files, holder)}"
    if cost.indexed:
        done = f"{counted(cost.indexed, 'document')} {'is' if cost.indexed == 1 else 'are'} indexed already"
        start = f"This run indexes the rest of the data set — {size} ({done}), about {clock(cost.seconds)} {pace} —"
    else:
        start = f"The first run indexes the whole data set — {size}, about {clock(cost.seconds)} {pace} —"
    return (
        f"{start} whatever the number of queries (finding the right document is part of the task). Later runs "
        "reuse the index. It runs in the background at a lower priority; you can cancel it."
    )
