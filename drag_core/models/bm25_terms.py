"""The terms the ``Qdrant/bm25`` model weighs in a text — the steps of fastembed's ``Bm25`` (its clean-up and
``SimpleTokenizer``, single punctuation characters dropped, the project's stop words, tokens longer than
``TOKEN_MAX_LENGTH`` dropped, then the Snowball stemmer), written with the standard library so a query can be
turned into terms without importing fastembed. ``tests/test_query_embedder.py`` checks the query vectors built
from it against fastembed's, ``tests/test_bm25.py`` the document scores against ``bm25s``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from drag_core.text import ENGLISH_STOPWORDS

__all__ = ["TOKEN_MAX_LENGTH", "bm25_terms"]

#: Longer tokens are dropped (fastembed's default, passed to it explicitly so both drop the same).
TOKEN_MAX_LENGTH = 40


def bm25_terms(text: str, stem: Callable[[str], str]) -> list[str]:
    """The stemmed terms of ``text`` in order (repeats kept), as the BM25 model sees it."""
    words = re.sub(r"\s+", " ", re.sub(r"[^\w]", " ", re.sub(r"[^\w\s]", " ", text).lower())).split()
    kept = (
        w
        for w in words
        if not _is_punctuation(w) and w not in ENGLISH_STOPWORDS and len(w) <= TOKEN_MAX_LENGTH
    )
    return [term for term in map(stem, kept) if term]


def _is_punctuation(token: str) -> bool:
    """fastembed drops a token that is one punctuation character (``_`` survives its clean-up)."""
    return len(token) == 1 and unicodedata.category(token).startswith("P")
