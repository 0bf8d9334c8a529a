"""The user's labels: a page data set in the store folder that ``load_dataset`` reads like the shared ones,
written atomically, safe with two sessions (threads) and two processes labelling at once, kept and marked stale
when their document goes, exportable as a zip ``drag eval`` runs anywhere, and evaluated on the index they were
made on — nothing ingested again."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FINANCE, REPO, SMALL_DOCS, child_env

from drag_core.app.evidence import label_counts, mark_page, page_marks
from drag_core.app.jobs.thread import IndexEvalJob
from drag_core.engine import Engine
from drag_core.evaluation.datasets import load_dataset
from drag_core.evaluation.runner import evaluate, parse_spec
from drag_core.ingest.loading import document_id
from drag_core.labels import Labels, labels_dataset, query_id
from drag_core.search import SearchParams

ULTA, FOOT = (FINANCE / name for name in SMALL_DOCS)
QUESTION = "What was net sales growth in the fourth quarter?"


def test_labels_are_a_page_data_set(tmp_path: Path) -> None:
    labels = Labels(tmp_path / "labels")
    labels.mark(QUESTION, ULTA.name, 2, True, "a" * 32, ULTA)
    labels.mark(QUESTION, ULTA.name, 5, False, "a" * 32, ULTA)
    labels.mark("  What   was net income? ", ULTA.name, 1, True, "a" * 32, ULTA)
    labels.mark("What was net income?", ULTA.name, 1, None, "a" * 32)  # the same question: cleared
    dataset = load_dataset(tmp_path / "labels")
    assert dataset.kind == "pages" and [q.text for q in dataset.queries] == [QUESTION]
    assert dataset.qrels == {query_id(QUESTION): {(ULTA.name, 2): 1}}, "not relevant is no relevance"
    assert [p.name for p in dataset.files] == [ULTA.name]
    assert os.path.samefile(dataset.files[0], ULTA), "docs/ links the original"
    rows = (tmp_path / "labels" / "qrels.tsv").read_text().splitlines()
    assert rows == [
        "query-id\tfile\tpage\tscore",
        f"{query_id(QUESTION)}\t{ULTA.name}\t2\t1",
        f"{query_id(QUESTION)}\t{ULTA.name}\t5\t0",
    ]
    assert {label.page: label.relevant for label in labels.of_query(QUESTION).values()} == {2: True, 5: False}


def test_a_write_that_fails_leaves_the_labels_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels = Labels(tmp_path / "labels")
    labels.mark(QUESTION, ULTA.name, 2, True, "a" * 32)
    before = {p.name: p.read_bytes() for p in labels.folder.iterdir() if p.is_file()}

    def crash(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        labels.mark(QUESTION, ULTA.name, 3, True, "a" * 32)
    monkeypatch.undo()
    after = {p.name: p.read_bytes() for p in labels.folder.iterdir() if p.is_file()}
    assert after == before, "no half file, no temporary file left"
    assert [label.page for label in labels.all()] == [2]


def test_two_sessions_labelling_at_once_lose_nothing(tmp_path: Path) -> None:
    labels = Labels(tmp_path / "labels")

    def session(question: str) -> None:
        for page in range(1, 31):
            Labels(tmp_path / "labels").mark(question, ULTA.name, page, page % 3 != 0, "a" * 32)

    threads = [threading.Thread(target=session, args=(q,)) for q in ("first question", "second question")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted((label.query, label.page) for label in labels.all()) == sorted(
        (q, p) for q in ("first question", "second question") for p in range(1, 31)
    )


def test_two_processes_labelling_at_once_lose_nothing(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\nfrom drag_core.labels import Labels\n"
        "for page in range(1, 26):\n"
        "    Labels(Path(sys.argv[1])).mark(sys.argv[2], 'f.pdf', page, True, 'a' * 32)\n"
    )
    runs = [
        subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "labels"), q], cwd=REPO, env=child_env())
        for q in ("question one", "question two")
    ]
    assert [run.wait(timeout=300) for run in runs] == [0, 0]
    found = Labels(tmp_path / "labels").all()
    assert len(found) == 50 and {label.query for label in found} == {"question one", "question two"}


@pytest.fixture
def indexed(make_engine: Callable[..., Engine], tmp_path: Path) -> tuple[Engine, Labels]:
    """An engine on a store folder holding the two small filings, and that folder's labels."""
    engine = make_engine(store=str(tmp_path / "qdrant"))
    assert all(r.ok for r in engine.ingest_paths([ULTA, FOOT]))
    return engine, Labels(tmp_path / "qdrant" / "labels")


def test_removing_a_document_keeps_its_labels_marked_stale(
    indexed: tuple[Engine, Labels], tmp_path: Path
) -> None:
    engine, labels = indexed
    mark_page(engine, labels, QUESTION, ULTA.name, 2, True)
    mark_page(engine, labels, QUESTION, FOOT.name, 1, False)
    assert page_marks(labels, QUESTION) == {(ULTA.name, 2): True, (FOOT.name, 1): False}
    engine.remove(ULTA.name)
    counts = label_counts(labels, engine.documents())
    assert (counts.questions, counts.relevant, counts.not_relevant, counts.stale, counts.ready) == (
        1,
        1,
        1,
        1,
        0,
    )
    assert (labels.folder / "docs" / ULTA.name).read_bytes() == ULTA.read_bytes(), (
        "the data set keeps its file"
    )
    assert engine.ingest_paths([ULTA])[0].ok  # the same bytes again: the labels hold again
    assert label_counts(labels, engine.documents()).stale == 0
    changed = tmp_path / ULTA.name
    changed.write_bytes(ULTA.read_bytes() + b"\n% another version\n")
    assert engine.ingest_paths([changed])[0].ok
    assert label_counts(labels, engine.documents()).stale == 1, "labelled on another version"
    mark_page(engine, labels, QUESTION, ULTA.name, 3, True)  # labelling the new version starts again
    assert sorted(label.page for label in labels.all() if label.file_name == ULTA.name) == [3]


def test_an_export_is_a_data_set_drag_eval_reads(tmp_path: Path) -> None:
    labels = Labels(tmp_path / "labels")
    labels.mark(QUESTION, ULTA.name, 2, True, document_id(ULTA.read_bytes()), ULTA)
    labels.mark(QUESTION, ULTA.name, 3, True, document_id(ULTA.read_bytes()))
    labels.mark("Who signed the agreement?", FOOT.name, 1, True, "b" * 32)  # its original was not kept
    with zipfile.ZipFile(io.BytesIO(labels.export())) as archive:
        assert sorted(archive.namelist()) == ["docs/" + ULTA.name, "qrels.tsv", "queries.jsonl"]
        archive.extractall(tmp_path / "exported")
    dataset = load_dataset(tmp_path / "exported")
    assert len(dataset.queries) == 2 and [p.name for p in dataset.files] == [ULTA.name]
    assert dataset.qrels[query_id(QUESTION)] == {(ULTA.name, 2): 1, (ULTA.name, 3): 1}
    assert all(
        set(json.loads(line)) == {"_id", "text"} for line in (tmp_path / "exported" / "queries.jsonl").open()
    )


def test_the_labels_are_evaluated_on_the_index_they_were_made_on(
    indexed: tuple[Engine, Labels], tmp_path: Path
) -> None:
    engine, labels = indexed
    mark_page(engine, labels, QUESTION, ULTA.name, 1, True)
    mark_page(engine, labels, "Who is leaving Foot Locker?", FOOT.name, 1, True)
    before = engine.node_count()
    dataset, index = labels_dataset(engine, labels)
    assert len(dataset.queries) == 2 and index["reused"] and index["stale_labels_left_out"] == 0
    specs = [parse_spec(s, SearchParams()) for s in ("flat", "adaptive")]
    report = evaluate(engine, dataset, specs, index=index)
    assert report.n_queries == 2 and report.summaries[0].means["recall@5"] == 1.0
    job = IndexEvalJob(engine, dataset, specs, index)
    assert job.wait(300) and job.status().stage == "done"
    assert job.result()[0].to_json()["strategies"].keys() == {"flat", "adaptive"}
    assert engine.node_count() == before, "nothing was ingested"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qdrant"], "no index of its own"
