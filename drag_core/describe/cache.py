"""Descriptions cached by content hash + summariser identity, so unchanged text costs no LLM call."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import asdict
from pathlib import Path

from drag_core.types import Description


class DescriptionCache:
    """A small SQLite table of descriptions. ``Path`` None keeps it in memory for this process only.

    Attributes:
        hits: lookups answered from the cache.
        misses: lookups that were not.
    """

    def __init__(self, path: Path | None) -> None:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path) if path else ":memory:", check_same_thread=False, timeout=30)
        if path is not None:
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS descriptions (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        self._db.commit()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(identity: str, kind: str, content: str) -> str:
        return hashlib.sha256(f"{identity}\x00{kind}\x00{content}".encode()).hexdigest()

    def get(self, key: str) -> Description | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM descriptions WHERE key = ?", (key,)).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        return Description(**json.loads(row[0]))

    def put(self, key: str, description: Description) -> None:
        """Store a description; fallbacks are not cached, so a later run can try the LLM again."""
        if description.fallback_reason:
            return
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO descriptions (key, value) VALUES (?, ?)",
                (key, json.dumps(asdict(description))),
            )
            self._db.commit()
