"""What the Evaluate page asks of ``drag_core.evaluation``: the data sets it can list (the user's own labels
first), what a run costs, a run in the background (or, on the labels, in a thread over the app's index), and
the report's tables. No Streamlit here."""

from __future__ import annotations

from collections.abc import Iterable

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.evaluation.background import EvalJob, JobStage, Plan, plan
from drag_core.evaluation.datasets import Dataset, find_datasets, load_dataset
from drag_core.evaluation.index import MANIFEST, default_folder
from drag_core.evaluation.labels import LABELS_NAME, Labels
from drag_core.evaluation.on_index import IndexEvalJob, labels_dataset
from drag_core.evaluation.report import headline, query_rows, summary_rows, sweep_verdicts, verdicts
from drag_core.evaluation.runner import RunSpec, parse_spec
from drag_core.ingest.vector_text import PARENT_DENSE_CHOICES, PARENT_SPARSE_CHOICES, VectorPolicy
from drag_core.knee import KNEE_METHODS, SENSITIVITIES

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
    "headline",
    "index_built_at",
    "labels_dataset",
    "load_dataset",
    "plan",
    "query_rows",
    "run_specs",
    "start_labels_evaluation",
    "summary_rows",
    "sweep_values",
    "sweep_verdicts",
    "verdicts",
]

#: The parameters the page offers to sweep.
SWEEPABLE = (
    "sensitivity",
    "beam_width",
    "rrf_k",
    "score_source",
    "max_keep",
    "top_k",
    "roots",
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
    "knee_method": " ".join(KNEE_METHODS),
}


def sweep_values(param: str, settings: Settings) -> str:
    """The values a sweep of ``param`` starts from; for the sensitivity, the slider's values of the settings'
    detector, so the sweep draws the knee's whole range against flat's curve."""
    if param == "sensitivity":
        return " ".join(f"{s:g}" for s in SENSITIVITIES[settings.search.knee_method])
    return SWEEP_VALUES.get(param, "")


def index_built_at(dataset: Dataset, policy: VectorPolicy, settings: Settings) -> float:
    """When the data set's index for this policy and these settings was last completed (0: never), so a
    cached estimate is redone after a run builds it."""
    manifest = default_folder(dataset, policy, settings) / MANIFEST
    return manifest.stat().st_mtime if manifest.is_file() else 0.0


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
