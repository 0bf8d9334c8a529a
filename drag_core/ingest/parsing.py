"""Parsing files into pages fast: parsed pages are cached by content hash; with pypdf (pure Python, ~2–20
pages a second on one core) files not in the cache are parsed in parallel worker processes. PDFium reads
~30–300 pages a second, ~2 % of an ingest's time, so it parses in the ingesting process: worker processes
gained 5 % there and would compete with the embedder's threads for the cores (docs/benchmarks.md).

Wraps ``loading.load_path`` / ``loading.load_bytes``, which stay the one place that knows file formats.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import cache, partial
from pathlib import Path

from drag_core.config import DEFAULT_PDF_ENGINE, check_pdf_engine
from drag_core.ingest import clean_text, loading, outline, pdf_text, running_lines
from drag_core.ingest.describe.cache import TextCache
from drag_core.ingest.loading import LoadedDocument, clean_file_name, document_id, load_bytes, load_path
from drag_core.ingest.outline import OutlineEntry
from drag_core.ingest.pdf_text import engine_version
from drag_core.types import Page

__all__ = ["START_METHOD", "PageCache", "Parser", "parser_identity"]

# Workers are forked: they run only the pure-Python loader, and "spawn"/"forkserver" would re-run the
# caller's main script in every worker (a script without a __main__ guard, or the app itself) and pay ~2 s
# of imports each. Where fork does not exist, files are parsed one after another.
START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() else None


@cache
def parser_identity(pdf_engine: str = DEFAULT_PDF_ENGINE) -> str:
    """Changes whenever the parser may produce other pages: the PDF engine, its version and the loaders'
    source (text cleaning, running lines and outlines included)."""
    modules = (loading, pdf_text, clean_text, running_lines, outline)
    source = b"".join(Path(module.__file__).read_bytes() for module in modules)
    return f"{engine_version(pdf_engine)}:{hashlib.sha256(source).hexdigest()[:16]}"


class PageCache(TextCache):
    """Parsed files (page texts and bodies, running lines, outline), keyed by parser identity (PDF engine
    included), file name, size limit and content hash."""

    table = "pages"

    @staticmethod
    def key(name: str, doc_id: str, max_bytes: int, pdf_engine: str = DEFAULT_PDF_ENGINE) -> str:
        return hashlib.sha256(
            f"{parser_identity(pdf_engine)}\x00{name}\x00{max_bytes}\x00{doc_id}".encode()
        ).hexdigest()

    def get(
        self, name: str, data: bytes, max_bytes: int, pdf_engine: str = DEFAULT_PDF_ENGINE
    ) -> LoadedDocument | None:
        """The document parsed earlier from the same bytes under the same name by the same engine, or None."""
        doc_id = document_id(data)
        value = self.read(self.key(name, doc_id, max_bytes, pdf_engine))
        if value is None:
            return None
        file_name = clean_file_name(name)
        parsed = json.loads(value)
        pages = [
            Page(file_name, i + 1, text, body)
            for i, (text, body) in enumerate(zip(parsed["texts"], parsed["bodies"]))
        ]
        return LoadedDocument(
            file_name,
            doc_id,
            pages,
            tuple((line, count) for line, count in parsed["running_lines"]),
            parsed["page_numbers"],
            tuple(OutlineEntry(*entry) for entry in parsed["outline"]),
        )

    def put(
        self, name: str, document: LoadedDocument, max_bytes: int, pdf_engine: str = DEFAULT_PDF_ENGINE
    ) -> None:
        parsed = {
            "texts": [page.text for page in document.pages],
            "bodies": [page.body for page in document.pages],
            "running_lines": document.running_lines,
            "page_numbers": document.page_numbers,
            "outline": [(e.level, e.title, e.page) for e in document.outline],
        }
        self.write(self.key(name, document.doc_id, max_bytes, pdf_engine), json.dumps(parsed))


class Parser:
    """Turns files into ``LoadedDocument``s: from the cache when the same bytes were parsed before, else with
    ``loading``, several files at once in worker processes.

    Attributes:
        max_bytes: largest file accepted.
        cache: the page cache.
        workers: most worker processes (1: parse in this process; default: one per core for pypdf, 1 for
            PDFium).
        pdf_engine: which engine reads PDFs (``config.PDF_ENGINES``).
        parsed: files parsed so far (not answered by the cache).
    """

    def __init__(
        self,
        max_bytes: int,
        cache: PageCache,
        workers: int | None = None,
        pdf_engine: str = DEFAULT_PDF_ENGINE,
    ) -> None:
        self.max_bytes = max_bytes
        self.cache = cache
        self.pdf_engine = check_pdf_engine(pdf_engine)
        if workers is None:
            workers = (os.cpu_count() or 1) if pdf_engine == "pypdf" else 1
        self.workers = max(1, workers)
        self.parsed = 0

    def parse_bytes(self, name: str, data: bytes) -> LoadedDocument:
        """Pages of an uploaded file. Raises ``LoadError`` with a one-line reason."""
        cached = self.cache.get(name, data, self.max_bytes, self.pdf_engine)
        if cached is not None:
            return cached
        self.parsed += 1
        document = load_bytes(name, data, self.max_bytes, pdf_engine=self.pdf_engine)
        self.cache.put(name, document, self.max_bytes, self.pdf_engine)
        return document

    def parse_paths(self, paths: Sequence[Path]) -> list[Callable[[], LoadedDocument]]:
        """One loader per file, in order: calling it returns the file's pages or raises ``LoadError`` (or what
        the parser raised) for that file alone.

        Cached files load at once; when two or more are not cached they are all parsed in parallel worker
        processes from this call on, so the caller can ingest one document while the next are being parsed.
        """
        cached = [self._cached(path) for path in paths]
        misses = [path for path, hit in zip(paths, cached) if hit is None]
        workers = min(self.workers, len(misses)) if START_METHOD else 1
        futures: dict[Path, Future[LoadedDocument]] = {}
        if workers > 1:
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(START_METHOD))
            futures = {
                path: pool.submit(load_path, path, self.max_bytes, pdf_engine=self.pdf_engine)
                for path in misses
            }
            pool.shutdown(wait=False)  # the workers exit when their files are parsed
        return [
            (lambda hit=hit: hit) if hit is not None else partial(self._parse, path, futures.get(path))
            for path, hit in zip(paths, cached)
        ]

    def _cached(self, path: Path) -> LoadedDocument | None:
        try:
            if not path.is_file() or path.stat().st_size > self.max_bytes:
                return None  # loading says why
            return self.cache.get(path.name, path.read_bytes(), self.max_bytes, self.pdf_engine)
        except OSError:
            return None

    def _load(self, path: Path) -> LoadedDocument:
        return load_path(path, self.max_bytes, pdf_engine=self.pdf_engine)

    def _parse(self, path: Path, future: Future[LoadedDocument] | None) -> LoadedDocument:
        self.parsed += 1
        try:
            document = future.result() if future is not None else self._load(path)
        except BrokenProcessPool:  # a worker died (out of memory, a crash in a parser): try here once
            document = self._load(path)
        self.cache.put(path.name, document, self.max_bytes, self.pdf_engine)
        return document
