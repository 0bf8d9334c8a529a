"""The app's words and bookkeeping (``drag_core.app``): configuration from secrets, upload bookkeeping, progress,
settings without secrets."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import FINANCE

from drag_core.app.compare import knob_readers
from drag_core.app.display import describe_settings, escape_markdown, public_url, stale_warning
from drag_core.app.environment import app_env
from drag_core.app.glossary import KNOBS, METRICS, PINNED, SENSITIVITY_WORDS, TERMS, knob_help, knob_label
from drag_core.app.sample import SAMPLE_PDF, sample_on_start
from drag_core.app.uploads import unchanged_report
from drag_core.config import Bm25Params, Settings
from drag_core.engine import Engine
from drag_core.knee import WITHDRAWN
from drag_core.knobs import withdrawn_words
from drag_core.llm.answer import citations
from drag_core.llm.config import LLMConfig
from drag_core.types import Node


def test_secrets_lie_over_the_environment() -> None:
    env = app_env(
        {"DRAG_RRF_K": 30, "DRAG_STORE": "/x", "section": {"nested": "ignored"}},
        {"DRAG_STORE": "/y", "A": "1"},
    )
    assert env == {"DRAG_STORE": "/x", "A": "1", "DRAG_RRF_K": "30"}


def test_sample_on_start_unless_off() -> None:
    assert SAMPLE_PDF.is_file()
    assert sample_on_start(Settings.from_env({})) and sample_on_start(
        Settings.from_env({"DRAG_SAMPLE": "auto"})
    )
    assert not sample_on_start(Settings.from_env({"DRAG_SAMPLE": "OFF "}))


def test_an_unchanged_upload_is_recognised_without_parsing(small_engine: Engine) -> None:
    documents = small_engine.documents()
    info = documents[0]
    data = (FINANCE / info.file_name).read_bytes()
    report = unchanged_report(documents, f"C:\\Users\\me\\{info.file_name}", data)
    assert report is not None and report.status == "unchanged"
    assert (report.pages, report.nodes, report.doc_id) == (info.pages, info.nodes, info.doc_id)
    assert report.line().startswith(f"{info.file_name}: unchanged, already indexed")
    assert unchanged_report(documents, info.file_name, data + b"\n") is None
    assert unchanged_report(documents, "renamed.pdf", data) is None
    stale = [replace(d, current=False) if d is info else d for d in documents]
    assert unchanged_report(stale, info.file_name, data) is None, "a stale version is rebuilt, not skipped"
    assert stale_warning(documents) is None
    every = stale_warning([replace(d, current=False) for d in documents])
    assert every is not None and every.startswith(
        f"{len(documents)} of {len(documents)} documents were indexed"
    )
    assert "so their scores" in every and "Upload them again to rebuild them: " in every
    assert stale_warning(stale) == (
        f"1 of {len(documents)} documents was indexed with other vector settings (vector policy or BM25 "
        "constants) than the current ones, so its scores do not compare fairly with the others'. Upload it "
        f"again to rebuild it: {info.file_name}"
    )


@pytest.mark.parametrize(
    "text", ["*bold* _it_ [link](http://x) ![img](http://y) `code` # h <b>x</b> $x$ :red[a]"]
)
def test_escape_markdown_escapes_every_control_character(text: str) -> None:
    escaped = escape_markdown(text)
    for char in "*_[]()!`#<>$:":
        assert char not in escaped.replace("\\" + char, "")
    assert escaped.replace("\\", "") == text


def test_public_url_drops_credentials_and_query() -> None:
    assert (
        public_url("https://user:pw@qdrant.example:6333/base?api-key=k#f")
        == "https://qdrant.example:6333/base"
    )
    assert public_url("localhost:6333") == "http://localhost:6333"


def test_describe_settings_hides_keys(tmp_path: Path) -> None:
    server = Settings(qdrant_url="https://u:p@db.example:6333", qdrant_api_key="qk-secret")
    llm = LLMConfig(base_url="https://llm.example/v1", model="m", api_key="sk-secret")
    rows = dict(describe_settings(server, llm))
    assert rows["Index"] == "Qdrant server at https://db.example:6333"
    assert rows["Qdrant API key"] == rows["LLM API key"] == "set (hidden)"
    assert "secret" not in repr(rows) and "u:p" not in repr(rows)
    local = dict(describe_settings(Settings(store=str(tmp_path / "q")), None))
    assert local["Index"] == f"embedded Qdrant folder {(tmp_path / 'q').resolve()}"
    assert local["Answers"] == "off" and "Engine" not in local
    tuned = Settings(store=str(tmp_path / "q"), bm25=Bm25Params(k1=0.9, b=0.4, avg_len=210.5))
    labelled = dict(describe_settings(tuned, None, "Qdrant Edge (embedded)"))
    assert labelled["Engine"] == "Qdrant Edge (embedded)"
    assert labelled["BM25 constants"] == "k1=0.9,b=0.4,avg_len=210.5"
    assert dict(describe_settings(Settings(store=":memory:"), None))["Index"].startswith("in memory")


def test_citations_merge_consecutive_pages() -> None:
    def page(name: str, number: int) -> Node:
        return Node(number, 0, [], 0, "d", name, number, number, [], "")

    pages = [page("a.pdf", 3), page("a.pdf", 4), page("a.pdf", 5), page("a.pdf", 9), page("b.pdf", 10)]
    assert citations(pages) == ["[a.pdf p.3–5]", "[a.pdf p.9]", "[b.pdf p.10]"]
    assert citations([]) == []


def test_every_knob_says_in_one_sentence_what_it_does_and_who_reads_it() -> None:
    for key, knob in KNOBS.items():
        assert knob.does.endswith(".") and ". " not in knob.does.rstrip("."), key  # one sentence
        pinned = f" {PINNED}" if knob.pinned else ""
        withdrawn = (
            f" {withdrawn_words()}"
            if key in ("knee_method", "score_source") and any(WITHDRAWN.values())
            else ""
        )
        assert knob_help(key) == f"{knob.does} {knob_readers(knob.field)}{withdrawn}{pinned}"
        assert knob_label(key) == knob.label
    assert knob_help("roots").endswith("Read by branch, beam, adaptive.")
    assert knob_label("roots") == "Seed pages (adaptive) / roots (branch, beam)"
    for term in ("levels", "fallbacks", "parent_dense", "parent_sparse"):
        assert TERMS[term]
    assert "same number of pages" in METRICS["gain_vs_flat"]
    assert "for every detector a higher S keeps as many items or more" in knob_help(
        "sensitivity"
    )  # one direction
    for detector, words in SENSITIVITY_WORDS.items():  # the sensitivity says what S means for the detector
        assert f"The {detector} detector's S: {words}" in knob_help("sensitivity", detector)
        for curve, why in WITHDRAWN[detector].items():  # the curve says why the detector is not offered on it
            assert f"{detector} is not offered on the" in knob_help(
                "score_source", detector
            ) and why in knob_help("score_source", detector), curve
            assert why not in knob_help("score_source", "relative"), "only the chosen detector's reasons"
