"""Descriptions cached by content hash + summariser identity, so unchanged text costs no LLM call."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path

from drag_core.types import Description

__all__ = ["DescriptionCache", "TextCache"]


class TextCache:
    """A small SQLite table of texts by key. ``Path`` None keeps it in memory for this process only.

    Attributes:
        hits: lookups answered from the cache.
        misses: lookups that were not.
    """

    table = "descriptions"

    def __init__(self, path: Path | None) -> None:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path) if path else ":memory:", check_same_thread=False, timeout=30)
        if path is not None:
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table} (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        self._db.commit()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def read(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute(f"SELECT value FROM {self.table} WHERE key = ?", (key,)).fetchone()
            self.hits += row is not None
            self.misses += row is None
        return None if row is None else row[0]

    def write(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute(f"INSERT OR REPLACE INTO {self.table} (key, value) VALUES (?, ?)", (key, value))
            self._db.commit()


class DescriptionCache(TextCache):
    """Descriptions by summariser identity and content hash."""

    @staticmethod
    def key(identity: str, kind: str, content: str) -> str:
        return hashlib.sha256(f"{identity}\x00{kind}\x00{content}".encode()).hexdigest()

    def get(self, key: str) -> Description | None:
        value = self.read(key)
        return None if value is None else Description(**json.loads(value))

    def put(self, key: str, description: Description) -> None:
        """Store a description; fallbacks are not cached, so a later run can try the LLM again."""
        if not description.fallback_reason:
            self.write(key, json.dumps(asdict(description)))
