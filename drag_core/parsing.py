"""Parsing files into pages fast: parsed pages are cached by content hash, and files not in the cache are
parsed in parallel worker processes (pypdf is pure Python: one core reads ~3–10 pages a second).

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

from drag_core import loading
from drag_core.describe.cache import TextCache
from drag_core.loading import LoadedDocument, clean_file_name, document_id, load_bytes, load_path
from drag_core.types import Page

# Workers are forked: they run only the pure-Python loader, and "spawn"/"forkserver" would re-run the
# caller's main script in every worker (a script without a __main__ guard, or the app itself) and pay ~2 s
# of imports each. Where fork does not exist, files are parsed one after another.
START_METHOD = "fork" if "fork" in multiprocessing.get_all_start_methods() else None


@cache
def parser_identity() -> str:
    """Changes whenever the parser may produce other pages: the pypdf version and the loader's source."""
    from pypdf import __version__ as pypdf_version

    source = Path(loading.__file__).read_bytes()
    return f"pypdf-{pypdf_version}:{hashlib.sha256(source).hexdigest()[:16]}"


def page_cache_path(description_cache: Path | None) -> Path | None:
    """The page cache sits beside the description cache (none for a throw-away index)."""
    return description_cache.with_name("page-cache.sqlite") if description_cache else None


class PageCache(TextCache):
    """Page texts of parsed files, keyed by parser identity, file name, size limit and content hash."""

    table = "pages"

    @staticmethod
    def key(name: str, doc_id: str, max_bytes: int) -> str:
        return hashlib.sha256(
            f"{parser_identity()}\x00{name}\x00{max_bytes}\x00{doc_id}".encode()
        ).hexdigest()

    def get(self, name: str, data: bytes, max_bytes: int) -> LoadedDocument | None:
        """The document parsed earlier from the same bytes under the same name, or None."""
        doc_id = document_id(data)
        texts = self.read(self.key(name, doc_id, max_bytes))
        if texts is None:
            return None
        file_name = clean_file_name(name)
        pages = [Page(file_name=file_name, number=i + 1, text=t) for i, t in enumerate(json.loads(texts))]
        return LoadedDocument(file_name=file_name, doc_id=doc_id, pages=pages)

    def put(self, name: str, document: LoadedDocument, max_bytes: int) -> None:
        self.write(
            self.key(name, document.doc_id, max_bytes), json.dumps([page.text for page in document.pages])
        )


class Parser:
    """Turns files into ``LoadedDocument``s: from the cache when the same bytes were parsed before, else with
    ``loading``, several files at once in worker processes.

    Attributes:
        max_bytes: largest file accepted.
        cache: the page cache.
        workers: most worker processes (1: parse in this process).
    """

    def __init__(self, max_bytes: int, cache: PageCache, workers: int | None = None) -> None:
        self.max_bytes = max_bytes
        self.cache = cache
        self.workers = max(1, workers if workers is not None else os.cpu_count() or 1)

    def parse_bytes(self, name: str, data: bytes) -> LoadedDocument:
        """Pages of an uploaded file. Raises ``LoadError`` with a one-line reason."""
        cached = self.cache.get(name, data, self.max_bytes)
        if cached is not None:
            return cached
        document = load_bytes(name, data, self.max_bytes)
        self.cache.put(name, document, self.max_bytes)
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
            futures = {path: pool.submit(load_path, path, self.max_bytes) for path in misses}
            pool.shutdown(wait=False)  # the workers exit when their files are parsed
        return [
            (lambda hit=hit: hit) if hit is not None else partial(self._parse, path, futures.get(path))
            for path, hit in zip(paths, cached)
        ]

    def _cached(self, path: Path) -> LoadedDocument | None:
        try:
            if not path.is_file() or path.stat().st_size > self.max_bytes:
                return None  # loading says why
            return self.cache.get(path.name, path.read_bytes(), self.max_bytes)
        except OSError:
            return None

    def _parse(self, path: Path, future: Future[LoadedDocument] | None) -> LoadedDocument:
        try:
            document = future.result() if future is not None else load_path(path, self.max_bytes)
        except BrokenProcessPool:  # a worker died (out of memory, a crash in a parser): try here once
            document = load_path(path, self.max_bytes)
        self.cache.put(path.name, document, self.max_bytes)
        return document
