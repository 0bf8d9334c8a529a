"""DRAG with KNEE: dynamic retrieval over a hierarchical summary tree in Qdrant, cut at knee points.

The names below are imported on first use (PEP 562), so ``import drag_core`` (and the CLI's ``--help``) does not
load Qdrant, the models or the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drag_core.config import Settings
    from drag_core.engine import DocumentInfo, Engine
    from drag_core.errors import DragError
    from drag_core.ingest.report import IngestReport, ProgressEvent
    from drag_core.knee import KNEE_METHODS
    from drag_core.params import SCORE_SOURCES, SearchParams
    from drag_core.search import DEFAULT_STRATEGIES, STRATEGIES, SearchResult
    from drag_core.types import Node

_HOMES = {
    "Settings": "drag_core.config",
    "DocumentInfo": "drag_core.engine",
    "Engine": "drag_core.engine",
    "DragError": "drag_core.errors",
    "Node": "drag_core.types",
    "IngestReport": "drag_core.ingest.pipeline",
    "ProgressEvent": "drag_core.ingest.pipeline",
    "KNEE_METHODS": "drag_core.knee",
    "SCORE_SOURCES": "drag_core.params",
    "SearchParams": "drag_core.params",
    "DEFAULT_STRATEGIES": "drag_core.search",
    "STRATEGIES": "drag_core.search",
    "SearchResult": "drag_core.search",
}

__all__ = [
    "DEFAULT_STRATEGIES",
    "KNEE_METHODS",
    "SCORE_SOURCES",
    "STRATEGIES",
    "DocumentInfo",
    "DragError",
    "Engine",
    "IngestReport",
    "Node",
    "ProgressEvent",
    "SearchParams",
    "SearchResult",
    "Settings",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'drag_core' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
