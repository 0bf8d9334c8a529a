"""``drag_core.app.uploads``: files ingested in a background thread with readable progress, a time-left
estimate, and a cancel that leaves the index as it was. Real PDFs, real models, real Qdrant."""

from __future__ import annotations

from collections.abc import Callable

from conftest import FINANCE

from drag_core.app.display import clock
from drag_core.app.uploads import FileProgress, UploadJob
from drag_core.engine import Engine
from drag_core.ingest.pipeline import ProgressEvent

PDF = FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf"
OTHER = FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"


def test_a_job_ingests_every_file_and_reports_each(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    job = UploadJob.start(engine, [(PDF.name, PDF.read_bytes()), ("bad.pdf", b"not a pdf")])
    seen = set()
    while not job.wait(0.2):
        seen.update(line for _, line in job.snapshot())
    assert job.done and job.fraction() == 1.0 and job.seconds_left() is None
    reports = job.reports()
    assert [r.status for r in reports] == ["indexed", "failed"]
    assert any(" — summaries " in line or " — vectors " in line for line in seen), seen
    assert [d.file_name for d in engine.documents()] == [PDF.name]


def test_cancel_skips_the_rest_and_writes_nothing(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    job = UploadJob.start(engine, [(PDF.name, PDF.read_bytes()), (OTHER.name, OTHER.read_bytes())])
    job.cancel()
    assert job.wait(300)
    assert [r.status for r in job.reports()] == ["cancelled", "cancelled"]
    assert engine.documents() == [] and engine.node_count() == 0


def test_the_time_left_follows_the_pace_so_far() -> None:
    vectors_half_done = FileProgress("a.pdf", 100, ProgressEvent("a.pdf", "vectors", 1, 2))
    job = UploadJob([vectors_half_done, FileProgress("b.pdf", 100)], started=1000.0)
    share = job.fraction()
    assert share == (3.5 / 5) / 2  # a.pdf 3.5 of 5 stages, b.pdf not started, equal sizes
    assert job.seconds_left(now=1001.0) is None  # too early to tell
    assert job.seconds_left(now=1010.0) == 10 * (1 - share) / share
    assert clock(7) == "0:07" and clock(125) == "2:05" and clock(3725) == "1:02:05"
