"""The describe stage: pages and groups through a summariser, cached, in parallel where the summariser allows."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict

from drag_core.ingest.describe.base import Summarizer
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

    def pages(self, texts: Sequence[str], progress: Progress | None = None) -> list[Description]:
        """One description per page text; the whole document is the context of each page."""
        context = "\n\n".join(texts)
        # a summariser that reads the document context (term statistics) is cached per document
        uses_context = getattr(self.summarizer, "uses_context", False)
        scope = hashlib.sha256(context.encode()).hexdigest() if uses_context else ""
        keys = [self._key("page", f"{scope}\x00{text}") for text in texts]
        return self._describe(
            keys, [lambda t=t: self.summarizer.describe_page(t, context) for t in texts], progress
        )

    def groups(self, groups: list[list[Description]], progress: Progress | None = None) -> list[Description]:
        """One description per group of children."""
        keys = [
            self._key("group", json.dumps([asdict(d) for d in group], sort_keys=True)) for group in groups
        ]
        jobs = [lambda g=g: self.summarizer.describe_group(g) for g in groups]
        return self._describe(keys, jobs, progress)

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
