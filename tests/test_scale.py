"""What must not grow with the index (issue 23): opening an index reads its roots, not every point; one
document is found by its name, not by listing all of them; the scale benchmark's JSON keeps its keys; and its
indexes hold the pages' passages as ingestion writes them, or none for the index of before passages (issue 26)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import SMALL_DOCS, child_env

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.params import SearchParams
from drag_core.store import DENSE, PASSAGES, Where, open_store

REPO = Path(__file__).resolve().parents[1]
SIZE_KEYS = {
    "nodes",
    "variant",
    "open_s",
    "rss_mib",
    "rss_anon_mib",
    "rss_file_mib",
    "ms",
    "answers",
    "disk_mib",
    "p50_ms",
    "p95_ms",
    "ingest_100_pages_s",
    "ingest_100_pages_empty_s",
}


def test_opening_a_whole_index_reads_only_its_roots(small_index_copy: Path, embedder, monkeypatch) -> None:
    store = open_store(Settings(store=str(small_index_copy), cache_path=None))
    read: list[Where | None] = []
    scroll = store._scroll
    monkeypatch.setattr(store, "_scroll", lambda fields, where: read.append(where) or scroll(fields, where))
    engine = Engine(Settings(store=str(small_index_copy)), ExtractiveSummarizer(), embedder, store=store)
    engine.close()
    assert read and all(where is not None and ("parent_id", -1) in where.equals for where in read)


def test_one_document_is_found_by_its_name_alone(small_engine: Engine, monkeypatch) -> None:
    asked: list[tuple[str | None, str | None]] = []
    roots = small_engine.store.roots

    def recorded(file_name: str | None = None, doc_id: str | None = None) -> list:
        asked.append((file_name, doc_id))
        return roots(file_name, doc_id)

    monkeypatch.setattr(small_engine.store, "roots", recorded)
    name = SMALL_DOCS[0]
    info = small_engine.document(name)
    assert small_engine.tree(name)[-1].id == info.root_id
    assert small_engine.page(name, 1).page_start == 1
    assert asked and all(file_name == name for file_name, _ in asked)


def test_the_scale_bench_writes_its_interface(tmp_path: Path) -> None:
    out = tmp_path / "scale.json"
    env = child_env({k: v for k, v in os.environ.items() if not k.startswith(("QDRANT_", "DRAG_"))})
    command = [sys.executable, str(REPO / "bench" / "scale.py"), "--sizes", "300", "--queries", "2"]
    command += ["--folder", str(tmp_path / "indexes"), "--json", str(out), "--ingest-rounds", "1"]
    command += ["--pdf", str(REPO / "drag_core" / "app" / "sample" / "R-data.pdf")]
    subprocess.run(command, check=True, cwd=REPO, env=env, capture_output=True, timeout=300)
    (row,) = json.loads(out.read_text())["sizes"]
    assert set(row) == SIZE_KEYS and row["nodes"] >= 300
    assert set(row["p50_ms"]) == set(row["p95_ms"]) >= {"flat", "adaptive"}


def test_the_scale_index_holds_each_copys_passages_and_the_index_of_before_none(
    embedder, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    from corpus import build
    from scale_index import build_index, copies

    documents = build(embedder, "projection", max_nodes=120)
    original = next(d for d in documents if any(p is not None and len(p) > 1 for p in d.passages))
    name = original.nodes[-1].file_name.replace(".txt", "-c0001.txt")
    copy = next(c for c in copies(documents) if c.nodes[-1].file_name == name)
    assert all((p is None) == (n.level > 0) for n, p in zip(copy.nodes, copy.passages))
    stored = copy.stored_passages
    for i, rows in enumerate(copy.passages):
        if rows is not None and not len(rows):  # a page read whole: its page vector is its one passage
            assert np.array_equal(stored[i], copy.dense[i : i + 1])
    split = [i for i, rows in enumerate(original.passages) if rows is not None and len(rows) > 1]
    for i in split:
        cosines = np.sum(original.passages[i] * copy.passages[i], axis=1)
        assert np.all(cosines < 0.999) and np.all(
            cosines > 0.5
        )  # moved, as the page vectors are, not replaced
        assert np.allclose(np.linalg.norm(copy.passages[i], axis=1), 1.0, atol=1e-5)

    for passages in (True, False):
        settings = Settings(store=str(tmp_path / str(passages)), cache_path=None)
        assert build_index(settings, documents, 80, embedder, passages=passages) >= 80
        engine = Engine(settings, ExtractiveSummarizer(), embedder)
        assert engine.store.holds_passages == passages
        # current where the roots carry the vector policy of passages; an index of before is flagged, as any
        assert all(info.current for info in engine.documents()) == passages
        result = engine.search("gene expression in cancer cells", "flat", SearchParams())
        assert [step.dense for step in result.trace] == [PASSAGES if passages else DENSE]
        engine.close()
        with pytest.raises(ValueError, match="begun"):
            build_index(settings, documents, 160, embedder, passages=not passages)
