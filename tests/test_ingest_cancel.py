"""Cancelling an ingest: asked between batches of every stage before the store, it leaves the index holding
nothing of the file (an older version stays whole); other files go on. Real PDFs, real models, real Qdrant."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import FINANCE

from drag_core.engine import Engine
from drag_core.ingest.report import STAGES, ProgressEvent

PDF = FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf"
OTHER = FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"


class StopAt:
    """A cancel check that says yes once a progress event of ``stage`` has been seen."""

    def __init__(self, stage: str) -> None:
        self.stage = stage
        self.seen: list[ProgressEvent] = []

    def progress(self, event: ProgressEvent) -> None:
        self.seen.append(event)

    def __call__(self) -> bool:
        return any(e.stage == self.stage for e in self.seen)


@pytest.mark.parametrize("stage", ["pages", "summaries", "vectors"])
def test_a_cancelled_upload_leaves_nothing_in_the_index(
    make_engine: Callable[..., Engine], stage: str
) -> None:
    engine = make_engine()
    stop = StopAt(stage)
    report = engine.ingest_bytes(PDF.name, PDF.read_bytes(), stop.progress, stop)
    assert report.status == "cancelled" and not report.ok
    assert report.line().endswith("cancelled — stopped before anything was written; the index is unchanged")
    assert engine.documents() == []
    assert engine.node_count() == 0
    later = [e.stage for e in stop.seen]
    assert "store" not in later and STAGES.index(later[-1]) <= STAGES.index(stage)


def test_cancelling_a_new_version_keeps_the_old_one_whole(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    assert engine.ingest_bytes("report.pdf", OTHER.read_bytes()).ok
    before = engine.documents()
    nodes = engine.node_count()
    stop = StopAt("vectors")
    report = engine.ingest_bytes("report.pdf", PDF.read_bytes(), stop.progress, stop)
    assert report.status == "cancelled"
    assert engine.documents() == before
    assert engine.node_count() == nodes
    assert engine.ingest_bytes(PDF.name, PDF.read_bytes(), cancel=lambda: False).ok  # a later upload works


def test_vectors_report_progress_per_batch(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    events: list[ProgressEvent] = []
    assert engine.ingest_bytes(PDF.name, PDF.read_bytes(), events.append).ok
    vectors = [(e.done, e.total) for e in events if e.stage == "vectors"]
    assert len(vectors) >= 3  # the start, at least one batch, the end
    assert [d for d, _ in vectors] == sorted(d for d, _ in vectors)
