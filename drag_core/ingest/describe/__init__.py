"""Describing pages and groups: the ``Summarizer`` interface and its implementations."""

from drag_core.ingest.describe.base import Summarizer, merge_keywords

__all__ = ["Summarizer", "merge_keywords"]
