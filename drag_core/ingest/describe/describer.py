"""The describe stage: pages and groups through a summariser, cached, in parallel where the summariser allows."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict

from drag_core.ingest.describe.base import DocumentContext, Summarizer
from drag_core.ingest.describe.cache import DescriptionCache
from drag_core.types import Description

__all__ = ["Describer", "Progress"]

Progress = Callable[[int, int], None]


class Describer:
    """Describes pages and groups, asking the summariser only for what the cache does not hold.

    Attributes:
        summarizer: the summariser used on cache misses.
        cache: the description cache.
    """

    def __init__(self, summarizer: Summarizer, cache: DescriptionCache) -> None:
        self.summarizer = summarizer
        self.cache = cache

    def pages(self, context: DocumentContext, progress: Progress | None = None) -> list[Description]:
        """One description per page of the document."""
        scope = self._scope(context)
        keys = [self._key("page", f"{scope}\x00{body}") for body in context.pages]
        jobs = [lambda i=i: self.summarizer.describe_page(context, i) for i in range(len(context.pages))]
        return self._describe(keys, jobs, progress)

    def groups(
        self,
        context: DocumentContext,
        groups: Sequence[tuple[list[Description], range]],
        progress: Progress | None = None,
    ) -> list[Description]:
        """One description per group: its children's descriptions and the 0-based pages it covers (its cache
        key holds the sections it covers, which its summary names)."""
        scope = self._scope(context)
        keys = [
            self._key(
                "group",
                self._where(scope, pages)
                + context.part_key(pages)
                + json.dumps([asdict(d) for d in children], sort_keys=True),
            )
            for children, pages in groups
        ]
        jobs = [lambda g=g: self.summarizer.describe_group(g[0], context, g[1]) for g in groups]
        return self._describe(keys, jobs, progress)

    def _scope(self, context: DocumentContext) -> str:
        """What a description depends on besides its own text: the whole context, for a summariser that
        reads it (term statistics), else nothing."""
        return context.fingerprint if getattr(self.summarizer, "uses_context", False) else ""

    @staticmethod
    def _where(scope: str, pages: range) -> str:
        """A group's place in its document, when the summariser reads the context (else nothing)."""
        return f"{scope}\x00{pages.start}-{pages.stop}\x00" if scope else ""

    def _key(self, kind: str, content: str) -> str:
        return self.cache.key(self.summarizer.identity, kind, content)

    def _describe(
        self, keys: list[str], jobs: list[Callable[[], Description]], progress: Progress | None
    ) -> list:
        results: list[Description | None] = [self.cache.get(key) for key in keys]
        missing = [i for i, r in enumerate(results) if r is None]
        done = len(keys) - len(missing)
        if progress:
            progress(done, len(keys))
        workers = max(1, int(getattr(self.summarizer, "max_workers", 1)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for i, description in zip(missing, pool.map(lambda i: jobs[i](), missing)):
                self.cache.put(keys[i], description)
                results[i] = description
                done += 1
                if progress:
                    progress(done, len(keys))
        return results
