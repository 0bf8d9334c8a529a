"""The Streamlit side of the app: what the pages share (one engine per process, per-user state, knobs that
keep their values, document text drawn as text). The only part of ``drag_core`` that imports Streamlit;
the pages use it as ``from drag_core import ui``."""

from drag_core.ui.routing import through_app
from drag_core.ui.session import (
    COMPARISON,
    cached_figure,
    comparer,
    documents,
    engine,
    env,
    index_changed,
    indexed_documents,
    ingest_files,
    kept,
    last_comparison,
    llm_config,
    settle_heap,
    show_text,
)

__all__ = [
    "COMPARISON",
    "cached_figure",
    "comparer",
    "documents",
    "engine",
    "env",
    "index_changed",
    "indexed_documents",
    "ingest_files",
    "kept",
    "last_comparison",
    "llm_config",
    "settle_heap",
    "show_text",
    "through_app",
]
