"""Shared fixtures: the real embedder is loaded once per test session; engines use throw-away stores."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from drag_core.config import Settings  # noqa: E402
from drag_core.describe.extractive import ExtractiveSummarizer  # noqa: E402
from drag_core.embeddings import Embedder  # noqa: E402
from drag_core.engine import Engine  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DRAG_SHARED", REPO.parent / "shared"))
PDFS = SHARED / "data" / "pdfs"
FINANCE = SHARED / "data" / "financebench-dev" / "docs"
SAMPLE_PDF = REPO / "samples" / "R-data.pdf"


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real offline embedder (MiniLM + BM25), loaded once."""
    return Embedder(Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models")))


@pytest.fixture
def make_engine(embedder: Embedder, tmp_path: Path) -> Iterator[Callable[..., Engine]]:
    """Factory of engines on a fresh store (``:memory:`` by default, or ``store=`` a folder), closed after."""
    engines: list[Engine] = []

    def make(store: str = ":memory:", **kwargs: object) -> Engine:
        settings = Settings.from_env(env={}, store=store, cache_path=kwargs.pop("cache_path", None))
        kwargs.setdefault("summarizer", ExtractiveSummarizer())
        engine = Engine(settings, embedder=embedder, **kwargs)  # type: ignore[arg-type]
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()
