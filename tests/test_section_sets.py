"""The section data sets (bench/data/sections-dev, sections-train): they load, their ids and pages are sound, the
two sets share no section, and every question's section starts in the middle of its page (the check of
bench/data/check_sections.py, run here)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from page_sets import assert_loads_with_one_main_page, raw_ids

from bench.data.check_sections import FOLDERS, Pdfs, SectionRow, check_folder, check_section, read_sections
from drag_core.evaluation.datasets import load_dataset

DEV, TRAIN = FOLDERS
MANUALS = {"R-intro.pdf", "R-lang.pdf", "R-FAQ.pdf", "developers-reference.pdf", "asymptote.pdf"}

pytestmark = pytest.mark.skipif(
    not all(path.exists() for path in (DEV / "docs").iterdir()),
    reason="the shared manuals (../shared/data/manuals-dev/docs) are not beside the repository",
)


@pytest.mark.parametrize(("folder", "least", "prefix"), [(DEV, 22, "s-"), (TRAIN, 12, "st-")])
def test_the_set_loads_with_every_question_labelled(folder: Path, least: int, prefix: str) -> None:
    assert_loads_with_one_main_page(folder, MANUALS, prefix, least)
    per_manual = Counter(query.doc for query in load_dataset(folder).queries)
    assert max(per_manual.values()) <= 0.35 * sum(per_manual.values())


def test_ids_differ_between_the_sets() -> None:
    assert not set(raw_ids(DEV)) & set(raw_ids(TRAIN))


@pytest.mark.parametrize("folder", [DEV, TRAIN])
def test_every_labelled_page_exists(folder: Path) -> None:
    dataset = load_dataset(folder)
    pdfs = Pdfs(folder / "docs")
    for units in dataset.qrels.values():
        for file, page in units:
            assert 1 <= page <= pdfs.page_count(file), (file, page)


def test_no_section_or_start_page_is_in_both_sets() -> None:
    dev, train = read_sections(DEV), read_sections(TRAIN)
    assert not {(row.file, row.number) for row in dev} & {(row.file, row.number) for row in train}
    assert not {(row.file, row.page) for row in dev} & {(row.file, row.page) for row in train}
    dev_pages = {unit for units in load_dataset(DEV).qrels.values() for unit in units}
    train_pages = {unit for units in load_dataset(TRAIN).qrels.values() for unit in units}
    assert not dev_pages & train_pages


@pytest.mark.parametrize("folder", [DEV, TRAIN])
def test_every_section_starts_in_the_middle_of_its_page(folder: Path) -> None:
    problems = {check.row.query_id: check.problems for check in check_folder(folder) if check.problems}
    assert not problems


def test_the_check_rejects_a_section_at_the_top_of_its_page() -> None:
    # R-intro 2.1 starts a few lines below its chapter's title: found, but not in the middle of the page.
    row = SectionRow("x", "R-intro.pdf", 14, "2.1", "Vectors and assignment", 46, 0.02)
    check = check_section(row, {("R-intro.pdf", 14): 2}, Pdfs(DEV / "docs"))
    assert check.offset == 46
    assert check.problems == ["heading at 46/2013: not in the middle of the page"]
