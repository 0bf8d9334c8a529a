"""Streamlit glue shared by the pages.

One embedder and one engine per process (``st.cache_resource``: an embedded Qdrant folder takes one client
per process; the engine's lock serialises the sessions' ingests and searches), per-user state in
``st.session_state``, knobs that keep their values across page switches, and document text drawn as text.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import streamlit as st

from drag_core.app.compare import Comparer, Comparison
from drag_core.app.display import escape_markdown
from drag_core.app.environment import app_env
from drag_core.app.sample import SAMPLE_PDF, sample_on_start
from drag_core.app.uploads import file_line, outcome_counts, unchanged_report
from drag_core.config import Bm25Params, Settings
from drag_core.engine import DocumentInfo, Engine
from drag_core.errors import DragError
from drag_core.ingest.loading import expected_pages
from drag_core.ingest.progress import ProgressMeter
from drag_core.ingest.report import IngestReport, IngestStatus, ProgressEvent
from drag_core.llm.config import LLMConfig
from drag_core.lru import LRU
from drag_core.models.embeddings import Embedder
from drag_core.text import counted

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
    "keep_address",
    "kept",
    "last_comparison",
    "llm_config",
    "opened_address",
    "set_widgets",
    "settings",
    "show_text",
]

KEPT = "kept_values"
ADDRESS = "address_written"
COMPARISON = "comparison"
FIGURES = "figure_cache"
FIGURES_KEPT = 48
#: How long a server's document list is trusted (another process may write to a server; nothing else writes
#: to an embedded folder, so its list is read again only after this app changed it).
SERVER_LISTING_S = 30.0
_first_start_lock = threading.Lock()
_listings: weakref.WeakKeyDictionary[Engine, tuple[float, list[DocumentInfo]]] = weakref.WeakKeyDictionary()
_listings_lock = threading.Lock()


def env() -> dict[str, str]:
    """The environment with Streamlit secrets laid over it."""
    secrets = st.secrets.to_dict() if st.secrets.load_if_toml_exists() else {}
    return app_env(secrets, os.environ)


def settings() -> Settings:
    """The app's settings: read from the environment and Streamlit secrets, the app's one entry point to
    them (the library below takes them as arguments)."""
    return Settings.from_env(env())


def llm_config() -> LLMConfig | None:
    """The configured LLM endpoint, or None (offline)."""
    return settings().llm


@st.cache_resource(show_spinner="Loading the embedding models…")
def _embedder(
    model_dir: str, dense_model: str, sparse_model: str, bm25: Bm25Params, threads: int | None
) -> Embedder:
    return Embedder(Path(model_dir), dense_model, sparse_model, threads=threads, bm25=bm25)


@st.cache_resource(show_spinner="Opening the index…")
def _engine(key: str, _settings: Settings) -> Engine:
    s = _settings
    embedder = _embedder(str(s.model_dir), s.dense_model, s.sparse_model, s.bm25, s.embed_threads)
    return Engine(s, embedder=embedder)


@st.cache_resource
def _started() -> set[str]:
    """Keys of the engines whose first start was handled in this process."""
    return set()


def engine() -> Engine:
    """The process's engine for the current settings; on its first start an empty index gets the sample.

    Stops the page with the reason when the index cannot be opened. The engine is keyed by the settings of
    the index (the LLM and secrets excluded: an embedded folder takes one engine per process), so the LLM
    that writes summaries is the one configured when the engine was created.
    """
    current = settings()
    key = repr(replace(current, llm=None))
    try:
        found = _engine(key, current)
    except DragError as error:
        st.error(f"The index cannot be opened: {escape_markdown(str(error))}")
        st.stop()
    with _first_start_lock:
        started = _started()
        first = key not in started
        started.add(key)
    if first and sample_on_start(current) and not found.documents():
        ingest_files(
            found, [(SAMPLE_PDF.name, SAMPLE_PDF.read_bytes())], "Indexing the bundled sample document"
        )
    return found


def ingest_files(engine: Engine, files: list[tuple[str, bytes]], label: str) -> list[IngestReport]:
    """Ingest files under an ``st.status`` with a progress bar per file (its share of the work, in words) and
    one result line each."""
    reports = []
    with st.status(f"{label} ({counted(len(files), 'file')})…", expanded=True) as status:
        for name, data in files:
            bar = st.progress(0.0, text=escape_markdown(f"{name} — waiting"))
            meter = ProgressMeter([(name, expected_pages(name, data))], time.monotonic())

            def show(event: ProgressEvent, bar: Any = bar, meter: ProgressMeter = meter) -> None:
                meter.moved(0, event, time.monotonic())
                share = meter.file_fraction(0)
                bar.progress(share, text=escape_markdown(file_line(event.file_name, share, event)))

            report = unchanged_report(documents(engine), name, data) or engine.ingest_bytes(name, data, show)
            index_changed(engine)
            bar.progress(1.0, text=escape_markdown(report.line()))
            reports.append(report)
        failed = any(r.status is IngestStatus.FAILED for r in reports)
        status.update(
            label=f"{label}: {outcome_counts(reports)}",
            state="error" if failed else "complete",
            expanded=True,
        )
    return reports


def documents(found: Engine) -> list[DocumentInfo]:
    """The indexed documents, read from the index once and again only after :func:`index_changed` (for a
    Qdrant server, also after ``SERVER_LISTING_S``): a rerun lists them without a Qdrant call."""
    with _listings_lock:
        read_at, listing = _listings.get(found, (0.0, None))
        expired = found.settings.qdrant_url and time.monotonic() - read_at > SERVER_LISTING_S
        if listing is None or expired:
            listing = found.documents()
            _listings[found] = (time.monotonic(), listing)
        return listing


def index_changed(found: Engine) -> None:
    """Forget the document list: this app just wrote to or removed from the index."""
    with _listings_lock:
        _listings.pop(found, None)


def indexed_documents(found: Engine) -> list[DocumentInfo]:
    """The indexed documents; when there are none, a pointer to the Upload page, and the page stops."""
    listing = documents(found)
    if not listing:
        st.info("Nothing is indexed yet.")
        st.page_link("pages/upload.py", label="Upload documents", icon=":material/upload_file:")
        st.stop()
    return listing


def cached_figure(key: Hashable, build: Callable[[], Any], keep: object = None) -> Any:
    """A figure remembered for this user by the inputs it was drawn from (``key``), built on first use.

    ``keep`` is held with the figure so that object ids inside ``key`` stay unique while it is remembered.
    """
    figures: LRU[Hashable, tuple[Any, object]] = st.session_state.setdefault(FIGURES, LRU(FIGURES_KEPT))
    return figures.get_or_make(key, lambda: (build(), keep))[0]


def comparer() -> Comparer:
    """This user's comparer (remembers query embeddings and strategy runs)."""
    if "comparer" not in st.session_state:
        st.session_state["comparer"] = Comparer()
    return st.session_state["comparer"]


def last_comparison() -> Comparison | None:
    """The comparison this user ran last on the Compare page."""
    return st.session_state.get(COMPARISON)


def kept(widget: Callable[..., Any], label: str, key: str, default: Any, **kwargs: Any) -> Any:
    """A widget whose value survives page switches (Streamlit drops the state of widgets not drawn).

    A remembered value that is no longer among the widget's ``options`` falls back to ``default``.
    """
    values = st.session_state.setdefault(KEPT, {})
    value = st.session_state.get(key, values.get(key, default))
    options = kwargs.get("options")
    if options is not None and not _among(value, options):
        value = default
    st.session_state[key] = value
    values[key] = widget(label, key=key, **kwargs)
    return values[key]


def opened_address() -> dict[str, str] | None:
    """The address's query when it is new to this session — a link opened, a page reloaded — else None (what
    this session wrote itself, or nothing, as after moving between pages)."""
    current = st.query_params.to_dict()
    if not current or current == st.session_state.get(ADDRESS):
        return None
    st.session_state[ADDRESS] = current
    return current


def keep_address(query: Mapping[str, str]) -> None:
    """Make the browser's address hold ``query`` (a message only when it changed)."""
    wanted = dict(query)
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)
    st.session_state[ADDRESS] = wanted


def set_widgets(values: Mapping[str, Any]) -> None:
    """Give widgets values before they are drawn (widget key → value)."""
    for key, value in values.items():
        st.session_state[key] = value


def _among(value: Any, options: Any) -> bool:
    choices = list(options)
    return all(v in choices for v in value) if isinstance(value, list | tuple) else value in choices


def show_text(text: str, empty: str = "(no text)") -> None:
    """Text from a document, drawn as plain text (never Markdown or HTML)."""
    st.text(text if text.strip() else empty)
