"""``drag_core.ingest.progress``: one measure of work per file (pages read, then vectors, on one scale), the
batch's share, and the time left at the pace measured after the warm-up. Synthetic events where a number is
checked by hand, a real ingest's events where the order and the totals matter."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import FINANCE

from drag_core.engine import Engine
from drag_core.ingest.loading import expected_pages
from drag_core.ingest.progress import SPARSE_SHARE, STAGE_COST, WARM_UP_TEXTS, ProgressMeter
from drag_core.ingest.report import ProgressEvent
from drag_core.ingest.tree import parent_count
from drag_core.models.embeddings import BATCH_SIZE

PDF = FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf"


def _through_vectors(meter: ProgressMeter, name: str, pages: int, upto: int, at: float) -> float:
    """Feed a file's events up to ``upto`` of its ``pages`` texts embedded, one second per batch of 10 from
    ``at``; returns the time of the last event."""
    meter.moved(0, ProgressEvent(name, "pages", 0, 1), at)
    meter.moved(0, ProgressEvent(name, "pages", pages, pages), at)
    meter.moved(0, ProgressEvent(name, "summaries", pages, pages), at)
    meter.moved(0, ProgressEvent(name, "tree", parent_count(pages), parent_count(pages)), at)
    meter.moved(0, ProgressEvent(name, "vectors", 0, pages), at)
    for done in range(10, upto + 1, 10):
        at += 1.0
        meter.moved(0, ProgressEvent(name, "vectors", done, pages), at)
    return at


def test_embedding_is_most_of_the_bar_and_the_fast_stages_little() -> None:
    meter = ProgressMeter([("a.pdf", 100)], started=0.0)
    _through_vectors(meter, "a.pdf", 100, 0, 0.0)
    before_vectors = meter.fraction()
    assert 0 < before_vectors < 0.15  # reading, summarising and grouping 100 pages is a sliver of the work
    _through_vectors(meter, "a.pdf", 100, 50, 0.0)
    assert meter.fraction() == pytest.approx(0.5, abs=0.06)


def test_the_counters_do_not_jump_and_the_bar_ends_at_one_on_a_real_ingest(
    make_engine: Callable[..., Engine],
) -> None:
    engine = make_engine()
    data = PDF.read_bytes()
    meter = ProgressMeter([(PDF.name, expected_pages(PDF.name, data))], started=0.0)
    events: list[ProgressEvent] = []
    shares: list[float] = []

    def moved(event: ProgressEvent) -> None:
        events.append(event)
        meter.moved(0, event, float(len(events)))
        shares.append(meter.fraction())

    report = engine.ingest_bytes(PDF.name, data, moved)
    meter.ended(0, float(len(events) + 1))
    assert report.ok and meter.files[0].pages == report.pages == expected_pages(PDF.name, data)
    assert shares == sorted(shares) and meter.fraction() == 1.0
    vectors = {e.total for e in events if e.stage == "vectors"}
    assert len(vectors) == 1 and min(vectors) >= report.pages, "one count from the first vector to the last"


def test_no_time_left_before_the_warm_up_then_the_measured_pace() -> None:
    meter = ProgressMeter([("a.pdf", 200)], started=0.0)
    _through_vectors(meter, "a.pdf", 200, 0, 0.0)
    assert meter.seconds_left(5.0) is None  # nothing embedded yet: no pace to go on
    warm = -(-WARM_UP_TEXTS // 10) * 10  # the first batch of 10 at or past the warm-up
    at = _through_vectors(meter, "a.pdf", 200, warm, 0.0)
    assert meter.seconds_left(at) is None, "the model's first batches are slower: not measured"
    at = _through_vectors(meter, "a.pdf", 200, warm + 30, 0.0)  # 3 more batches of 10 texts, one a second
    rate = meter.rate()
    assert rate == pytest.approx(10 * (1 - SPARSE_SHARE))  # BM25 of the texts comes after the last batch
    left = (meter.work() - meter.work_done()) / rate
    assert meter.seconds_left(at) == pytest.approx(left)
    texts_left = 200 - warm - 30
    assert left == pytest.approx(texts_left / 10 + 1.5, abs=1.0)  # and BM25 and writing after the last batch


def test_between_events_the_bar_moves_at_the_pace_but_not_past_a_batch() -> None:
    meter = ProgressMeter([("a.pdf", 300)], started=0.0)
    at = _through_vectors(meter, "a.pdf", 300, WARM_UP_TEXTS + 40, 0.0)
    share, left = meter.fraction(at), meter.seconds_left(at)
    assert left is not None
    assert meter.fraction(at + 1.0) > share and meter.seconds_left(at + 1.0) == pytest.approx(left - 1.0)
    batch = BATCH_SIZE / meter.rate()  # the seconds one batch of the dense model takes at this pace
    assert meter.fraction(at + 60.0) == pytest.approx(meter.fraction(at + batch)), "then the bar waits"
    assert meter.seconds_left(at + 60.0) == pytest.approx(left - batch), "and so does the time left"


def test_a_skipped_file_counts_as_done_without_speeding_up_the_pace() -> None:
    meter = ProgressMeter([("unchanged.pdf", 300), ("a.pdf", 100)], started=0.0)
    meter.ended(0, 0.0)  # already indexed: no work
    assert meter.fraction() == 0.0 and meter.files[0].work() == 0.0
    for done in range(0, 101, 10):
        meter.moved(1, ProgressEvent("a.pdf", "vectors", done, 100), 1.0 + done / 10)
    assert meter.rate() == pytest.approx(10 * (1 - SPARSE_SHARE)), "the skipped file's 300 pages are no work"


def test_a_later_file_ends_the_earlier_ones_and_queued_files_add_work() -> None:
    meter = ProgressMeter([("a.pdf", 10), ("b.pdf", 10)], started=0.0)
    meter.moved(0, ProgressEvent("a.pdf", "vectors", 5, 10), 1.0)
    meter.moved(1, ProgressEvent("b.pdf", "pages", 0, 1), 2.0)  # a.pdf failed or finished
    assert meter.files[0].ended and meter.file_fraction(0) == 1.0 and meter.file_fraction(1) == 0.0
    share = meter.fraction()
    meter.add("c.pdf", 100)
    assert meter.fraction() < share / 2  # a file ten times longer joined the queue


def test_the_stage_costs_are_relative_to_one_embedded_text() -> None:
    assert STAGE_COST["vectors"] == 1.0
    assert all(0 < cost < 0.2 for stage, cost in STAGE_COST.items() if stage != "vectors")


def test_the_time_left_never_rises_by_more_than_the_time_the_bar_stood_still() -> None:
    """The pace halves midway (a batch of the dense model took 1 s, then 2 s): asked ten times a second, the
    time left may rise only by the seconds the bar stood still meanwhile (waiting for a late batch)."""
    pages = 20 * BATCH_SIZE
    meter = ProgressMeter([("a.pdf", pages)], started=0.0)
    _through_vectors(meter, "a.pdf", pages, 0, 0.0)
    batches = [(1.0 + n, (n + 1) * BATCH_SIZE) for n in range(4)]  # 1 s a batch, the warm-up included
    batches += [(batches[-1][0] + 2.0 * (n + 1), (n + 5) * BATCH_SIZE) for n in range(10)]  # then 2 s
    said = bar = None
    stood = rises = 0.0  # seconds the bar stood still, watched every 10 ms
    for step in range(1, int(batches[-1][0] * 100) + 1):
        now = step / 100
        stood += 0.01 if meter.fraction(now) == bar else 0.0  # the bar up to now, before a batch lands
        while batches and batches[0][0] <= now:
            at, done = batches.pop(0)
            meter.moved(0, ProgressEvent("a.pdf", "vectors", done, pages), at)
        bar = meter.fraction(now)
        if step % 10:
            continue
        left = meter.seconds_left(now)
        if left is not None and said is not None:
            assert left <= said[0] + (stood - said[1]) + 0.011, (now, left, said, stood)
            rises += max(0.0, left - said[0])
        said = None if left is None else (left, stood)
    assert said is not None and rises > 0, "it rose, while a batch was late"
