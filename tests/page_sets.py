"""Structural checks shared by the tests of the project's hand-made page data sets (bench/data): the set loads
from its symlinked PDFs, every question has one main page in its own manual, every labelled page exists and has
text, and which pages a set labels."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pypdf

from drag_core.evaluation.datasets import PAGE_KIND, load_dataset

BENCH_DATA = Path(__file__).resolve().parent.parent / "bench" / "data"
MANUALS_DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "manuals-dev"


def links_resolve(folder: Path) -> bool:
    """Whether every PDF link of the set's docs/ resolves (the shared data sits beside the repository)."""
    return all(path.exists() for path in (folder / "docs").iterdir())


def raw_queries(folder: Path) -> list[dict[str, str]]:
    """The lines of queries.jsonl as written (with ``answer``, which the loader does not keep)."""
    lines = (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def raw_ids(folder: Path) -> list[str]:
    """The question ids as written in queries.jsonl, duplicates kept."""
    return [query["_id"] for query in raw_queries(folder)]


def assert_loads_with_one_main_page(folder: Path, manuals: set[str], prefix: str, least: int) -> None:
    """The set loads over exactly ``manuals`` (symlinks that resolve), has at least ``least`` questions with
    unique ids starting with ``prefix``, and every question's pages lie in its own manual with one scored 2."""
    dataset = load_dataset(folder)
    assert dataset.kind == PAGE_KIND
    assert {path.name for path in dataset.files} == manuals
    assert all(path.is_symlink() and path.resolve().is_file() for path in dataset.files)
    ids = raw_ids(folder)
    assert len(ids) == len(set(ids)) == len(dataset.queries) >= least
    assert all(query_id.startswith(prefix) for query_id in ids)
    for query in dataset.queries:
        assert {file for file, _ in dataset.qrels[query.id]} == {query.doc}
        assert sorted(dataset.qrels[query.id].values()).count(2) == 1
    assert set(Counter(query.doc for query in dataset.queries)) == manuals


def page_texts(folder: Path) -> dict[tuple[str, int], str]:
    """pypdf's text of every labelled page of the set, keyed by (file, 1-based page); a page out of range fails."""
    dataset = load_dataset(folder)
    readers = {path.name: pypdf.PdfReader(path) for path in dataset.files}
    texts = {}
    for units in dataset.qrels.values():
        for file, page in units:
            assert 1 <= page <= len(readers[file].pages), (file, page)
            texts[(file, page)] = readers[file].pages[page - 1].extract_text() or ""
    return texts


def assert_labelled_pages_have_text(folder: Path) -> None:
    """Every labelled page exists in its PDF and has extractable text."""
    for unit, text in page_texts(folder).items():
        assert text.strip(), unit


def assert_answers_on_labelled_pages(folder: Path) -> None:
    """Every question's ``answer`` is found, white space ignored, on one of its labelled pages (pypdf text)."""
    qrels = load_dataset(folder).qrels
    texts = {unit: re.sub(r"\s+", "", text) for unit, text in page_texts(folder).items()}
    for query in raw_queries(folder):
        answer = re.sub(r"\s+", "", query["answer"])
        assert any(answer in texts[unit] for unit in qrels[query["_id"]]), query["_id"]


def labelled_pages(folder: Path) -> set[tuple[str, int]]:
    """Every (file, page) some question of the set labels as relevant."""
    return {unit for units in load_dataset(folder).qrels.values() for unit in units}
