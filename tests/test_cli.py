"""The CLI end to end: ingest three real PDFs, search with every strategy, docs, tree, remove."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FINANCE, REPO

from drag_core.cli import build_parser
from drag_core.search import STRATEGIES, SearchParams

THREE_PDFS = [
    FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf",
    FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf",
    FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf",
]


def drag(*args: str, store: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "DRAG_MODEL_DIR": str(REPO / "models"),
        "DRAG_STORE": str(store),
    }
    env.pop("DRAG_LLM_BASE_URL", None)
    env.pop("OPENAI_BASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "drag_core", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=600,
    )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cli") / "qdrant"
    bad = folder.parent / "broken.pdf"
    bad.write_bytes(THREE_PDFS[0].read_bytes()[:5000])
    done = drag("ingest", str(THREE_PDFS[0]), str(bad), *map(str, THREE_PDFS[1:]), store=folder)
    assert done.returncode == 1, "a failed file makes the exit code non-zero"
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 4
    assert lines[1].startswith("broken.pdf: FAILED — ") and "\n" not in lines[1]
    assert all("indexed" in line for i, line in enumerate(lines) if i != 1)
    assert "vectors" in done.stderr, "progress goes to stderr"
    return folder


def test_docs_lists_the_three_good_files(store: Path) -> None:
    done = drag("docs", "--json", store=store)
    docs = {d["file_name"]: d for d in json.loads(done.stdout)}
    assert set(docs) == {p.name for p in THREE_PDFS}
    assert docs["AMCOR_2022_8K_dated-2022-07-01.pdf"]["pages"] == 9
    assert docs["AMCOR_2022_8K_dated-2022-07-01.pdf"]["levels"] == 3


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_search_json_for_each_strategy(store: Path, strategy: str) -> None:
    done = drag("search", "Amcor guarantee of the notes", "--strategy", strategy, "--json", store=store)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["strategy"] == strategy
    assert {"strategy", "nodes", "pages", "trace", "latency_ms"} <= set(data)
    assert data["nodes"] and data["trace"]
    assert any(n["file_name"].startswith("AMCOR") for n in data["nodes"])
    for node in data["nodes"]:
        assert {"id", "file_name", "page_start", "page_end", "level", "score"} == set(node)
        assert 1 <= node["page_start"] <= node["page_end"]
    assert data["pages"] == len(
        {(n["file_name"], p) for n in data["nodes"] for p in range(n["page_start"], n["page_end"] + 1)}
    )


def test_tree_and_remove(store: Path) -> None:
    tree = json.loads(drag("tree", "PEPSICO_2023_8K_dated-2023-05-05.pdf", "--json", store=store).stdout)
    assert sum(1 for n in tree if n["parent_id"] == -1) == 1
    assert sorted(n["page_start"] for n in tree if n["level"] == 0) == [1, 2, 3, 4, 5]
    done = drag("remove", "PEPSICO_2023_8K_dated-2023-05-05.pdf", store=store)
    assert done.returncode == 0 and f"({len(tree)} nodes)" in done.stdout
    names = {d["file_name"] for d in json.loads(drag("docs", "--json", store=store).stdout)}
    assert "PEPSICO_2023_8K_dated-2023-05-05.pdf" not in names
    missing = drag("tree", "PEPSICO_2023_8K_dated-2023-05-05.pdf", store=store)
    assert missing.returncode == 2 and "no document named" in missing.stderr


def test_search_options_default_to_the_search_parameters() -> None:
    args = build_parser().parse_args(["search", "a question"])
    defaults = SearchParams()
    assert (args.top_k, args.roots, args.beam_width, args.knee) == (
        defaults.top_k,
        defaults.roots,
        defaults.beam_width,
        defaults.knee_method,
    )
    assert (args.sensitivity, args.min_keep, args.max_keep, args.score_source) == (
        defaults.sensitivity,
        defaults.min_keep,
        defaults.max_keep,
        defaults.score_source,
    )
