"""The manual train set (bench/data/manuals-train): it loads from its symlinked PDFs, every question has one main
page in its own manual, every labelled page exists and has text, and no page is shared with manuals-dev's
manuals (the set is over other files)."""

from __future__ import annotations

import pytest
from page_sets import (
    BENCH_DATA,
    MANUALS_DEV,
    assert_labelled_pages_have_text,
    assert_loads_with_one_main_page,
    links_resolve,
)

from drag_core.evaluation.datasets import load_dataset

FOLDER = BENCH_DATA / "manuals-train"
MANUALS = {"R-data.pdf", "debian-reference.en.pdf", "live-manual.en.pdf"}

pytestmark = pytest.mark.skipif(
    not links_resolve(FOLDER), reason="the shared PDFs (../shared/data/pdfs) are not beside the repository"
)


def test_the_set_loads_with_one_main_page_per_question() -> None:
    assert_loads_with_one_main_page(FOLDER, MANUALS, "mt-", least=40)


def test_every_labelled_page_exists_and_has_text() -> None:
    assert_labelled_pages_have_text(FOLDER)


@pytest.mark.skipif(not MANUALS_DEV.is_dir(), reason="manuals-dev is not beside the repository")
def test_no_manual_of_manuals_dev_is_used() -> None:
    assert not MANUALS & {path.name for path in load_dataset(MANUALS_DEV).files}
