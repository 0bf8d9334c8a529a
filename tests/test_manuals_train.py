"""The manual train set (bench/data/manuals-train): it loads from its symlinked PDFs, every question has one main
page in its own manual, every labelled page exists and has text, and no page is shared with manuals-dev's
manuals (the set is over other files)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pypdf
import pytest

from drag_core.evaluation.datasets import PAGE_KIND, load_dataset

FOLDER = Path(__file__).resolve().parent.parent / "bench" / "data" / "manuals-train"
MANUALS = {"R-data.pdf", "debian-reference.en.pdf", "live-manual.en.pdf"}
MANUALS_DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "manuals-dev"

pytestmark = pytest.mark.skipif(
    not all(path.exists() for path in (FOLDER / "docs").iterdir()),
    reason="the shared PDFs (../shared/data/pdfs) are not beside the repository",
)


def test_the_set_loads_with_one_main_page_per_question() -> None:
    dataset = load_dataset(FOLDER)
    assert dataset.kind == PAGE_KIND
    assert {path.name for path in dataset.files} == MANUALS
    assert all(path.is_symlink() and path.resolve().is_file() for path in dataset.files)
    lines = (FOLDER / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line)["_id"] for line in lines if line.strip()]
    assert len(ids) == len(set(ids)) == len(dataset.queries) >= 40
    assert all(query_id.startswith("mt-") for query_id in ids)
    for query in dataset.queries:
        assert {file for file, _ in dataset.qrels[query.id]} == {query.doc}
        assert sorted(dataset.qrels[query.id].values()).count(2) == 1
    assert set(Counter(query.doc for query in dataset.queries)) == MANUALS


def test_every_labelled_page_exists_and_has_text() -> None:
    dataset = load_dataset(FOLDER)
    readers = {name: pypdf.PdfReader(FOLDER / "docs" / name) for name in MANUALS}
    for units in dataset.qrels.values():
        for file, page in units:
            assert 1 <= page <= len(readers[file].pages), (file, page)
            assert (readers[file].pages[page - 1].extract_text() or "").strip(), (file, page)


@pytest.mark.skipif(not MANUALS_DEV.is_dir(), reason="manuals-dev is not beside the repository")
def test_no_manual_of_manuals_dev_is_used() -> None:
    assert not MANUALS & {path.name for path in load_dataset(MANUALS_DEV).files}
