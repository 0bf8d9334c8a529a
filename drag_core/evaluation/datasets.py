"""Evaluation data sets in the two formats of ``shared/data/README.md``.

* Page data set: ``docs/`` (files to ingest), ``queries.jsonl`` (``_id``, ``text``; ``answer`` is never read,
  ``doc`` only for the ``doc_hit`` diagnostic — no retriever sees it), ``qrels.tsv`` (``query-id, file, page, score``, 1-based pages). The unit of relevance is a page.
* Passage data set (BEIR): ``corpus.jsonl.gz`` (``_id``, ``title``, ``text``), ``queries.jsonl``,
  ``qrels/<split>.tsv`` (``query-id, corpus-id, score``). Each passage becomes a one-page document named
  ``<_id>.txt`` whose text is title + abstract; the unit of relevance is the passage.

A *unit* is a ``(file, page)`` pair; passage data sets use page 0 for the whole passage, so a returned node
of a passage document always counts as that passage.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from drag_core.evaluation.metrics import Unit
from drag_core.ingest.loading import LoadedDocument, document_id
from drag_core.types import Page

__all__ = [
    "PAGE_KIND",
    "PASSAGE_KIND",
    "PASSAGE_PAGE",
    "Dataset",
    "Query",
    "find_datasets",
    "load_dataset",
    "passage_file",
    "passages",
]

PASSAGE_PAGE = 0
PAGE_KIND, PASSAGE_KIND = "pages", "passages"


@dataclass(frozen=True)
class Query:
    """One evaluation question.

    Attributes:
        id: the query id of the qrels.
        text: the question the retriever sees.
        doc: the file the question is about (diagnostics only, never given to a retriever; None if absent).
    """

    id: str
    text: str
    doc: str | None = None


@dataclass(frozen=True)
class Dataset:
    """Queries with graded relevance over units, and where the documents come from.

    Attributes:
        name: the data set's folder name.
        kind: ``"pages"`` or ``"passages"``.
        root: the data set folder.
        queries: queries that have at least one relevant unit, in file order.
        qrels: query id → {unit: grade > 0}.
        files: documents to ingest (page data sets only).
        split: qrels split read (passage data sets only).
    """

    name: str
    kind: str
    root: Path
    queries: list[Query]
    qrels: dict[str, dict[Unit, int]]
    files: tuple[Path, ...] = ()
    split: str = ""

    def units(self, file_name: str, page_start: int, page_end: int) -> list[Unit]:
        """The units a node covering ``page_start..page_end`` of ``file_name`` counts as, in page order."""
        if self.kind == PASSAGE_KIND:
            return [(file_name, PASSAGE_PAGE)]
        return [(file_name, page) for page in range(page_start, page_end + 1)]

    def own_files(self, query: Query) -> set[str]:
        """The question's own documents: its ``doc`` field, else the files holding a relevant unit."""
        return {query.doc} if query.doc else {file for file, _ in self.qrels.get(query.id, {})}

    def fingerprint(self) -> str:
        """A hash of what gets ingested: file names, sizes and modification times (or the corpus file's)."""
        sources = self.files if self.kind == PAGE_KIND else (self.root / "corpus.jsonl.gz",)
        digest = hashlib.sha256(self.kind.encode())
        for path in sorted(sources):
            stat = path.stat()
            digest.update(f"{path.name}\x00{stat.st_size}\x00{stat.st_mtime_ns}\n".encode())
        return digest.hexdigest()[:24]

    def subset(self, limit: int | None) -> Dataset:
        """The first ``limit`` queries (all when None); documents stay the same."""
        if limit is None:
            return self
        queries = self.queries[:limit]
        kept = {q.id for q in queries}
        return Dataset(
            self.name,
            self.kind,
            self.root,
            queries,
            {q: r for q, r in self.qrels.items() if q in kept},
            self.files,
            self.split,
        )


def load_dataset(root: Path | str, split: str = "test") -> Dataset:
    """Read a page data set (``qrels.tsv``) or a BEIR passage data set (``qrels/<split>.tsv``)."""
    root = Path(root)
    if (root / "qrels.tsv").is_file():
        qrels = _read_qrels(root / "qrels.tsv", lambda row: (row[1], int(row[2])), 4)
        files = tuple(sorted(p for p in (root / "docs").iterdir() if p.is_file()))
        return Dataset(root.name, PAGE_KIND, root, _read_queries(root, qrels), qrels, files=files)
    qrels_file = root / "qrels" / f"{split}.tsv"
    if (root / "corpus.jsonl.gz").is_file() and qrels_file.is_file():
        qrels = _read_qrels(qrels_file, lambda row: (passage_file(row[1]), PASSAGE_PAGE), 3)
        return Dataset(root.name, PASSAGE_KIND, root, _read_queries(root, qrels), qrels, split=split)
    raise ValueError(
        f"{root} is neither a page data set (docs/, queries.jsonl, qrels.tsv) nor a BEIR data set "
        f"(corpus.jsonl.gz, queries.jsonl, qrels/{split}.tsv)"
    )


def find_datasets(folder: Path | str) -> list[Path]:
    """Sub-folders of ``folder`` laid out as a page or a passage data set, by name."""
    found = []
    for path in sorted(Path(folder).iterdir()) if Path(folder).is_dir() else []:
        page = (path / "qrels.tsv").is_file() and (path / "docs").is_dir()
        if page or (path / "corpus.jsonl.gz").is_file():
            found.append(path)
    return found


def passage_file(corpus_id: str) -> str:
    """The document name a BEIR passage is ingested under."""
    return f"{corpus_id}.txt"


def passages(dataset: Dataset) -> Iterator[LoadedDocument]:
    """Each passage of a BEIR corpus as a one-page document (title and text on one page)."""
    with gzip.open(dataset.root / "corpus.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            text = "\n".join(part for part in (row.get("title", ""), row.get("text", "")) if part.strip())
            name = passage_file(str(row["_id"]))
            yield LoadedDocument(name, document_id(text.encode()), [Page(name, 1, text)])


def _read_qrels(path: Path, unit_of: Callable[[list[str]], Unit], columns: int) -> dict[str, dict[Unit, int]]:
    qrels: dict[str, dict[Unit, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t")
        next(rows, None)  # header
        for row in rows:
            if len(row) < columns or int(row[-1]) <= 0:
                continue
            qrels.setdefault(row[0], {})[unit_of(row)] = int(row[-1])
    return qrels


def _read_queries(root: Path, qrels: dict[str, dict[Unit, int]]) -> list[Query]:
    queries = []
    with (root / "queries.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                row = json.loads(line)
                if str(row["_id"]) in qrels:
                    doc = row.get("doc")
                    queries.append(Query(str(row["_id"]), str(row["text"]), str(doc) if doc else None))
    return queries
