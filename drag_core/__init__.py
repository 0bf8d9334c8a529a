"""DRAG with KNEE: dynamic retrieval over a hierarchical summary tree in Qdrant, cut at knee points."""

from drag_core.config import Settings
from drag_core.engine import DocumentInfo, Engine
from drag_core.errors import DragError
from drag_core.ingest import IngestReport, ProgressEvent
from drag_core.search import DEFAULT_STRATEGIES, STRATEGIES, SearchParams, SearchResult

__all__ = [
    "DEFAULT_STRATEGIES",
    "STRATEGIES",
    "DocumentInfo",
    "DragError",
    "Engine",
    "IngestReport",
    "ProgressEvent",
    "SearchParams",
    "SearchResult",
    "Settings",
]
