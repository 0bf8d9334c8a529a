"""Descriptions are cached by content hash + summariser identity: re-ingesting unchanged text costs no LLM call
and adds no point; changing one page re-describes only that page and its ancestors."""

from __future__ import annotations

import io
from pathlib import Path

from conftest import FINANCE
from fake_llm import FakeLLM, valid_reply

from drag_core.app.display import stale_warning
from drag_core.cli.output import console, docs_table
from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest import pipeline
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.ingest.describe.openai_llm import OpenAISummarizer
from drag_core.llm.config import LLMConfig

TOPICS = ["harbours", "glaciers", "orchards", "railways", "lighthouses", "bakeries"]


def _sections(changed: str | None = None) -> bytes:
    parts = []
    for topic in TOPICS:
        body = f"{changed} replaced this section. " if changed and topic == TOPICS[2] else ""
        parts.append(f"# {topic}\n\n{body}" + f"This section is about {topic} and their history. " * 45)
    return "\n\n".join(parts).encode()


def _engine(embedder, store: Path, url: str) -> Engine:
    settings = Settings.from_env(env={}, store=str(store), cache_path=store.parent / "cache.sqlite")
    summarizer = OpenAISummarizer(
        LLMConfig(base_url=url, model="fake", api_key="test-key-123", concurrency=2), ExtractiveSummarizer()
    )
    return Engine(settings, summarizer=summarizer, embedder=embedder)


def test_reingest_makes_no_llm_call_and_no_duplicate_point(embedder, tmp_path: Path) -> None:
    with FakeLLM(valid_reply) as fake:
        engine = _engine(embedder, tmp_path / "qdrant", fake.url)
        first = engine.ingest_bytes("topics.md", _sections())
        assert first.status == "indexed" and first.pages == 6 and first.fallbacks == 0
        calls, points = len(fake.requests), engine.store.count()
        assert calls == first.nodes  # one call per page and per parent
        assert points == first.nodes

        again = engine.ingest_bytes("topics.md", _sections())
        assert again.status == "unchanged"
        assert len(fake.requests) == calls and engine.store.count() == points
        engine.close()

        # a new process: the same store and cache on disk
        engine = _engine(embedder, tmp_path / "qdrant", fake.url)
        assert engine.ingest_bytes("topics.md", _sections()).status == "unchanged"
        assert len(fake.requests) == calls and engine.store.count() == points

        changed = engine.ingest_bytes("topics.md", _sections(changed="A new paragraph"))
        assert changed.status == "replaced"
        new_calls = len(fake.requests) - calls
        levels = max(n.level for n in engine.tree("topics.md"))
        assert new_calls == 1 + levels, "only the changed page and its ancestors are described again"
        assert engine.store.count() == changed.nodes, "the old version's nodes are gone"
        engine.close()


def test_reingesting_unchanged_files_parses_describes_and_embeds_nothing(embedder, tmp_path: Path) -> None:
    markdown = tmp_path / "topics.md"
    markdown.write_bytes(_sections())
    files = [FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf", markdown]
    with FakeLLM(valid_reply) as fake:
        engine = _engine(embedder, tmp_path / "qdrant", fake.url)
        embedded = embedder.embedded
        assert [r.status for r in engine.ingest_paths(files)] == ["indexed", "indexed"]
        assert engine.parser.parsed == 2 and fake.requests and embedder.embedded > embedded
        engine.close()

        # another process, and no page cache to answer for the parser: the index alone says "unchanged"
        settings = Settings.from_env(env={}, store=str(tmp_path / "qdrant"), cache_path=None)
        summarizer = OpenAISummarizer(LLMConfig(base_url=fake.url, model="fake"), ExtractiveSummarizer())
        engine = Engine(settings, summarizer=summarizer, embedder=embedder)
        calls, embedded = len(fake.requests), embedder.embedded
        again = [*engine.ingest_paths(files), engine.ingest_bytes(markdown.name, markdown.read_bytes())]
        assert [r.status for r in again] == ["unchanged"] * 3
        assert again[0].pages == 9 and again[0].nodes > 9
        assert engine.parser.parsed == 0, "no file parsed"
        assert len(fake.requests) == calls, "no LLM call"
        assert embedder.embedded == embedded, "nothing embedded"
        engine.close()


def test_an_index_built_by_an_older_tree_is_flagged_and_rebuilt_once(
    make_engine, monkeypatch, tmp_path
) -> None:
    monkeypatch.setattr(pipeline, "TREE_VERSION", "an-older-tree")
    engine = make_engine(str(tmp_path / "qdrant"), cache_path=tmp_path / "cache.sqlite")
    assert engine.ingest_bytes("topics.md", _sections()).status == "indexed"
    monkeypatch.undo()
    (info,) = engine.documents()
    assert not info.current and info.stale_reason == pipeline.StaleReason.OLDER_TREE
    shown = io.StringIO()
    console(shown).print(docs_table([info]))
    assert "older tree version: ingest again" in " ".join(shown.getvalue().split())
    assert "indexed by an older version of the tree" in (stale_warning([info]) or "")
    rebuilt = engine.ingest_bytes("topics.md", _sections())
    assert rebuilt.status == "replaced" and engine.store.count() == rebuilt.nodes
    assert [d.current for d in engine.documents()] == [True]
    assert engine.ingest_bytes("topics.md", _sections()).status == "unchanged", "free from then on"
