"""Nothing leaked: the API key never reaches a log, a payload, a cache, an export, an error message or the CLI's
output, even from an endpoint that echoes it back; uploads are size-limited; the app listens on 127.0.0.1 only;
document text and file names are drawn as text, never as HTML.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FINANCE, REPO, child_env, no_exceptions, run_cli
from fake_llm import FakeLLM, PerPrompt, Reply, Request, closed_port, completion, error

from drag_core.app.compare import Comparer, export_tables, to_csv, to_json
from drag_core.config import Settings
from drag_core.engine import Engine, default_summarizer
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.llm.config import LLMConfig
from drag_core.models.embeddings import Embedder
from drag_core.search import STRATEGIES, SearchParams

SENTINEL = "sk-SENTINEL-7f3a9c"
PDF = FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"  # 5 pages: 6 LLM calls


def _auth(request: Request) -> str:
    return request.headers.get("authorization", "")


def _valid_echo(request: Request) -> Reply:
    """A reply that fits the requested schema, with the key in the summary (and keywords, when asked)."""
    data: dict[str, object] = {"summary": f"Your key is {_auth(request)}."}
    if "keywords" in request.schema.get("properties", {}):
        data["keywords"] = [_auth(request), "key"]
    return completion(json.dumps(data))


# Every reply hands the caller's Authorization header (the key) back, in every place a reply can carry it.
ECHOES: list[list[Reply | Callable[[Request], Reply]]] = [
    [lambda r: error(500, f"upstream failed for {_auth(r)} on {json.dumps(r.body)[:300]}")],
    [lambda r: error(401, f"Incorrect API key provided: {_auth(r)}")],
    [_valid_echo],
    [lambda r: completion(f"not JSON, but here is your key: {_auth(r)}")],
    [
        lambda r: Reply(
            status=429, body=f"<html>slow down, {_auth(r)}</html>".encode(), content_type="text/html"
        )
    ],
    [lambda r: Reply(body=f"<html>proxy page for {_auth(r)}</html>".encode())],
]


def llm_env(url: str) -> dict[str, str]:
    return {
        "DRAG_LLM_BASE_URL": url,
        "DRAG_LLM_API_KEY": SENTINEL,
        "DRAG_LLM_MODEL": "fake-model",
        "DRAG_LLM_MAX_RETRIES": "1",
        "DRAG_LLM_TIMEOUT": "5",
    }


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def assert_no_sentinel(where: str, text: str | bytes) -> None:
    found = SENTINEL.encode() in text if isinstance(text, bytes) else SENTINEL in text
    assert not found, f"the API key leaked into {where}"


def test_the_api_key_stays_secret_through_ingest_search_and_export(
    make_engine: Callable[..., Engine], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # the openai and httpx clients' debug records too
    cache = tmp_path / "description-cache.sqlite"
    with FakeLLM(PerPrompt(ECHOES)) as fake:
        summarizer = default_summarizer(LLMConfig.from_env(llm_env(fake.url)))
        engine = make_engine(store=str(tmp_path / "qdrant"), cache_path=cache, summarizer=summarizer)
        report = engine.ingest_paths([PDF])[0]
    assert report.status == "indexed", report.line()
    assert all(_auth(r) == f"Bearer {SENTINEL}" for r in fake.requests), "the key was sent, and echoed back"
    nodes = engine.tree(PDF.name, with_text=True)
    assert report.fallbacks == len(ECHOES) - 1, "one echo is a valid reply"
    assert any("***" in n.summary for n in nodes), "the echoed key was redacted, not dropped silently"

    comparison = Comparer().compare(engine, "annual meeting of shareholders", STRATEGIES, SearchParams())
    outputs = {
        "the ingest report": report.line() + json.dumps(report.__dict__),
        "the payloads": json.dumps([n.payload() for n in nodes]),
        "the documents": json.dumps([d.__dict__ for d in engine.documents()]),
        "a search": json.dumps(engine.search("dividend", "adaptive").to_json()),
        "the JSON export": to_json(comparison),
        "the CSV export": "".join(to_csv(rows) for rows in export_tables(comparison).values()),
        "the settings' repr": repr(engine.settings) + repr(summarizer.cfg),  # type: ignore[attr-defined]
        "the log": caplog.text + "".join(str(r.args) for r in caplog.records),
    }
    for where, text in outputs.items():
        assert_no_sentinel(where, text)
    engine.close()
    assert cache.is_file()
    for path, data in files_under(tmp_path).items():  # the index folder and the description cache
        assert_no_sentinel(path, data)


def test_the_api_key_stays_secret_through_the_cli(tmp_path: Path) -> None:
    store = tmp_path / "index" / "qdrant"
    with FakeLLM(PerPrompt(ECHOES)) as fake:
        env = {**llm_env(fake.url), "DRAG_STORE": str(store)}
        runs = {"ingest": run_cli("ingest", str(PDF), env=env)}
        assert fake.requests, "the CLI asked the LLM"
    runs["search"] = run_cli("search", "--json", "dividend per share", env=env)
    runs["tree"] = run_cli("tree", "--json", PDF.name, env=env)
    down = {"QDRANT_URL": f"http://127.0.0.1:{closed_port()}", "QDRANT_API_KEY": SENTINEL}
    runs["unreachable server"] = run_cli("docs", env=down)

    assert [runs[name].returncode for name in runs] == [0, 0, 0, 2]
    assert "LLM" in runs["ingest"].stdout, "the report line counts the LLM fallbacks"
    for name, done in runs.items():
        assert_no_sentinel(f"the stdout of {name}", done.stdout)
        assert_no_sentinel(f"the stderr of {name}", done.stderr)
    for path, data in files_under(tmp_path).items():
        assert_no_sentinel(path, data)


def test_the_app_listens_on_localhost_only_and_limits_uploads() -> None:
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    server = config["server"]
    assert server["address"] == "127.0.0.1"
    assert 0 < server["maxUploadSize"] <= Settings().max_file_bytes / 2**20, (
        "the core accepts what the app does"
    )
    assert server.get("enableXsrfProtection", True) and server.get("enableCORS", True)

    shown = subprocess.run(
        [sys.executable, "-m", "streamlit", "config", "show"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={k: v for k, v in child_env().items() if not k.startswith("STREAMLIT_")},
        timeout=300,
    )
    effective = dict(
        line.split(" = ", 1)
        for line in shown.stdout.splitlines()
        if " = " in line and not line.startswith("#")
    )
    assert effective["address"] == '"127.0.0.1"', "what `streamlit run app.py` binds to by default"
    assert effective["maxUploadSize"] == str(server["maxUploadSize"])


def test_the_core_refuses_files_over_the_size_limit(embedder: Embedder, tmp_path: Path) -> None:
    settings = Settings.from_env(env={"DRAG_MAX_FILE_MB": "0.01"}, store=":memory:", cache_path=None)
    engine = Engine(settings, summarizer=ExtractiveSummarizer(), embedder=embedder)
    big = tmp_path / "big.txt"
    big.write_bytes(b"lorem ipsum " * 2000)
    try:
        reports = [engine.ingest_bytes(big.name, big.read_bytes()), *engine.ingest_paths([big])]
        assert [r.status for r in reports] == ["failed", "failed"]
        assert all(r.reason.startswith("file too large") for r in reports)
        assert engine.store.count() == 0
    finally:
        engine.close()


MARKUP = (
    '<script>document.title="pwned"</script><img src=x onerror=alert(1)> **bold** [link](http://x.invalid)'
)


def test_document_text_and_file_names_are_drawn_as_text(
    make_engine: Callable[..., Engine], tmp_path: Path, open_app: Callable[..., object]
) -> None:
    name = "<img src=x onerror=alert(1)> **report** [x](y).txt"
    store = str(tmp_path / "qdrant")
    engine = make_engine(store=store)
    assert engine.ingest_bytes(name, f"{MARKUP}\n\nQuarterly notes on tea prices.".encode()).ok
    engine.close()

    at = open_app(store, "pages/tree.py")
    no_exceptions(at)
    texts = [t.value for t in at.text]  # type: ignore[attr-defined]
    assert any(MARKUP in t for t in texts), "the page text is shown verbatim, as text"
    rendered = [m.value for m in at.markdown] + [c.value for c in at.caption]  # type: ignore[attr-defined]
    assert not any(re.search(r"(?<!\\)<(script|img)", m) for m in rendered), "no markup passes as HTML"
    assert name in at.selectbox[0].options  # type: ignore[attr-defined]
