"""``LRU``: a mapping that keeps at most ``limit`` entries and drops the least recently used first — the one
memory of the remembered searches, snippets, page renders and figures. Not thread-safe: a caller shared by
threads holds its own lock around it."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

__all__ = ["LRU"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``limit`` entries; reading or writing an entry makes it the most recently used.

    Attributes:
        limit: entries kept.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"an LRU keeps at least one entry, not {limit}")
        self.limit = limit
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[K]:
        """The keys, least recently used first (iterating is no use)."""
        return iter(self._entries)

    def get(self, key: K) -> V | None:
        """The entry of ``key`` (now the most recently used), or None."""
        if key not in self._entries:
            return None
        self._entries.move_to_end(key)
        return self._entries[key]

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` under ``key`` as the most recently used entry, dropping the least recently used
        beyond ``limit``; returns ``value``."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.limit:
            self._entries.popitem(last=False)
        return value

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The entry of ``key``, made by ``make()`` and kept when there is none."""
        if key in self._entries:
            self._entries.move_to_end(key)
            return self._entries[key]
        return self.put(key, make())
