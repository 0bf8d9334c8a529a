"""The user's labels as a data set over the index they were made on: what ``drag eval --labels`` and the
Evaluate page's "my labels" judge the strategies by."""

from __future__ import annotations

from typing import Any

from drag_core.engine import Engine
from drag_core.evaluation.datasets import Dataset
from drag_core.evaluation.index import index_identity
from drag_core.labels.store import Labels

__all__ = ["labels_dataset"]


def labels_dataset(
    engine: Engine, labels: Labels, limit: int | None = None
) -> tuple[Dataset, dict[str, Any]]:
    """The labels that are not stale as a data set over ``engine``'s index (its first ``limit`` questions), and
    what the report says about the index: the engine's, reused, with how many labels were left out as stale."""
    indexed = {d.file_name: d.doc_id for d in engine.documents()}
    dataset = labels.dataset(indexed).subset(limit)
    stale = sum(label.stale(indexed) for label in labels.all())
    return dataset, index_identity(engine) | {"stale_labels_left_out": stale}
