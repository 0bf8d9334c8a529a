"""The pages a user marked relevant or not for their own questions: user data that the page viewer writes
(``store``: a page data set in the store folder's ``labels/``) and that ``drag eval --labels`` and the Evaluate
page read (``dataset``: the labels as a data set over the index they were made on)."""

from drag_core.labels.dataset import labels_dataset
from drag_core.labels.store import LABELS_NAME, Label, Labels, query_id

__all__ = ["LABELS_NAME", "Label", "Labels", "labels_dataset", "query_id"]
