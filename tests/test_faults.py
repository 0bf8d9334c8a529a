"""Faults around the pipeline, for real: an LLM endpoint that fails in every way it can, a store folder held by
another process, a Qdrant server that does not answer, and a process killed with SIGKILL in the middle of
writing a document.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import FINANCE, REPO, child_env, run_cli
from fake_llm import FakeLLM, PerPrompt, Reply, closed_port, completion, error, valid_reply
from pdf_factory import numbered_pages, text_pdf

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.describe.openai_llm import OpenAISummarizer
from drag_core.ingest.loading import load_path
from drag_core.llm.client import BACKOFF_BASE_S
from drag_core.llm.config import LLMConfig
from drag_core.store import UPSERT_BATCH, open_store
from drag_core.types import Node

LLM_PDF = FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf"  # 9 distinct pages: 12 LLM calls with the groups
SMALL_PDF = FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
TIMEOUT_S = 3.0
RETRIES = 2
# fault (as the node's fallback_reason names it) → the replies to every attempt of one prompt
FOREVER: dict[str, list[Reply]] = {
    "HTTP 429": [error(429, "rate limit reached")],
    "HTTP 500": [error(500, "internal server error")],
    "timeout": [Reply(delay_s=TIMEOUT_S * 2, content="{}")],
    "invalid JSON": [completion('{"summary": "cut off in the mid')],
    "violates schema": [completion('{"summary": 42, "keywords": "none"}')],
    "empty reply": [completion("")],
    "malformed response body": [Reply(body=b"<html>502 Bad Gateway</html>")],
}
RECOVERING = [[error(429, "slow down"), valid_reply], [error(503, "warming up"), valid_reply]]


def llm_config(base_url: str, **changes: object) -> LLMConfig:
    values: dict[str, object] = {"base_url": base_url, "model": "fake-model", "api_key": "sk-test"}
    return LLMConfig(**{**values, "timeout_s": TIMEOUT_S, "max_retries": RETRIES, **changes})  # type: ignore[arg-type]


def test_llm_faults_fall_back_node_by_node_and_the_document_is_indexed(
    make_engine: Callable[..., Engine],
) -> None:
    plan = PerPrompt([*FOREVER.values(), *RECOVERING])
    with FakeLLM(plan) as fake:
        engine = make_engine(summarizer=OpenAISummarizer(llm_config(fake.url, concurrency=4)))
        report = engine.ingest_paths([LLM_PDF])[0]

    assert report.status == "indexed", report.line()
    nodes = engine.tree(LLM_PDF.name)
    fallen = [n for n in nodes if n.fallback_reason]
    assert report.fallbacks == len(fallen) == len(FOREVER)
    assert engine.documents()[0].fallbacks == len(FOREVER)
    assert next(n for n in nodes if n.is_root).extra["fallbacks"] == len(FOREVER)
    for fault in FOREVER:
        assert sum(fault in str(n.fallback_reason) for n in fallen) == 1, fault
    assert all(n.summary_source == ExtractiveSummarizer.identity and n.summary for n in fallen)
    answered = [n for n in nodes if not n.fallback_reason]
    assert all(n.summary_source.startswith("openai:fake-model@127.0.0.1") for n in answered)
    assert all(n.summary.startswith("Fake LLM summary") for n in answered)

    # bounded retries, with a backoff pause between the attempts of one prompt
    scripted = {prompt: fate for prompt, fate in plan.fates.items() if fate is not None}
    assert len(scripted) == len(FOREVER) + len(RECOVERING)
    for prompt, fate in plan.fates.items():
        expected = 1 if fate is None else RETRIES + 1 if fate < len(FOREVER) else 2
        assert plan.attempts[prompt] == expected
        arrivals = [r.at for r in fake.requests if r.prompt == prompt]
        assert all(later - earlier >= BACKOFF_BASE_S / 2 for earlier, later in zip(arrivals, arrivals[1:]))


def test_an_llm_endpoint_that_does_not_answer_costs_the_summaries_not_the_document(
    make_engine: Callable[..., Engine],
) -> None:
    config = llm_config(f"http://127.0.0.1:{closed_port()}/v1", max_retries=1)
    engine = make_engine(summarizer=OpenAISummarizer(config))
    report = engine.ingest_paths([SMALL_PDF])[0]

    assert report.status == "indexed", report.line()
    nodes = engine.tree(SMALL_PDF.name)
    assert report.fallbacks == len(nodes) == report.nodes
    assert all("connection error" in str(n.fallback_reason) for n in nodes)


# -- the store --------------------------------------------------------------------------------------------

HOLDER = """
import sys
from drag_core.config import Settings
from drag_core.store import open_store
store = open_store(Settings.from_env(env={}, store=sys.argv[1], engine=sys.argv[2]))
store.ensure_collection(384)
print("holding", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def held_store(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Path, str]]:
    """A store folder kept open by another process (an app, say) until the test ends."""
    folder, engine = tmp_path / "qdrant", request.param
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder), engine],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=child_env(),
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        yield folder, engine
    finally:
        holder.communicate(timeout=120)  # closing its stdin lets it exit


@pytest.mark.parametrize("held_store", ["edge", "local"], indirect=True)
def test_a_store_folder_held_by_another_process_gives_one_clear_line(held_store: tuple[Path, str]) -> None:
    folder, engine = held_store
    done = run_cli("ingest", str(SMALL_PDF), env={"DRAG_STORE": str(folder), "DRAG_ENGINE": engine})

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [done.stderr.strip()], "one line"
    assert done.stderr.startswith(f"error: the index folder {folder} is in use by another process")


def test_a_qdrant_server_that_does_not_answer_gives_one_clear_line() -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    done = run_cli("docs", env={"QDRANT_URL": url})

    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()], "one line"
    assert done.stderr.startswith(f"error: the Qdrant server at {url} does not answer")


# Real ingests in a child process, one file after another (``upload name=path`` arguments). During the last one
# the process SIGKILLs itself at a chosen engine call: right after ``_upsert`` returned (points durably written,
# the document's root not yet), or just before ``_delete`` (a new version written, the old one not yet removed).
KILLED_AT = """
import os, signal, sys
from pathlib import Path
from drag_core import Engine

store, method, *uploads = sys.argv[1:]
engine = Engine.from_env(store=store)
call = getattr(engine.store, method)
armed = False

def call_then_die(argument):
    if armed and method == "_delete":
        os.kill(os.getpid(), signal.SIGKILL)
    call(argument)
    if armed:
        os.kill(os.getpid(), signal.SIGKILL)

setattr(engine.store, method, call_then_die)
for number, upload in enumerate(uploads, start=1):
    name, path = upload.split("=", 1)
    armed = number == len(uploads)
    print(engine.ingest_bytes(name, Path(path).read_bytes()).line(), flush=True)
"""


def killed_at(method: str, folder: Path, store_engine: str, uploads: list[tuple[str, Path]]) -> list[str]:
    """Run ``KILLED_AT``; return the report lines printed before the kill."""
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AT, str(folder), method, *(f"{name}={path}" for name, path in uploads)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=child_env({"DRAG_ENGINE": store_engine}),
        timeout=900,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    return killed.stdout.splitlines()


def roots_as_left(folder: Path) -> tuple[list[Node], int]:
    """The roots and the point count of a store folder as a crash left it, before any recovery."""
    raw = open_store(Settings.from_env(env={}, store=str(folder)))
    try:
        return raw.roots(), raw.count()
    finally:
        raw.close()


def assert_every_document_whole(engine: Engine) -> None:
    docs = engine.documents()
    for doc in docs:
        assert len(engine.tree(doc.file_name)) == doc.nodes, doc.file_name
    assert engine.store.count() == sum(d.nodes for d in docs), "points of no complete document"


@pytest.mark.parametrize("store_engine", ["edge", "local"])
def test_sigkill_mid_write_leaves_the_document_whole_or_absent_and_it_can_be_ingested_again(
    tmp_path: Path, make_engine: Callable[..., Engine], store_engine: str
) -> None:
    folder = tmp_path / "qdrant"
    victim = tmp_path / "big report.pdf"
    victim.write_bytes(text_pdf(numbered_pages(110)))  # ~150 nodes: more than one write batch
    lines = killed_at("_upsert", folder, store_engine, [(SMALL_PDF.name, SMALL_PDF), (victim.name, victim)])
    assert len(lines) == 1 and lines[0].startswith(f"{SMALL_PDF.name}: indexed")

    roots, count = roots_as_left(folder)
    assert [r.file_name for r in roots] == [SMALL_PDF.name]
    assert count == roots[0].extra["nodes"] + UPSERT_BATCH, "the victim's first batch is on disk"

    engine = make_engine(store=str(folder))  # opening recovers
    assert [d.file_name for d in engine.documents()] == [SMALL_PDF.name]
    assert_every_document_whole(engine)

    again = engine.ingest_paths([SMALL_PDF, victim])
    assert [r.status for r in again] == ["unchanged", "indexed"], [r.line() for r in again]
    assert again[1].nodes > UPSERT_BATCH
    assert {d.file_name for d in engine.documents()} == {SMALL_PDF.name, victim.name}
    assert_every_document_whole(engine)


def test_sigkill_mid_replace_keeps_the_new_version_only(
    tmp_path: Path, make_engine: Callable[..., Engine]
) -> None:
    folder = tmp_path / "qdrant"
    old, new = FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf", SMALL_PDF
    lines = killed_at("_delete", folder, "edge", [("report.pdf", old), ("report.pdf", new)])
    assert len(lines) == 1 and lines[0].startswith("report.pdf: indexed")

    roots, _ = roots_as_left(folder)
    assert [r.file_name for r in roots] == ["report.pdf", "report.pdf"], "both versions were left whole"

    engine = make_engine(store=str(folder))  # opening recovers
    [document] = engine.documents()
    assert document.doc_id == load_path(new).doc_id
    assert_every_document_whole(engine)
    assert engine.ingest_bytes("report.pdf", new.read_bytes()).status == "unchanged"
