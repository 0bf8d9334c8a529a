"""DRAG with KNEE: dynamic retrieval over a hierarchical summary tree in Qdrant, cut at knee points."""

from drag_core.config import Settings
from drag_core.engine import DocumentInfo, Engine
from drag_core.ingest import IngestReport, ProgressEvent
from drag_core.search import STRATEGIES, SearchParams, SearchResult

__all__ = [
    "STRATEGIES",
    "DocumentInfo",
    "Engine",
    "IngestReport",
    "ProgressEvent",
    "SearchParams",
    "SearchResult",
    "Settings",
]
