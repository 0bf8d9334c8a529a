"""What the Streamlit pages need besides drawing: the bundled sample, upload bookkeeping, progress text, a
settings description free of secrets, and answers (settings themselves are read by ``config``).

No Streamlit here, so all of it is testable on its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from drag_core.config import LLMConfig, Settings
from drag_core.engine import DocumentInfo
from drag_core.ingest import STAGES, IngestReport, ProgressEvent
from drag_core.llm import answer_question, citation, make_client
from drag_core.loading import clean_file_name, document_id
from drag_core.text import counted
from drag_core.types import Node

SAMPLE_PDF = Path(__file__).resolve().parent.parent / "samples" / "R-data.pdf"
SAMPLE_TITLE = "R Data Import/Export (R manual, 41 pages)"
SAMPLE_QUERY = "How do I read a CSV file?"
UPLOAD_TYPES = ("pdf", "txt", "md")

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def sample_on_start(env: Mapping[str, str]) -> bool:
    """Whether an empty index gets the bundled sample when the app starts (``DRAG_SAMPLE``)."""
    return Settings.from_env(env).sample_on_start and SAMPLE_PDF.is_file()


def unchanged_report(documents: Sequence[DocumentInfo], name: str, data: bytes) -> IngestReport | None:
    """The report of an upload whose exact bytes are already indexed under the same name, built as the engine
    builds now (nothing to do), else None. Costs one hash: the file is not parsed."""
    file_name = clean_file_name(name)
    doc_id = document_id(data)
    for info in documents:
        if info.file_name == file_name and info.doc_id == doc_id and info.current:
            return IngestReport(
                file_name,
                "unchanged",
                pages=info.pages,
                empty_pages=info.empty_pages,
                nodes=info.nodes,
                doc_id=doc_id,
            )
    return None


def stale_warning(documents: Sequence[DocumentInfo]) -> str | None:
    """What to tell people when some documents were built with other vector settings than the current ones."""
    stale = [d.file_name for d in documents if not d.current]
    if not stale:
        return None
    one = len(stale) == 1
    it = "it" if one else "them"
    return (
        f"{len(stale)} of {counted(len(documents), 'document')} {'was' if one else 'were'} indexed with other "
        f"vector settings (vector policy or BM25 constants) than the current ones, so {'its' if one else 'their'} "
        f"scores do not compare fairly with the others'. Upload {it} again to rebuild {it}: {', '.join(stale)}"
    )


def progress_fraction(event: ProgressEvent) -> float:
    """How far one file is through the pipeline, 0–1 (each stage an equal share)."""
    stage = STAGES.index(event.stage) if event.stage in STAGES else 0
    within = event.done / event.total if event.total else 1.0
    return min(1.0, (stage + within) / len(STAGES))


def progress_text(event: ProgressEvent) -> str:
    """``R-data.pdf — summaries 12/41``."""
    return f"{event.file_name} — {event.stage} {event.done}/{event.total}"


def clock(seconds: float) -> str:
    """``0:07``, ``2:05``, ``1:02:05``."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def escape_markdown(text: str) -> str:
    """``text`` with every Markdown control character backslash-escaped, so it shows as typed."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def public_url(url: str) -> str:
    """``scheme://host[:port]/path`` of a URL: user, password, query and fragment dropped."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"


def describe_settings(
    settings: Settings, llm: LLMConfig | None, engine_label: str = ""
) -> list[tuple[str, str]]:
    """What the Settings page shows, as (name, value) rows. Keys are never shown, only whether one is set."""
    if settings.qdrant_url:
        where = f"Qdrant server at {public_url(settings.qdrant_url)}"
        key = "set (hidden)" if settings.qdrant_api_key else "not set"
        index = [("Index", where), ("Qdrant API key", key)]
    elif settings.store == ":memory:":
        index = [("Index", "in memory (thrown away when the app stops)")]
    else:
        index = [("Index", f"embedded Qdrant folder {Path(settings.store).resolve()}")]
    if llm is None:
        summaries = [
            ("Summaries", "offline extractive summariser (no LLM endpoint configured)"),
            ("Answers", "off"),
        ]
    else:
        summaries = [
            ("Summaries", f"LLM {llm.model} at {llm.host} (offline summariser as fallback)"),
            ("Answers", f"LLM {llm.model} at {llm.host}"),
            ("LLM API key", "set (hidden)" if llm.api_key else "not set"),
        ]
    cache = str(settings.cache_path.resolve()) if settings.cache_path else "none (in memory)"
    return [
        *index,
        *([("Engine", engine_label)] if engine_label else []),
        ("Collection", settings.collection),
        ("Dense model", settings.dense_model),
        ("Sparse model", settings.sparse_model),
        ("BM25 constants", settings.bm25.identity),
        ("Model folder", str(Path(settings.model_dir).resolve())),
        ("RRF k (default)", str(settings.rrf_k)),
        *summaries,
        ("Description cache", cache),
        ("Largest upload", f"{settings.max_file_bytes / 2**20:.0f} MB"),
    ]


def citations(pages: Sequence[Node]) -> list[str]:
    """``[file p.X–Y]`` for each run of consecutive pages of one file, in the order given."""
    spans: list[list[Any]] = []
    for page in pages:
        last = spans[-1] if spans else None
        if last and last[0] == page.file_name and page.page_start == last[2] + 1:
            last[2] = page.page_end
        else:
            spans.append([page.file_name, page.page_start, page.page_end])
    return [citation(name, start, end) for name, start, end in spans]


def answer(llm: LLMConfig, query: str, context: Sequence[Node]) -> str:
    """An answer to ``query`` from the given pages, citing ``[file p.X]``. Raises ``LLMError``."""
    passages = [(page.file_name, page.page_start, page.page_end, page.text) for page in context]
    return answer_question(make_client(llm), llm, query, passages)
