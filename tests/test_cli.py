"""The CLI end to end with real PDFs, a real store and real embeddings: ingest (progress, result lines as files
finish, one report per missing file), search with every strategy (JSON and table), docs, tree, remove, the
refusal of a missing index, the caches' place, ``--help`` and its defaults."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from conftest import FINANCE, REPO, child_env

from drag_core.cli import build_parser
from drag_core.cli.parser import search_params, strategy_description
from drag_core.ingest.pdf_text import pdf_pages
from drag_core.search import STRATEGIES, SearchParams
from drag_core.text import cut, page_span, short_ids

THREE_PDFS = [
    FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf",
    FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf",
    FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf",
]
SPAN = re.compile(r"p\.(\d+)(?:–(\d+))?")


def drag(*args: str, store: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "drag_core", *args],
        capture_output=True,
        text=True,
        env=child_env({"DRAG_STORE": str(store)}),
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
    progress = done.stderr.splitlines()
    assert any("[1/4] AMCOR_2022_8K_dated-2022-07-01.pdf: vectors" in line for line in progress)
    assert any(line.strip().startswith("[4/4] FOOTLOCKER") for line in progress), "file i/N moves on"
    reason = lines[1].split("FAILED — ", 1)[1]
    assert reason not in done.stderr, "a failed file is reported once, on its result line"
    return folder


def test_caches_live_inside_the_store_folder(store: Path) -> None:
    assert (store / "description-cache.sqlite").is_file() and (store / "page-cache.sqlite").is_file()
    assert not (store.parent / "description-cache.sqlite").exists()


def test_docs_lists_the_three_good_files(store: Path) -> None:
    done = drag("docs", "--json", store=store)
    docs = {d["file_name"]: d for d in json.loads(done.stdout)}
    assert set(docs) == {p.name for p in THREE_PDFS}
    assert docs["AMCOR_2022_8K_dated-2022-07-01.pdf"]["pages"] == 9
    assert docs["AMCOR_2022_8K_dated-2022-07-01.pdf"]["levels"] == 3
    table = drag("docs", store=store).stdout
    header = next(line for line in table.splitlines() if "file" in line)
    assert all(word in header for word in ("pages", "empty", "nodes", "levels"))
    totals = next(line for line in table.splitlines() if "3 documents" in line)
    assert str(sum(d["pages"] for d in docs.values())) in totals.split()


def _read_without_models(store: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A read command in a fresh process that says on its last stderr line whether it imported fastembed."""
    code = (
        "import sys\nfrom drag_core.cli import main\nexit_code = main(sys.argv[1:])\n"
        "print('fastembed' in sys.modules, file=sys.stderr)\nsys.exit(exit_code)"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=child_env({"DRAG_STORE": str(store), **env}),
        cwd=REPO,
        timeout=600,
    )


def test_docs_tree_and_remove_tell_stale_documents_without_loading_a_model(store: Path) -> None:
    for env, current in (({}, True), ({"DRAG_BM25_K1": "0.9"}, False)):
        done = _read_without_models(store, "docs", "--json", **env)
        assert done.stderr.splitlines()[-1] == "False", done.stderr
        assert [d["current"] for d in json.loads(done.stdout)] == [current] * 3
    tree = _read_without_models(store, "tree", THREE_PDFS[0].name, "--json")
    assert tree.stderr.splitlines()[-1] == "False" and json.loads(tree.stdout)
    missing = _read_without_models(store, "remove", "not-indexed.pdf")
    assert missing.returncode != 0 and "no document named 'not-indexed.pdf'" in missing.stderr
    assert missing.stderr.splitlines()[-1] == "False"


@pytest.mark.parametrize("strategy", list(STRATEGIES))
def test_search_json_for_each_strategy(store: Path, strategy: str) -> None:
    done = drag("search", "Amcor guarantee of the notes", "--strategy", strategy, "--json", store=store)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", "--json prints nothing else"
    data = json.loads(done.stdout)
    assert data["strategy"] == strategy
    assert {"strategy", "nodes", "pages", "trace", "latency_ms", "page_list"} <= set(data)
    assert data["nodes"] and data["trace"]
    assert any(n["file_name"].startswith("AMCOR") for n in data["nodes"])
    for node in data["nodes"]:
        assert {"id", "file_name", "page_start", "page_end", "level", "score", "title"} <= set(node)
        assert 1 <= node["page_start"] <= node["page_end"]
    covered = {(n["file_name"], p) for n in data["nodes"] for p in range(n["page_start"], n["page_end"] + 1)}
    assert data["pages"] == len(covered), "pages stays a count"
    assert {(p["file_name"], p["page"]) for p in data["page_list"]} == covered


def test_search_json_nodes_carry_their_snippet_and_scores(store: Path) -> None:
    query = "Amcor guarantee of the notes"
    done = drag("search", query, "--strategy", "branch", "--json", store=store)
    data = json.loads(done.stdout)
    texts = {path.name: pdf_pages(path.read_bytes(), 3000) for path in THREE_PDFS}
    snippets = 0
    for node in data["nodes"]:
        assert {
            "snippet",
            "snippet_page",
            "highlights",
            "marks",
            "cosine",
            "bm25",
            "dense_rank",
            "sparse_rank",
        } <= set(node)
        assert node["page_start"] <= node["snippet_page"] <= node["page_end"]
        text = texts[node["file_name"]][node["snippet_page"] - 1]
        shown = [" ".join(text[a:b].split()) for a, b in node["highlights"]]
        assert " … ".join(shown) == node["snippet"] or "-" in node["snippet"]
        assert all(
            text[a:b].lower() in ("amcor", "guarantee", "guarantees", "guaranteed", "notes", "note")
            for a, b in node["marks"]
        )
        assert all(any(ha <= a and b <= hb for ha, hb in node["highlights"]) for a, b in node["marks"])
        snippets += bool(node["snippet"])
    assert snippets, "some result shares words with the question"


def test_page_writes_the_highlighted_page_or_prints_it(store: Path, tmp_path: Path) -> None:
    name, query = THREE_PDFS[0].name, "Amcor guarantee of the notes"
    image = tmp_path / "page.png"
    done = drag("page", name, "1", "--query", query, "--png", str(image), "--json", store=store)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shown["png"] == str(image)
    assert shown["width"] > 500 and shown["boxes"] >= len(shown["highlights"]) > 0
    printed = drag("page", name, "1", "--query", query, store=store)
    assert printed.stdout.count("»") == len(shown["highlights"]) == printed.stdout.count("«")
    for args, message in (
        (["page", name, "99"], f"error: page 99 does not exist: {name} has"),
        (["page", "gone.pdf", "1"], "error: gone.pdf is not indexed"),
        (
            ["page", "notes.md", "1", "--png", str(image)],
            "error: notes.md is a text file: it has no page image",
        ),
    ):
        failed = drag(*args, store=store)
        assert failed.returncode == 2 and failed.stderr.startswith(message), failed.stderr
        assert "Traceback" not in failed.stderr


def test_eval_labels_runs_on_the_stores_own_index(store: Path, tmp_path: Path) -> None:
    from drag_core.labels import Labels

    documents = {d["file_name"]: d["doc_id"] for d in json.loads(drag("docs", "--json", store=store).stdout)}
    labels = Labels(store / "labels")
    labels.mark("Amcor guarantee of the notes", THREE_PDFS[0].name, 1, True, documents[THREE_PDFS[0].name])
    labels.mark("a stale question", "removed.pdf", 1, True, "0" * 32)
    out = tmp_path / "labels.json"
    done = drag(
        "eval",
        "--labels",
        "--store",
        str(store),
        "--strategies",
        "flat",
        "adaptive",
        "--json",
        str(out),
        store=store,
    )
    assert done.returncode == 0, done.stderr
    assert "1 question with a page marked relevant (1 stale label left out)" in done.stderr
    report = json.loads(out.read_text())
    assert report["dataset"] == "my labels" and report["n_queries"] == 1
    assert set(report["strategies"]) == {"flat", "adaptive"} and report["index"]["reused"]
    assert not (tmp_path / "data").exists() and not (REPO / "data" / "eval" / "my labels").exists()
    lonely = drag("eval", "--strategies", "flat", store=store)
    assert lonely.returncode == 2 and "name a data set folder, or pass --labels" in lonely.stderr


def test_search_table_has_a_header_cosines_and_summaries_cut_at_a_word(store: Path) -> None:
    data = json.loads(drag("search", "Amcor guarantee of the notes", "--json", store=store).stdout)
    done = drag("search", "Amcor guarantee of the notes", store=store)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    nodes, pages = len(data["nodes"]), data["pages"]
    assert lines[0].startswith(
        f"adaptive: {nodes} node{'s' * (nodes != 1)}, {pages} page{'s' * (pages != 1)}"
    )
    header = next(line for line in lines if "cosine" in line)
    assert re.findall(r"\w+", header) == [
        "file",
        "pages",
        "level",
        "cosine",
        "BM25",
        "fused",
        "title",
        "snippet",
    ]
    first = data["nodes"][0]
    row = next(line for line in lines if re.match(r"\W*1\W", line))
    assert first["file_name"] in row and page_span(first["page_start"], first["page_end"]) in row
    assert f"{first['score']:.4f}" in row
    cosines = [float(x) for x in re.findall(r"\b0\.\d{3}\b", row)]
    steps = [c for s in data["trace"] for c in s["candidates"] if c["id"] == first["id"]]
    assert round(steps[-1]["dense_score"], 3) in cosines, "the cosine is the one the knee read"


def test_summaries_are_cut_at_a_word_boundary(store: Path) -> None:
    tree = json.loads(drag("tree", "AMCOR_2022_8K_dated-2022-07-01.pdf", "--json", store=store).stdout)
    for summary in (n["summary"] for n in tree):
        shown = cut(summary, 60)
        assert len(shown) <= 60
        words = " ".join(summary.split()).split(" ")
        kept = shown.removesuffix("…").split(" ")
        assert kept == words[: len(kept)], "whole words only"


def test_tree_is_an_outline_with_page_ranges_and_short_ids(store: Path) -> None:
    nodes = json.loads(drag("tree", "AMCOR_2022_8K_dated-2022-07-01.pdf", "--json", store=store).stdout)
    done = drag("tree", "AMCOR_2022_8K_dated-2022-07-01.pdf", store=store)
    lines = done.stdout.splitlines()[1:]
    assert len(lines) == len(nodes)
    depth = {n["id"]: 0 for n in nodes if n["parent_id"] == -1}
    for node in sorted(nodes, key=lambda n: -n["level"]):
        for child in node["child_ids"]:
            depth[child] = depth[node["id"]] + 1
    ids = short_ids(n["id"] for n in nodes)
    for node in nodes:
        line = next(line for line in lines if f"#{ids[node['id']]} " in line + " ")
        assert len(line) - len(line.lstrip()) == 2 * depth[node["id"]]
        assert line.split()[0] == page_span(node["page_start"], node["page_end"])
        assert len(ids[node["id"]]) < 8
    for start, end in SPAN.findall(done.stdout):
        assert start != end, "one page is p.N, never p.N–N"


def test_tree_and_remove(store: Path) -> None:
    tree = json.loads(drag("tree", "PEPSICO_2023_8K_dated-2023-05-05.pdf", "--json", store=store).stdout)
    assert sum(1 for n in tree if n["parent_id"] == -1) == 1
    assert sorted(n["page_start"] for n in tree if n["level"] == 0) == [1, 2, 3, 4, 5]
    done = drag("remove", "PEPSICO_2023_8K_dated-2023-05-05.pdf", "--json", store=store)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "file_name": "PEPSICO_2023_8K_dated-2023-05-05.pdf",
        "removed_nodes": len(tree),
    }
    names = {d["file_name"] for d in json.loads(drag("docs", "--json", store=store).stdout)}
    assert "PEPSICO_2023_8K_dated-2023-05-05.pdf" not in names
    missing = drag("tree", "PEPSICO_2023_8K_dated-2023-05-05.pdf", store=store)
    assert missing.returncode == 2 and "no document named" in missing.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["search", "a question"],
        ["docs"],
        ["tree", "x.pdf"],
        ["remove", "x.pdf"],
        ["page", "x.pdf", "1"],
        ["mcp"],
    ],
)
def test_read_commands_refuse_a_missing_index_and_create_nothing(tmp_path: Path, args: list[str]) -> None:
    for folder in (tmp_path / "typo" / "qdrant", tmp_path / "empty"):
        before = sorted(tmp_path.rglob("*"))
        done = drag(*args, "--store", str(folder), store=tmp_path / "unused")
        assert done.returncode == 2
        assert f"no index at {folder}: ingest first or pass --store" in done.stderr
        assert sorted(tmp_path.rglob("*")) == before, "nothing is created"
        (tmp_path / "empty").mkdir(exist_ok=True)


def test_result_lines_come_as_each_file_finishes_and_a_missing_file_once(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-file.pdf"
    with subprocess.Popen(
        [sys.executable, "-m", "drag_core", "ingest", str(missing), *map(str, THREE_PDFS[:2])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env({"DRAG_STORE": str(tmp_path / "qdrant")}),
        cwd=REPO,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        assert first.startswith("no-such-file.pdf: FAILED")
        second = process.stdout.readline()
        assert second.startswith("AMCOR_2022_8K_dated-2022-07-01.pdf: indexed")
        assert process.poll() is None, "the first results are printed while later files are still ingesting"
        rest, errors = process.communicate(timeout=600)
    assert rest.startswith("PEPSICO")
    assert (first + second + rest + errors).count("file not found") == 1, "reported once"


def test_quiet_prints_no_progress(tmp_path: Path) -> None:
    done = drag("ingest", "--quiet", str(THREE_PDFS[1]), store=tmp_path / "qdrant")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("PEPSICO_2023_8K_dated-2023-05-05.pdf: indexed")


def test_help_describes_every_strategy_and_knob_with_its_default() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "drag_core", "search", "--help"],
        capture_output=True,
        text=True,
        env=child_env({"COLUMNS": "200"}),
        cwd=REPO,
    )
    text = " ".join(done.stdout.split())
    for name, strategy in STRATEGIES.items():
        assert f"{name} {strategy_description(strategy)}" in text
    defaults = SearchParams()
    for field in fields(SearchParams):
        value = getattr(defaults, field.name)
        flag = "--knee" if field.name == "knee_method" else "--" + field.name.replace("_", "-")
        shown = f"DRAG_RRF_K or {value}" if field.name == "rrf_k" else str(value).lower()
        assert re.search(rf"{flag} \S+ .*?\(default: {re.escape(shown)}\)", text), field.name
    assert "``" not in done.stdout, "no raw reST"


def test_search_options_default_to_the_settings_search_parameters() -> None:
    args = build_parser().parse_args(["search", "a question"])
    assert search_params(args, SearchParams()) == SearchParams()
    assert search_params(args, SearchParams(rrf_k=30, max_keep=7)) == SearchParams(rrf_k=30, max_keep=7)
    changed = build_parser().parse_args(
        ["search", "q", "--sensitivity", "2", "--max-keep", "none", "--knee", "gap"]
    )
    assert search_params(changed, SearchParams(rrf_k=30)) == SearchParams(
        sensitivity=2.0, max_keep=None, knee_method="gap", rrf_k=30
    ), "an explicit none wins over the default 5"


def test_every_command_takes_json() -> None:
    parser = build_parser()
    for argv in (
        ["ingest", "a.pdf"],
        ["search", "q"],
        ["docs"],
        ["tree", "a"],
        ["remove", "a"],
        ["page", "a", "1"],
    ):
        assert parser.parse_args([*argv, "--json"]).json is True
    for argv in (["eval", "d"], ["sweep", "d", "--param", "top_k", "--values", "1"]):
        assert parser.parse_args([*argv, "--json", "out.json"]).json == Path("out.json")


def test_sweep_writes_its_numbers_and_plot_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_evaluation import write_page_dataset

    from drag_core.cli import main

    dataset = write_page_dataset(tmp_path / "tiny-pages")
    monkeypatch.chdir(tmp_path)
    for name, value in child_env().items():
        monkeypatch.setenv(name, value)
    argv = ["sweep", str(dataset), "--index", str(tmp_path / "index"), "--strategies", "flat"]
    assert main([*argv, "--param", "top_k", "--values", "1", "2"]) == 0
    written = tmp_path / "data" / "eval" / "sweeps" / "tiny-pages-top_k"
    report = json.loads(written.with_suffix(".json").read_text())
    assert set(report["strategies"]) == {"flat top_k=1", "flat top_k=2"}
    page = written.with_suffix(".html").read_text()
    assert "<svg" in page and "flat top-k" in page and "<script" not in page, "a self-contained chart"
    assert page.count("<circle") >= 2 + 2, "the two swept points and the flat curve's"
