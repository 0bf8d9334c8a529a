"""What the app says in words: Markdown escaping, counts and page spans, clocks, the settings described
without secrets (and the variables that set them), and the warning about documents built by an older tree or
with other vector settings. No Streamlit here, so all of it is testable."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from drag_core.config import ENV_VARS, Settings
from drag_core.engine import DocumentInfo
from drag_core.ingest.report import StaleReason
from drag_core.llm.config import LLMConfig
from drag_core.text import counted, page_span

__all__ = [
    "ENV_VARS",
    "RUNNING_LINES_SHOWN",
    "STALE_WORDS",
    "clock",
    "counted",
    "describe_settings",
    "escape_markdown",
    "page_span",
    "percent",
    "public_url",
    "running_lines_note",
    "stale_warning",
]

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


RUNNING_LINES_SHOWN = 6
#: How the app explains each ``StaleReason``.
STALE_WORDS = {
    StaleReason.OLDER_TREE: "by an older version of the tree (running headers, sections, summaries and keywords "
    "are built differently now)",
    StaleReason.OTHER_VECTORS: "with other vector settings (vector policy or BM25 constants) than the current ones",
}


def stale_warning(documents: Sequence[DocumentInfo]) -> str | None:
    """What to tell people when some documents were not built as the current settings build them: one
    sentence per reason."""
    by_reason: dict[str, list[str]] = {}
    for d in documents:
        if not d.current:
            by_reason.setdefault(d.stale_reason or StaleReason.OTHER_VECTORS, []).append(d.file_name)
    if not by_reason:
        return None
    sentences = []
    for reason, stale in by_reason.items():
        one = len(stale) == 1
        it = "it" if one else "them"
        sentences.append(
            f"{len(stale)} of {counted(len(documents), 'document')} {'was' if one else 'were'} indexed "
            f"{STALE_WORDS.get(reason, reason)}, so {'its' if one else 'their'} scores do not compare fairly "
            f"with the others'. Upload {it} again to rebuild {it}: {', '.join(stale)}"
        )
    return " ".join(sentences)


def running_lines_note(info: DocumentInfo, shown: int = RUNNING_LINES_SHOWN) -> str:
    """The running headers and footers left out of a document's summaries, keywords and vectors, in a line."""
    lines = [f"“{line}” on {counted(pages, 'page')}" for line, pages in info.running_lines[:shown]]
    if len(info.running_lines) > shown:
        lines.append(f"{counted(len(info.running_lines) - shown, 'more line')}")
    if info.page_numbers:
        lines.append(f"{counted(info.page_numbers, 'other page number')}")
    return (
        "Running headers and footers left out of summaries, keywords and vectors (the page text keeps them; "
        f"N is a number): {'; '.join(lines)}."
    )


def clock(seconds: float) -> str:
    """``0:07``, ``2:05``, ``1:02:05``."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def percent(fraction: float) -> str:
    """``38 %`` (a share 0–1, rounded down so 99.6 % of the work never reads 100 %)."""
    return f"{int(max(0.0, min(1.0, fraction)) * 100)} %"


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
    elif settings.in_memory:
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
        ("RRF k (default)", str(settings.search.rrf_k)),
        *summaries,
        ("Description cache", cache),
        ("Largest upload", f"{settings.max_file_bytes / 2**20:.0f} MB"),
    ]
