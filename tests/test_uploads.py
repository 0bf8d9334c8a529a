"""``drag_core.app.uploads``: files ingested in a background thread with readable progress, a time-left
estimate, and a cancel that leaves the index as it was. Real PDFs, real models, real Qdrant."""

from __future__ import annotations

import re
from collections.abc import Callable

from conftest import FINANCE

from drag_core.app.display import clock
from drag_core.app.uploads import UploadJob, file_line, outcome_counts, stage_words
from drag_core.engine import Engine
from drag_core.ingest.report import IngestReport, IngestStatus, ProgressEvent

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
    assert any(re.match(rf"{re.escape(PDF.name)} — \d+ % · \w", line) for line in seen), seen
    assert [d.file_name for d in engine.documents()] == [PDF.name]


def test_files_added_while_it_runs_are_queued_behind_the_others(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    job = UploadJob.start(engine, [(PDF.name, PDF.read_bytes())])
    assert job.add([(OTHER.name, OTHER.read_bytes())]) or job.done
    assert job.wait(300)
    if len(job.reports()) == 2:  # queued in time (the usual case): one job, both files
        assert [r.file_name for r in job.reports()] == [PDF.name, OTHER.name]
        assert sorted(d.file_name for d in engine.documents()) == sorted([PDF.name, OTHER.name])
    assert not job.add([(OTHER.name, OTHER.read_bytes())]), "a finished job takes no more files"


def test_cancel_skips_the_rest_and_writes_nothing(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    job = UploadJob.start(engine, [(PDF.name, PDF.read_bytes()), (OTHER.name, OTHER.read_bytes())])
    job.cancel()
    assert job.wait(300)
    assert [r.status for r in job.reports()] == ["cancelled", "cancelled"]
    assert engine.documents() == [] and engine.node_count() == 0


def test_a_cancelled_job_takes_no_more_files(make_engine: Callable[..., Engine]) -> None:
    job = UploadJob.start(make_engine(), [(PDF.name, PDF.read_bytes())])
    job.cancel()
    assert not job.add([(OTHER.name, OTHER.read_bytes())])
    assert job.wait(300) and [r.status for r in job.reports()] == ["cancelled"]


def test_progress_in_words() -> None:
    assert stage_words(None) == "waiting"
    assert stage_words(ProgressEvent("a.pdf", "pages", 0, 1)) == "reading the file"
    assert stage_words(ProgressEvent("a.pdf", "pages", 41, 41)) == "read: 41 pages"
    assert stage_words(ProgressEvent("a.pdf", "summaries", 12, 41)) == "summarising page 12 of 41"
    assert stage_words(ProgressEvent("a.pdf", "vectors", 1, 1)) == "embedding 1 of 1 text"
    assert stage_words(ProgressEvent("a.pdf", "store", 0, 50)) == "writing to the index"
    line = file_line("a.pdf", 0.384, ProgressEvent("a.pdf", "vectors", 96, 311))
    assert line == "a.pdf — 38 % · embedding 96 of 311 texts"
    reports = [IngestReport("a", IngestStatus.INDEXED), IngestReport("b", IngestStatus.CANCELLED)] * 2
    assert outcome_counts(reports) == "2 indexed, 2 cancelled" and outcome_counts([]) == "nothing to do"
    assert clock(7) == "0:07" and clock(125) == "2:05" and clock(3725) == "1:02:05"
