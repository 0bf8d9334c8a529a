"""``drag mcp`` with the official MCP client, on a real index of the bundled sample PDF: in-process (the
server of ``build_server``), over stdio (``python -m drag_core mcp``) and over streamable HTTP (``--http``)."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from conftest import REPO, SAMPLE_PDF, child_env
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.integrations.mcp_server import MAX_PAGES, build_server, http_address
from drag_core.models.embeddings import Embedder
from drag_core.search import SearchParams

QUERY = "How do I read a CSV file into a data frame?"
READ_TOOLS = {"search", "page", "documents", "tree"}


@pytest.fixture(scope="module")
def index(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An embedded index of the sample (closed: open a copy)."""
    folder = tmp_path_factory.mktemp("mcp") / "qdrant"
    engine = _engine(folder, embedder)
    (report,) = engine.ingest_paths([SAMPLE_PDF])
    engine.close()
    assert report.ok, report.line()
    return folder


def _engine(folder: Path, embedder: Embedder) -> Engine:
    settings = Settings.from_env(env={}, store=str(folder), cache_path=None)
    return Engine(settings, embedder=embedder, summarizer=ExtractiveSummarizer())


@pytest.fixture(scope="module")
def engine(index: Path, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    copy = shutil.copytree(index, tmp_path_factory.mktemp("mcp-engine") / "qdrant")
    engine = _engine(copy, embedder)
    yield engine
    engine.close()


def call(server: Any, *calls: tuple[str, dict[str, Any]]) -> list[CallToolResult]:
    """Each tool call's result, from one session of the official client (in-process, or a transport)."""

    async def run() -> list[CallToolResult]:
        async with Client(server) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(run)


def tools(server: Any) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with Client(server) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    return anyio.run(run)


def test_the_client_lists_the_read_tools_with_their_schemas(engine: Engine) -> None:
    listed = tools(build_server(engine))
    assert set(listed) == READ_TOOLS, "no write tool unless enabled"
    for tool in listed.values():
        assert tool.annotations.read_only_hint is True, tool.name
        assert tool.output_schema and tool.description
    assert "question" in listed["search"].input_schema["required"]


def test_search_returns_the_strategys_pages_cited_with_the_knees_decision(engine: Engine) -> None:
    server = build_server(engine)
    (found,) = call(server, ("search", {"question": QUERY, "sensitivity": 0.5}))
    expected = engine.search(QUERY, "adaptive", engine.settings.search.with_(sensitivity=0.5))
    assert not found.is_error
    data = found.structured_content
    jsonschema.validate(data, tools(server)["search"].output_schema)
    hits = data["hits"]
    assert [(h["page_start"], h["page_end"]) for h in hits] == [
        (n.page_start, n.page_end) for n in expected.nodes
    ]
    assert data["kept"] == len(expected.nodes) and data["strategy"] == "adaptive"
    assert data["knee"].startswith(f"kept {len(expected.nodes)} of ") and "knee at" in data["knee"]
    text = found.content[0].text
    assert text.splitlines()[0] == f"adaptive: {data['knee']}"
    for hit in hits:
        assert hit["citation"] == f"[R-data.pdf p.{hit['page_start']}]" and hit["citation"] in text
        assert hit["snippet"] or hit["summary"]
        assert hit["cosine"] is not None and hit["score"] == pytest.approx(
            expected.scores[_id(expected, hit)]
        )
    assert any("read.csv" in h["snippet"] or "read.table" in h["snippet"] for h in hits)


def _id(result: Any, hit: dict[str, Any]) -> int:
    return next(n.id for n in result.nodes if n.page_start == hit["page_start"])


def test_knobs_and_strategies_reach_the_search(engine: Engine) -> None:
    (found,) = call(
        build_server(engine), ("search", {"question": QUERY, "strategy": "flat", "knobs": {"top_k": 3}})
    )
    expected = engine.search(QUERY, "flat", SearchParams(top_k=3))
    assert [h["page_start"] for h in found.structured_content["hits"]] == [
        n.page_start for n in expected.nodes
    ]
    assert found.structured_content["knee"] == "kept 3 nodes: flat cuts no ranking at a knee"


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        ("search", {"question": QUERY, "strategy": "nope"}, "unknown strategy 'nope'; choose from flat"),
        ("search", {"question": QUERY, "knobs": {"top_kk": 3}}, "unknown knob top_kk; knobs are beam_width"),
        ("search", {"question": QUERY, "knobs": {"knee_method": "x"}}, "unknown knee method 'x'"),
        ("search", {"question": QUERY, "knobs": {"top_k": 0}}, "must be ≥ 1"),
        ("search", {"question": QUERY, "knobs": {"top_k": "many"}}, "knobs.top_k"),
        ("search", {"question": QUERY, "max_pages": MAX_PAGES + 1}, "max_pages"),
        ("search", {"question": "   "}, "the query is empty"),
        ("search", {}, "question"),
        ("page", {"file": "nope.pdf", "page": 1}, "no document named 'nope.pdf' in the index"),
        ("page", {"file": "R-data.pdf", "page": 99}, "page 99 does not exist: R-data.pdf has 41 pages"),
        ("page", {"file": "R-data.pdf", "page": 0}, "page 0 does not exist"),
        ("page", {"file": "../../etc/passwd", "page": 1}, "no document named '../../etc/passwd'"),
        ("tree", {"file": "nope.pdf"}, "no document named 'nope.pdf'"),
        ("ingest", {"path": str(SAMPLE_PDF)}, "Unknown tool: ingest"),
    ],
)
def test_bad_arguments_are_tool_errors_not_crashes(
    engine: Engine, tool: str, args: dict, message: str
) -> None:
    (found,) = call(build_server(engine), (tool, args))
    assert found.is_error
    text = found.content[0].text
    assert message in text and "Traceback" not in text and len(text.splitlines()) <= 5, text


def test_page_gives_the_text_with_the_matching_sentences_marked(engine: Engine) -> None:
    (found, plain) = call(
        build_server(engine),
        ("page", {"file": "R-data.pdf", "page": 36, "question": "convert Excel spreadsheets to CSV"}),
        ("page", {"file": "R-data.pdf", "page": 36}),
    )
    data = found.structured_content
    node = engine.page("R-data.pdf", 36)
    assert data["citation"] == "[R-data.pdf p.36]" and data["pages"] == 41 and not data["truncated"]
    assert "»" in data["text"] and data["text"].replace("»", "").replace("«", "") == node.text
    assert data["snippet"] and data["highlights"]
    assert all(f"»{node.text[start:end]}«" in data["text"] for start, end in data["highlights"])
    assert found.content[0].text.startswith("[R-data.pdf p.36] of 41")
    assert plain.structured_content["text"] == node.text


def test_every_answer_is_bounded(engine: Engine) -> None:
    (few, short, page, outline) = call(
        build_server(engine),
        ("search", {"question": QUERY, "max_pages": 2}),
        ("search", {"question": QUERY, "max_tokens": 100}),
        ("page", {"file": "R-data.pdf", "page": 12, "max_tokens": 100}),
        ("tree", {"file": "R-data.pdf", "max_tokens": 150}),
    )
    assert few.structured_content["pages"] == 2 and len(few.structured_content["hits"]) == 2
    assert few.structured_content["kept"] > 2 and "2 shown (max_pages 2" in few.content[0].text
    assert len(short.structured_content["hits"]) == 1, "the best hit is always shown"
    assert page.structured_content["truncated"] and len(page.structured_content["text"]) < 450
    tree = outline.structured_content
    assert tree["total"] == 56 and 0 < len(tree["nodes"]) < 56 and tree["lowest_level_shown"] > 0
    assert {n["level"] for n in tree["nodes"]} == set(range(tree["lowest_level_shown"], tree["levels"]))


def test_documents_and_tree(engine: Engine) -> None:
    (docs, tree) = call(build_server(engine), ("documents", {}), ("tree", {"file": "R-data.pdf"}))
    assert docs.structured_content["documents"] == [
        {"file_name": "R-data.pdf", "pages": 41, "nodes": 56, "levels": 4, "sections": 43, "current": True}
    ]
    assert docs.content[0].text.splitlines()[1].startswith("R-data.pdf — 41 pages, 56 nodes")
    assert len(tree.structured_content["nodes"]) == 56
    assert tree.content[0].text.splitlines()[1].split()[:2] == ["p.1–41", "L3"]


def _contents(folder: Path) -> dict[str, str]:
    """Every file of a store and its hash (SQLite's -wal/-shm companions, created on open, left out); a JSON
    file by its content, keys sorted (Qdrant Edge writes a segment's ``segment.json`` again on every open, its
    keys in another order each time once the collection holds a multivector)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(
            json.dumps(json.loads(p.read_bytes()), sort_keys=True).encode()
            if p.suffix == ".json"
            else p.read_bytes()
        ).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(("-wal", "-shm"))
    }


def test_a_read_only_server_changes_nothing(index: Path, embedder: Embedder, tmp_path: Path) -> None:
    folder = Path(shutil.copytree(index, tmp_path / "qdrant"))
    _engine(folder, embedder).close()  # Qdrant Edge folds its journals into its files on the first open
    before = _contents(folder)
    engine = _engine(folder, embedder)
    try:
        results = call(
            build_server(engine),
            ("search", {"question": QUERY}),
            ("page", {"file": "R-data.pdf", "page": 3, "question": "csv"}),
            ("documents", {}),
            ("tree", {"file": "R-data.pdf"}),
            ("ingest", {"path": str(SAMPLE_PDF)}),
        )
    finally:
        engine.close()
    assert [r.is_error for r in results] == [False, False, False, False, True]
    assert _contents(folder) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qdrant"], "nothing written beside the store"


def test_ingest_only_when_enabled_and_only_under_its_folders(
    embedder: Embedder, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    allowed = tmp_path / "inbox"
    allowed.mkdir()
    (allowed / "notes.md").write_text("# Knees\n\nA knee point cuts a ranking where its scores flatten.\n")
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.md"
    outside.write_text("# Secret\n\nNot for the index.\n")
    (allowed / "link.md").symlink_to(outside)
    engine = _engine(tmp_path / "qdrant", embedder)
    try:
        server = build_server(engine, ingest_folders=[allowed])
        assert set(tools(server)) == READ_TOOLS | {"ingest"}
        refused = call(
            server,
            ("ingest", {"path": str(outside)}),
            ("ingest", {"path": "link.md"}),
            ("ingest", {"path": "../inbox/../../elsewhere0/secret.md"}),
            ("ingest", {"path": str(allowed / "missing.pdf")}),
        )
        assert all(r.is_error for r in refused)
        assert "is outside the folders this server may ingest from" in refused[0].content[0].text
        assert "is outside the folders" in refused[1].content[0].text, "a link is followed before the check"
        assert "no such file" in refused[3].content[0].text
        assert engine.documents() == []
        (done, docs) = call(server, ("ingest", {"path": "notes.md"}), ("documents", {}))
    finally:
        engine.close()
    assert not done.is_error and done.structured_content["ok"], done.content
    assert [d["file_name"] for d in docs.structured_content["documents"]] == ["notes.md"]


def test_http_address() -> None:
    assert http_address("8765") == ("127.0.0.1", 8765)
    assert http_address(":8765") == ("127.0.0.1", 8765)
    assert http_address("0.0.0.0:80") == ("0.0.0.0", 80)
    assert http_address("[::1]:9000") == ("::1", 9000)
    for bad in ("", "host", "host:0", "host:99999", "host:port"):
        with pytest.raises(ValueError, match="--http wants HOST:PORT"):
            http_address(bad)


def test_over_stdio_the_cli_serves_the_store(index: Path, tmp_path: Path) -> None:
    folder = shutil.copytree(index, tmp_path / "qdrant")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "drag_core", "mcp", "--store", str(folder)],
        env=child_env(),
        cwd=REPO,
    )
    listed = tools(params)
    (found, bad) = call(
        params, ("search", {"question": QUERY}), ("search", {"question": QUERY, "strategy": "nope"})
    )
    assert set(listed) == READ_TOOLS
    assert found.structured_content["hits"] and "[R-data.pdf p." in found.content[0].text
    assert bad.is_error and "unknown strategy" in bad.content[0].text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_over_streamable_http_on_the_loopback(index: Path, tmp_path: Path) -> None:
    folder = shutil.copytree(index, tmp_path / "qdrant")
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "drag_core", "mcp", "--store", str(folder), "--http", str(port)],
        env=child_env(),
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            time.sleep(0.2)
        (found,) = call(f"http://127.0.0.1:{port}/mcp", ("search", {"question": QUERY, "max_pages": 3}))
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert 1 <= found.structured_content["pages"] <= 3 and "[R-data.pdf p." in found.content[0].text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--http", "nowhere"], "error: --http wants HOST:PORT or PORT, not 'nowhere'"),
        (["--allow-ingest", "/no/such/folder"], "error: --allow-ingest /no/such/folder: no such folder"),
    ],
)
def test_the_cli_refuses_bad_options_in_one_line(index: Path, args: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "drag_core", "mcp", "--store", str(index), *args],
        capture_output=True,
        text=True,
        env=child_env(),
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr.strip() == message
