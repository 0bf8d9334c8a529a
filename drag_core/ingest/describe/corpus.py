"""Term statistics of the indexed documents, against which a document's keywords are weighed.

Each document's term counts (``keywords.terms`` of its page bodies) are kept in a table beside the caches
(``CorpusTable``, in the description cache's file), keyed by the document version, and summed in memory
(``Corpus``) over the documents the index holds. A document is described against ``Corpus.view``: the index's
other documents (an older version of the same file left out) plus itself. The view's ``fingerprint`` is part
of the description cache key, so the same document in the same index gets the same keywords, and ingesting
it again later (once another document changed the corpus) describes it anew. Documents indexed earlier keep
their keywords until they are ingested again; unchanged files are never re-described.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable

from drag_core.ingest.describe.cache import TextCache

__all__ = ["TERMS_VERSION", "Corpus", "CorpusTable", "CorpusView", "DocumentKey", "IndexCorpus"]

TERMS_VERSION = "terms-1"  # bump when ``keywords.terms`` or the page bodies change what a document counts
DocumentKey = tuple[str, str]  # (file name, doc_id)
_MASK = (1 << 128) - 1


def _hash(key: DocumentKey) -> int:
    return int.from_bytes(hashlib.sha256("\x00".join(key).encode()).digest()[:16], "big")


class CorpusTable(TextCache):
    """Each document version's term counts, by file name and content hash (a table of the description cache
    file; in memory for a throw-away index)."""

    table = "document_terms"

    @staticmethod
    def key(document: DocumentKey) -> str:
        return "\x00".join((TERMS_VERSION, *document))

    def get(self, document: DocumentKey) -> Counter[str] | None:
        value = self.read(self.key(document))
        return None if value is None else Counter(json.loads(value))

    def put(self, document: DocumentKey, counts: Counter[str]) -> None:
        self.write(self.key(document), json.dumps(dict(sorted(counts.items()))))


class Corpus:
    """Document frequencies and term totals over a set of documents, updated as documents come and go.

    Attributes:
        n: documents counted.
        df: in how many documents each term occurs.
        totals: how often each term occurs in all of them.
        size: terms counted in all of them.
    """

    def __init__(self) -> None:
        self.n = 0
        self.df: Counter[str] = Counter()
        self.totals: Counter[str] = Counter()
        self.size = 0
        self._documents: dict[DocumentKey, Counter[str]] = {}
        self._hash = 0
        self._lock = threading.Lock()

    def add(self, document: DocumentKey, counts: Counter[str]) -> None:
        """Count a document (once: adding it again changes nothing)."""
        with self._lock:
            if document in self._documents:
                return
            self._documents[document] = counts
            self.n += 1
            self.df.update(counts.keys())
            self.totals.update(counts)
            self.size += sum(counts.values())
            self._hash = (self._hash + _hash(document)) & _MASK

    def remove(self, document: DocumentKey) -> None:
        """Stop counting a document (a document not counted is ignored)."""
        with self._lock:
            counts = self._documents.pop(document, None)
            if counts is None:
                return
            self.n -= 1
            self.df.subtract(counts.keys())
            self.totals.subtract(counts)
            self.size -= sum(counts.values())
            self._hash = (self._hash - _hash(document)) & _MASK

    def view(
        self, document: DocumentKey, counts: Counter[str], leave_out: Iterable[DocumentKey] = ()
    ) -> CorpusView:
        """The corpus a document is described against: the counted documents without ``leave_out`` (older
        versions of its file) and without itself, plus ``counts`` (its own)."""
        with self._lock:
            out = [key for key in {*leave_out, document} if key in self._documents]
            fingerprint = format((self._hash - sum(map(_hash, out)) + _hash(document)) & _MASK, "032x")
            return CorpusView(self, counts, [self._documents[key] for key in out], fingerprint)


class CorpusView:
    """A corpus as one document sees it (``Corpus.view``): read-only, computed on demand.

    Attributes:
        own: the document's own term counts.
        fingerprint: names the set of documents counted (for cache keys).
        n: documents counted (the document itself included).
        others_size: terms counted in the other documents.
    """

    def __init__(
        self, corpus: Corpus, own: Counter[str], left_out: list[Counter[str]], fingerprint: str
    ) -> None:
        self._corpus = corpus
        self.own = own
        self._left_out = left_out
        self.fingerprint = fingerprint
        self.n = corpus.n - len(left_out) + 1
        self.others_size = corpus.size - sum(sum(counts.values()) for counts in left_out)

    def df(self, term: str) -> int:
        """In how many of the documents ``term`` occurs."""
        return (
            self._corpus.df.get(term, 0)
            - sum(term in counts for counts in self._left_out)
            + (term in self.own)
        )

    def others_total(self, term: str) -> int:
        """How often ``term`` occurs in the other documents."""
        return self._corpus.totals.get(term, 0) - sum(counts.get(term, 0) for counts in self._left_out)


class IndexCorpus:
    """The corpus of the documents an index holds: their term counts from ``table``, summed in memory on first
    use over the documents ``indexed`` names, then kept up to date as this process adds and removes documents
    (documents another process writes into a shared collection count from the next start).

    Attributes:
        table: where each document version's term counts are kept.
    """

    def __init__(self, table: CorpusTable, indexed: Callable[[], Iterable[DocumentKey]]) -> None:
        self.table = table
        self._indexed = indexed
        self._corpus: Corpus | None = None
        self._lock = threading.Lock()

    def corpus(self) -> Corpus:
        """The summed counts (read from the table on first use)."""
        with self._lock:
            if self._corpus is None:
                corpus = Corpus()
                for document in self._indexed():
                    counts = self.table.get(document)
                    if counts is not None:
                        corpus.add(document, counts)
                self._corpus = corpus
            return self._corpus

    def view(
        self, document: DocumentKey, counts: Counter[str], leave_out: Iterable[DocumentKey] = ()
    ) -> CorpusView:
        """``Corpus.view`` of the index's corpus."""
        return self.corpus().view(document, counts, leave_out)

    def added(self, document: DocumentKey, counts: Counter[str]) -> None:
        """A document was written to the index."""
        self.table.put(document, counts)
        if self._corpus is not None:
            self._corpus.add(document, counts)

    def removed(self, document: DocumentKey) -> None:
        """A document was removed from the index."""
        if self._corpus is not None:
            self._corpus.remove(document)
