"""The one base class of every error the core raises on purpose, so a page or the CLI catches them all with
``except DragError`` and shows ``str(error)``: one line that says what went wrong, free of secrets."""

from __future__ import annotations

__all__ = ["DragError"]


class DragError(Exception):
    """An expected failure (bad input, unusable store, failed LLM call, missing model files)."""
