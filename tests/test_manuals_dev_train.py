"""The train set over manuals-dev's own five manuals (bench/data/manuals-dev-train): it loads from its symlinked
PDFs, every question has one main page in its own manual, every labelled page has text and holds the question's
answer sentence, and no labelled page is a relevant page of manuals-dev, sections-dev or sections-train (the sets
it must not overlap: two reporting sets and the other train set over the same PDFs)."""

from __future__ import annotations

from collections import Counter

import pytest
from page_sets import (
    BENCH_DATA,
    MANUALS_DEV,
    assert_answers_on_labelled_pages,
    assert_labelled_pages_have_text,
    assert_loads_with_one_main_page,
    labelled_pages,
    links_resolve,
    raw_ids,
)

from drag_core.evaluation.datasets import load_dataset

FOLDER = BENCH_DATA / "manuals-dev-train"
MANUALS = {"R-intro.pdf", "R-lang.pdf", "R-FAQ.pdf", "developers-reference.pdf", "asymptote.pdf"}
SECTION_SETS = [BENCH_DATA / "sections-dev", BENCH_DATA / "sections-train"]

pytestmark = pytest.mark.skipif(
    not links_resolve(FOLDER),
    reason="the shared manuals (../shared/data/manuals-dev/docs) are not beside the repository",
)


def test_the_set_loads_with_one_main_page_per_question() -> None:
    assert_loads_with_one_main_page(FOLDER, MANUALS, "mdt-", least=45)
    per_manual = Counter(query.doc for query in load_dataset(FOLDER).queries)
    assert max(per_manual.values()) <= 0.25 * sum(per_manual.values())


def test_every_labelled_page_has_text_and_an_answer_is_on_one() -> None:
    assert_labelled_pages_have_text(FOLDER)
    assert_answers_on_labelled_pages(FOLDER)


@pytest.mark.parametrize("other", SECTION_SETS, ids=lambda path: path.name)
def test_no_labelled_page_or_id_is_shared_with_a_section_set(other) -> None:
    assert not labelled_pages(FOLDER) & labelled_pages(other)
    assert not set(raw_ids(FOLDER)) & set(raw_ids(other))


@pytest.mark.skipif(not MANUALS_DEV.is_dir(), reason="manuals-dev is not beside the repository")
def test_no_labelled_page_is_shared_with_manuals_dev() -> None:
    assert {path.name for path in load_dataset(MANUALS_DEV).files} == MANUALS
    assert not labelled_pages(FOLDER) & labelled_pages(MANUALS_DEV)
