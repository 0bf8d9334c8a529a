"""The evaluation's own index: one folder per data set and vector policy, rebuilt only when something changed.

Layout of an index folder: ``qdrant/`` (the embedded store), ``description-cache.sqlite`` (with the page
cache beside it; one per data set for the default folders), ``manifest.json`` — what the index was built
from (data set fingerprint, vector policy, summariser, models) — and ``indexed.jsonl``, one line per document
indexed whole (its source, pages and seconds), written as each one is done. When the manifest matches, the
index is reused without reading a single document; until then the ledger says what an interrupted build
already holds and how fast this machine built it (``remaining_work``, ``seconds_per_page``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from drag_core.config import DEFAULT_BM25, IN_MEMORY, Bm25Params, Settings
from drag_core.engine import Engine
from drag_core.evaluation.datasets import PASSAGE_KIND, Dataset, passages
from drag_core.ingest.describe.base import Summarizer
from drag_core.ingest.loading import LoadedDocument, expected_pages
from drag_core.ingest.parsing import PageCache, Parser
from drag_core.ingest.report import IngestReport, ProgressCallback, ProgressEvent
from drag_core.ingest.tree import TREE_VERSION
from drag_core.ingest.vector_text import VectorPolicy, titled
from drag_core.layout import StoreLayout, page_cache_beside
from drag_core.models.embeddings import Embedder

__all__ = [
    "LEDGER",
    "MANIFEST",
    "PASSAGE_PROGRESS_EVERY",
    "corpus_avg_len",
    "default_folder",
    "documents",
    "ensure_ingested",
    "identity",
    "index_identity",
    "ingest_dataset",
    "ledger_entries",
    "open_index",
    "passage_count",
    "remaining_work",
    "seconds_per_page",
    "shared_cache",
    "source_key",
]

MANIFEST = "manifest.json"
LEDGER = "indexed.jsonl"
PASSAGE_PROGRESS_EVERY = 250


def default_folder(dataset: Dataset, policy: VectorPolicy, settings: Settings) -> Path:
    """``<eval_dir>/<data set>/<policy>[-<BM25 constants>][-pdf-<engine>]``: a policy, BM25 or PDF engine
    change builds a new index next to the old one (the PDF engine counts for data sets of files only)."""
    bm25 = settings.bm25
    name = policy.identity + ("" if bm25 == DEFAULT_BM25 else f",bm25,{bm25.identity}")
    name += "" if dataset.kind == PASSAGE_KIND else f",pdf,{settings.pdf_engine}"
    return settings.eval_dir / dataset.name / re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")


def shared_cache(dataset: Dataset, settings: Settings) -> Path:
    """The description cache shared by a data set's default index folders (the page cache sits beside it)."""
    return StoreLayout(settings.eval_dir / dataset.name).description_cache


def documents(dataset: Dataset, settings: Settings) -> Iterator[LoadedDocument]:
    """Every document of the data set split into pages (files through the shared page cache; files that
    cannot be read are skipped)."""
    if dataset.kind == PASSAGE_KIND:
        yield from passages(dataset)
        return
    parser = Parser(
        settings.max_file_bytes,
        PageCache(page_cache_beside(shared_cache(dataset, settings))),
        pdf_engine=settings.pdf_engine,
    )
    for load in parser.parse_paths(dataset.files):
        try:
            yield load()
        except Exception:  # reported when the data set is ingested
            continue


def corpus_avg_len(dataset: Dataset, embedder: Embedder, settings: Settings) -> float:
    """The mean BM25 length of the data set's pages as they are indexed: the ``avg_len`` BM25 defines."""
    lengths = [
        len(tokens)
        for document in documents(dataset, settings)
        for tokens in embedder.bm25_tokens([titled(p.file_name, p.body) for p in document.pages])
    ]
    return sum(lengths) / len(lengths) if lengths else Bm25Params.avg_len


def identity(dataset: Dataset, engine: Engine) -> dict[str, Any]:
    """What an index is built from; equal identities mean the index can be reused."""
    pdf = {} if dataset.kind == PASSAGE_KIND else {"pdf_engine": engine.parser.pdf_engine}
    return {
        "dataset": dataset.name,
        "fingerprint": dataset.fingerprint(),
        "vector_policy": engine.policy.identity,
        "summarizer": getattr(engine.summarizer, "identity", type(engine.summarizer).__name__),
        "tree_version": TREE_VERSION,
        "dense_model": engine.embedder.dense_model,
        "sparse_model": engine.embedder.sparse_identity,
    } | pdf


def open_index(
    dataset: Dataset,
    settings: Settings,
    folder: Path | str | None = None,
    policy: VectorPolicy | None = None,
    embedder: Embedder | None = None,
    summarizer: Summarizer | None = None,
    progress: ProgressCallback | None = None,
) -> tuple[Engine, dict[str, Any]]:
    """An engine over the data set's index (``IN_MEMORY`` for a throw-away one), ingesting what is missing.

    ``settings`` are the caller's (models, BM25 constants, PDF engine, ``eval_dir``); the index is always an
    embedded one of its own, never the caller's store or server. The default folders of one data set share
    one page and description cache (``<eval_dir>/<data set>/``), so an index for another vector policy
    neither parses nor describes a page again. Returns the engine and the index identity with ``reused``
    (nothing ingested) and ``failed`` (files that could not be ingested). An ``embedder`` brings its own
    BM25 constants.
    """
    policy = policy or VectorPolicy()
    if embedder is not None:
        settings = replace(settings, bm25=embedder.bm25)
    folder = str(folder or default_folder(dataset, policy, settings))
    memory = folder == IN_MEMORY
    store = folder if memory else str(Path(folder) / "qdrant")
    if not memory:
        Path(folder).mkdir(parents=True, exist_ok=True)
    shared = folder == str(default_folder(dataset, policy, settings))
    layout = StoreLayout.of(store)
    cache = shared_cache(dataset, settings) if shared else layout.description_cache if layout else None
    own = replace(settings, store=store, qdrant_url=None, cache_path=cache)
    engine = Engine(own, summarizer=summarizer, embedder=embedder, policy=policy)
    return engine, ensure_ingested(engine, dataset, None if memory else Path(folder) / MANIFEST, progress)


def ensure_ingested(
    engine: Engine, dataset: Dataset, manifest: Path | None, progress: ProgressCallback | None = None
) -> dict[str, Any]:
    """Make the index hold exactly the data set's documents; skip everything when the manifest matches."""
    wanted = identity(dataset, engine)
    if manifest is not None and manifest.is_file() and json.loads(manifest.read_text()) == wanted:
        return wanted | {"reused": True, "failed": []}
    ledger = None if manifest is None else manifest.with_name(LEDGER)
    reports = ingest_dataset(engine, dataset, progress, ledger)
    names = {r.file_name for r in reports if r.ok}
    for document in engine.documents():
        if document.file_name not in names:
            engine.remove(document.file_name)
    failed = [r.line() for r in reports if not r.ok]
    if manifest is not None and not failed:
        manifest.write_text(json.dumps(wanted, indent=2))
    return wanted | {"reused": False, "failed": failed}


def source_key(path: Path) -> str:
    """What identifies a document file in the ledger: its name, size and modification time (as the data set's
    fingerprint reads them) and the tree version it was built with (an older tree is built again). A passage
    is keyed by the corpus fingerprint and its name."""
    stat = path.stat()
    return f"{path.name}/{stat.st_size}/{stat.st_mtime_ns}/tree-{TREE_VERSION}"


def _passage_key(fingerprint: str, name: str) -> str:
    return f"{fingerprint}/tree-{TREE_VERSION}/{name}"


def ingest_dataset(
    engine: Engine, dataset: Dataset, progress: ProgressCallback | None = None, ledger: Path | None = None
) -> list[IngestReport]:
    """Ingest every document of the data set (unchanged ones are skipped by the engine), adding a line to
    ``ledger`` for each document that is in the index when its ingest ends."""
    if dataset.kind != PASSAGE_KIND:
        keys = [source_key(path) for path in dataset.files]  # read before an ingest could change them
        ingested = engine.iter_ingest_paths(dataset.files, progress)  # one report as each file ends
        return [_recorded(ledger, key, report) for key, report in zip(keys, ingested)]
    total, fingerprint = passage_count(dataset), dataset.fingerprint()
    reports = []
    for document in passages(dataset):
        report = engine.ingest_document(document)
        reports.append(_recorded(ledger, _passage_key(fingerprint, document.file_name), report))
        if progress and (len(reports) % PASSAGE_PROGRESS_EVERY == 0 or len(reports) == total):
            progress(ProgressEvent(dataset.name, "passages", len(reports), total))
    return reports


def _recorded(ledger: Path | None, key: str, report: IngestReport) -> IngestReport:
    """``report``, with a ledger line written first when its document is in the index."""
    if ledger is not None and report.ok:
        entry = {
            "key": key,
            "file": report.file_name,
            "pages": report.pages,
            "seconds": round(report.seconds, 3),
        }
        with ledger.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry | {"status": str(report.status)}) + "\n")
    return report


def ledger_entries(folder: Path) -> list[dict[str, Any]]:
    """The ledger of an index folder (empty when there is none; a line cut short by a crash is skipped)."""
    path = folder / LEDGER
    if not path.is_file():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue
    return entries


def passage_count(dataset: Dataset) -> int:
    """Passages of a passage data set (lines of its corpus)."""
    import gzip

    with gzip.open(dataset.root / "corpus.jsonl.gz", "rt") as lines:
        return sum(1 for _ in lines)


def remaining_work(dataset: Dataset, folder: Path) -> list[tuple[str, int]]:
    """What building the index in ``folder`` still has to ingest, in order: (file, about how many pages) of
    every document its ledger does not hold — for a passage set, one entry (the data set, passages left)."""
    done = {entry.get("key") for entry in ledger_entries(folder)}
    if dataset.kind == PASSAGE_KIND:
        prefix = _passage_key(dataset.fingerprint(), "")
        left = passage_count(dataset) - sum(1 for key in done if str(key).startswith(prefix))
        return [(dataset.name, left)] if left > 0 else []
    return [
        (path.name, expected_pages(path.name, path.read_bytes()))
        for path in dataset.files
        if source_key(path) not in done
    ]


def seconds_per_page(folders: Iterable[Path]) -> float | None:
    """Seconds an ingest took per page (or passage) in the ledgers of ``folders`` — this machine's pace —
    counting only documents that were ingested (not found unchanged); None without any."""
    seconds = pages = 0.0
    for folder in folders:
        for entry in ledger_entries(folder):
            if entry.get("status") in ("indexed", "replaced") and entry.get("pages"):
                seconds += float(entry.get("seconds", 0.0))
                pages += float(entry["pages"])
    return seconds / pages if pages and seconds else None


def index_identity(engine: Engine) -> dict[str, Any]:
    """What a report says about an index it did not build: where it is and how its vectors were made."""
    return {
        "index": engine.engine_label,
        "vector_policy": engine.policy.identity,
        "summarizer": getattr(engine.summarizer, "identity", type(engine.summarizer).__name__),
        "reused": True,
        "failed": [],
    }
