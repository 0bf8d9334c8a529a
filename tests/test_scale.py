"""What must not grow with the index (issue 23): opening an index reads its roots, not every point; one
document is found by its name, not by listing all of them; and the scale benchmark's JSON keeps its keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import SMALL_DOCS, child_env

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.store import Where, open_store

REPO = Path(__file__).resolve().parents[1]
SIZE_KEYS = {
    "nodes",
    "open_s",
    "rss_mib",
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
