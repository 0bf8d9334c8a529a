"""Every entry point honours the same settings: a PDF engine, an RRF constant and a BM25 constant set in the
environment reach the CLI, ``eval``, the Evaluate page's plan and the LangChain retriever alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FINANCE, child_env, no_exceptions, run_cli
from test_evaluation import write_page_dataset

from drag_core.app.jobs.process import plan
from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.evaluation.datasets import load_dataset
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.tree import TREE_VERSION
from drag_core.ingest.vector_text import VectorPolicy
from drag_core.integrations.langchain import DragRetriever

CHANGED = {"DRAG_PDF_ENGINE": "pypdf", "DRAG_RRF_K": "17", "DRAG_BM25_K1": "0.9"}
PDF = FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"


def test_the_settings_carry_the_environment() -> None:
    settings = Settings.from_env(CHANGED)
    assert (settings.pdf_engine, settings.search.rrf_k, settings.bm25.k1) == ("pypdf", 17, 0.9)
    assert Settings.from_env({}).search.rrf_k == 60


@pytest.fixture(scope="module")
def changed_index(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    """An index built under the changed settings (pypdf text, BM25 k1 = 0.9)."""
    folder = tmp_path_factory.mktemp("changed") / "qdrant"
    settings = Settings.from_env(CHANGED, store=str(folder), cache_path=None)
    engine = Engine(settings, summarizer=ExtractiveSummarizer())  # its own embedder: the settings' BM25
    (report,) = engine.ingest_paths([PDF])
    assert report.ok, report.line()
    engine.close()
    return folder


def test_the_cli_searches_and_lists_with_the_settings(changed_index: Path) -> None:
    found = run_cli("search", "--store", str(changed_index), "--json", "store closures", env=CHANGED)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["params"]["rrf_k"] == 17
    listed = {
        name: json.loads(run_cli("docs", "--store", str(changed_index), "--json", env=env).stdout)
        for name, env in (("changed", CHANGED), ("default", {}))
    }
    assert [d["current"] for d in listed["changed"]] == [True], "built with these BM25 constants"
    assert [d["current"] for d in listed["default"]] == [False], "the default constants would rebuild it"


def test_eval_and_the_evaluate_pages_plan_use_the_settings(tmp_path: Path, open_app) -> None:
    dataset = write_page_dataset(tmp_path / "data" / "tiny-pages")
    places = {"DRAG_EVAL_DIR": str(tmp_path / "eval"), "DRAG_EVAL_DATA": str(tmp_path / "data")}
    out = tmp_path / "report.json"
    done = run_cli("eval", str(dataset), "--strategies", "flat", "--json", str(out), env=CHANGED | places)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["index"]["pdf_engine"] == "pypdf" and "k1=0.9" in report["index"]["sparse_model"]
    assert report["strategies"]["flat"]["params"]["rrf_k"] == 17

    tiny, policy = load_dataset(dataset), VectorPolicy()
    assert plan(tiny, policy, Settings.from_env(CHANGED | places)).ready, "the index eval just built"
    assert not plan(tiny, policy, Settings.from_env(places)).ready, "other settings, another index"
    manifest = next((tmp_path / "eval").rglob("manifest.json"))
    manifest.write_text(manifest.read_text().replace(TREE_VERSION, "an-older-tree"))
    assert not plan(tiny, policy, Settings.from_env(CHANGED | places)).ready, "an older tree is rebuilt"
    manifest.write_text(manifest.read_text().replace("an-older-tree", TREE_VERSION))

    built = "The index of this data set is built for these settings"
    for env, ready in ((CHANGED | places, True), (places, False)):
        at = open_app(tmp_path / "app-index", "pages/evaluate.py", **env)
        no_exceptions(at)
        assert any(built in c.value for c in at.caption) is ready, env
        assert any("The first run indexes" in w.value for w in at.warning) is not ready, env


def test_the_retriever_uses_the_settings(changed_index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in child_env(CHANGED).items():
        monkeypatch.setenv(name, value)
    retriever = DragRetriever(store=str(changed_index))
    try:
        assert retriever.params.rrf_k == 17
        assert DragRetriever(store=str(changed_index), rrf_k=5).params.rrf_k == 5, "a knob given wins"
        docs = retriever.invoke("store closures")
        assert docs and all(d.metadata["file_name"] == PDF.name for d in docs)
        assert retriever.engine.settings.pdf_engine == "pypdf" and retriever.engine.settings.bm25.k1 == 0.9
        assert [d.current for d in retriever.engine.documents()] == [True]
    finally:
        retriever.close()
