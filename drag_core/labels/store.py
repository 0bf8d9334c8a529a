"""The pages a user marked relevant or not for their own questions, kept as a page data set in the store folder,
so strategies can be judged on the user's own documents (``drag eval --labels``, the Evaluate page's "my
labels").

The folder ``<store folder>/labels`` has the layout of the page data sets of ``shared/data`` (``datasets``):
``queries.jsonl`` (``_id``, ``text``, and ``versions``: for each file labelled for the question, the document
version — ``doc_id`` — the labels were made on), ``qrels.tsv`` (``query-id, file, page, score``: 1 marked
relevant, 0 marked not relevant — read as unlabelled by the evaluation), and ``docs/`` (a hard link to — or,
across file systems, a copy of — the original of every labelled file, so the folder stays a complete data set
after a document is removed from the index).

A label is *stale* when its file's indexed version is not the one it was made on (the document was removed, or
ingested again with other content): stale labels are kept and shown, and left out of an evaluation on the
index. Labelling a page of another version of a file starts that question's labels of that file again.

Every change is one read-modify-write under an exclusive ``flock`` of ``.lock`` (two browser sessions or two
processes labelling at once lose nothing); each file is written to a temporary file and renamed into place
(a crash never leaves a half file); ``queries.jsonl`` is written before ``qrels.tsv`` and keeps every question
the previous labels name, so the data set is whole between the two writes.
"""

from __future__ import annotations

import csv
import fcntl
import hashlib
import io
import json
import os
import tempfile
import threading
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from drag_core.evaluation.datasets import PAGE_KIND, Dataset, Query
from drag_core.ingest.loading import document_id

__all__ = ["LABELS_NAME", "Label", "Labels", "query_id"]

LABELS_NAME = "my labels"
QRELS_HEADER = ("query-id", "file", "page", "score")
_process_lock = threading.Lock()  # flock is per open file; this keeps one process's threads in line too


def query_id(text: str) -> str:
    """A question's id: a hash of its words (the same question typed again is the same question)."""
    return "q-" + hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Label:
    """One page marked for one question.

    Attributes:
        query_id, query: the question.
        file_name, page: the page (1-based).
        relevant: marked relevant (False: marked not relevant).
        doc_id: the document version it was marked on.
    """

    query_id: str
    query: str
    file_name: str
    page: int
    relevant: bool
    doc_id: str

    def stale(self, indexed: Mapping[str, str]) -> bool:
        """Whether the file's indexed version (``indexed``: file name → doc_id) is not the one labelled."""
        return indexed.get(self.file_name) != self.doc_id


class Labels:
    """The labels data set of one store folder.

    Attributes:
        folder: ``<store folder>/labels``.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    # -- reading ---------------------------------------------------------------------------------------
    def all(self) -> list[Label]:
        """Every label, in the order written."""
        queries = self._queries()
        found = []
        for qid, file_name, page, score in self._qrels():
            if qid in queries:
                text, versions = queries[qid]
                found.append(Label(qid, text, file_name, page, score > 0, versions.get(file_name, "")))
        return found

    def of_query(self, query: str) -> dict[tuple[str, int], Label]:
        """The labels of one question by (file, page)."""
        wanted = query_id(query)
        return {(label.file_name, label.page): label for label in self.all() if label.query_id == wanted}

    def dataset(self, indexed: Mapping[str, str]) -> Dataset:
        """The questions with a page marked relevant that is not stale (``indexed``: file name → doc_id of the
        index searched), as an evaluation data set over that index (no files to ingest)."""
        qrels: dict[str, dict[tuple[str, int], int]] = {}
        texts: dict[str, str] = {}
        for label in self.all():
            if label.relevant and not label.stale(indexed):
                qrels.setdefault(label.query_id, {})[(label.file_name, label.page)] = 1
                texts[label.query_id] = label.query
        queries = [Query(qid, texts[qid]) for qid in qrels]
        return Dataset(LABELS_NAME, PAGE_KIND, self.folder, queries, qrels)

    # -- writing ---------------------------------------------------------------------------------------
    def mark(
        self,
        query: str,
        file_name: str,
        page: int,
        relevant: bool | None,
        doc_id: str,
        original: Path | None = None,
    ) -> None:
        """Mark ``page`` of ``file_name`` (version ``doc_id``) relevant or not for ``query``; None clears the
        mark. ``original``: the file's bytes on disk, linked into ``docs/``."""
        if not query.strip():
            raise ValueError("a label needs a question")
        qid = query_id(query)
        with self._locked():
            queries = self._queries()
            before = self._qrels()
            rows = list(before)
            text, versions = queries.get(qid, (" ".join(query.split()), {}))
            if versions.get(file_name, doc_id) != doc_id:  # another version: its labels start again
                rows = [r for r in rows if (r[0], r[1]) != (qid, file_name)]
            rows = [r for r in rows if r[:3] != (qid, file_name, page)]
            if relevant is not None:
                rows.append((qid, file_name, page, int(relevant)))
                versions = {**versions, file_name: doc_id}
            named = {r[0] for r in rows} | {r[0] for r in before}
            queries = {q: v for q, v in queries.items() if q in named}
            queries[qid] = (text, versions)
            self._write(
                "queries.jsonl",
                "".join(
                    json.dumps({"_id": q, "text": t, "versions": v}, ensure_ascii=False) + "\n"
                    for q, (t, v) in queries.items()
                ),
            )
            buffer = io.StringIO()
            writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
            writer.writerows([QRELS_HEADER, *rows])
            self._write("qrels.tsv", buffer.getvalue())
            self._docs().mkdir(exist_ok=True)  # a page data set has a docs/ folder, even an empty one
            if relevant is not None and original is not None:
                self._link(file_name, original)

    def export(self) -> bytes:
        """The data set as a zip (``queries.jsonl``, ``qrels.tsv``, ``docs/``) that ``drag eval`` reads
        anywhere: the labels of the version of each file that ``docs/`` holds (a file not kept: its labels
        without the file)."""
        versions = {p.name: document_id(p.read_bytes()) for p in self._docs().glob("*") if p.is_file()}
        labels = [
            label for label in self.all() if label.file_name not in versions or not label.stale(versions)
        ]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            named = dict.fromkeys(label.query_id for label in labels)
            texts = {label.query_id: label.query for label in labels}
            archive.writestr(
                "queries.jsonl",
                "".join(json.dumps({"_id": q, "text": texts[q]}, ensure_ascii=False) + "\n" for q in named),
            )
            rows = ["\t".join(QRELS_HEADER)] + [
                f"{label.query_id}\t{label.file_name}\t{label.page}\t{int(label.relevant)}"
                for label in labels
            ]
            archive.writestr("qrels.tsv", "\n".join(rows) + "\n")
            for name in sorted({label.file_name for label in labels} & set(versions)):
                archive.write(self._docs() / name, f"docs/{name}")
        return out.getvalue()

    # -- files -----------------------------------------------------------------------------------------
    def _docs(self) -> Path:
        return self.folder / "docs"

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.folder.mkdir(parents=True, exist_ok=True)
        with _process_lock, (self.folder / ".lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _queries(self) -> dict[str, tuple[str, dict[str, str]]]:
        path = self.folder / "queries.jsonl"
        if not path.is_file():
            return {}
        found = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                found[str(row["_id"])] = (str(row["text"]), dict(row.get("versions", {})))
        return found

    def _qrels(self) -> list[tuple[str, str, int, int]]:
        path = self.folder / "qrels.tsv"
        if not path.is_file():
            return []
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle, delimiter="\t"))[1:]
        return [(r[0], r[1], int(r[2]), int(r[3])) for r in rows if len(r) >= 4]

    def _write(self, name: str, text: str) -> None:
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=f".{name}.")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.folder / name)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def _link(self, file_name: str, original: Path) -> None:
        """``docs/<file_name>`` becomes the original (a hard link, else a copy), replaced atomically."""
        docs = self._docs()
        target = docs / file_name
        if target.is_file() and os.path.samefile(target, original):
            return
        temporary = docs / f".{file_name}.incoming"
        temporary.unlink(missing_ok=True)
        try:
            os.link(original, temporary)
        except OSError:
            temporary.write_bytes(original.read_bytes())
        os.replace(temporary, target)
