"""``adaptive``'s neighbouring pages (``SearchParams.neighbours``, issue 26, session 10) on a real manual: a
page next to a kept page that is among the first ``neighbours`` of the pages' ranking is kept too — the rest of
a section that runs over a page break — and nothing else is added."""

from __future__ import annotations

import pytest
from conftest import PDFS
from page_sets import BENCH_DATA, MANUALS_DEV, raw_queries

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.search import SearchParams
from drag_core.search.base import StepKind

MANUAL = "R-FAQ.pdf"


@pytest.fixture(scope="module")
def engine(embedder):
    engine = Engine(
        Settings.from_env(env={}, store=":memory:", cache_path=None), ExtractiveSummarizer(), embedder
    )
    reports = engine.ingest_paths([PDFS / MANUAL])
    assert all(r.ok for r in reports), [r.line() for r in reports]
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def questions() -> list[dict[str, str]]:
    """The development questions about the manual: manuals-dev's and manuals-dev-train's."""
    rows = raw_queries(MANUALS_DEV) + raw_queries(BENCH_DATA / "manuals-dev-train")
    return [row for row in rows if row["doc"] == MANUAL]


def pages_of(result) -> list[int]:
    return [node.page_start for node in result.nodes]


def test_neighbours_add_only_adjacent_pages_of_the_ranking_head(engine, questions) -> None:
    added_somewhere = False
    for question in questions:
        without = pages_of(engine.search(question["text"], "adaptive", SearchParams(neighbours=0)))
        result = engine.search(question["text"], "adaptive", SearchParams(neighbours=3))
        (ranking,) = [step for step in result.trace if step.kind is StepKind.PAGES]
        head = [c.page_start for c in ranking.candidates[:3]]
        answer = pages_of(result)
        added = [page for page in answer if page not in without]
        assert answer[: len(without)] == without, question["_id"]  # the knee's answer first, unchanged
        assert all(page in head for page in added), (question["_id"], added, head)
        # every head page next to an answered page is in the answer (a closure, so chains count)
        assert all(page in answer for page in head if {page - 1, page + 1} & set(answer)), question["_id"]
        assert (ranking.kept_by == "neighbouring pages") == bool(added), question["_id"]
        added_somewhere |= bool(added)
    assert added_somewhere  # the rule did something on these questions


def test_neighbours_keep_the_rest_of_a_section_over_the_page_break(engine) -> None:
    """manuals-dev-train's mdt-025 (Emacs and ESS, R-FAQ pp. 30–31): the knee alone cuts p. 31."""
    (question,) = [row for row in raw_queries(BENCH_DATA / "manuals-dev-train") if row["_id"] == "mdt-025"]
    without = pages_of(engine.search(question["text"], "adaptive", SearchParams(neighbours=0)))
    default = pages_of(engine.search(question["text"], "adaptive"))  # neighbours=3
    assert 30 in without and 31 not in without, without
    assert {30, 31} <= set(default) and len(default) == len(without) + 1, default
