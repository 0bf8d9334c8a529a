"""Shared fixtures: the real embedder is loaded once per test session; engines use throw-away stores."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from drag_core.app.sample import SAMPLE_PDF  # noqa: E402,F401  (the packaged sample)
from drag_core.config import Settings  # noqa: E402
from drag_core.engine import Engine  # noqa: E402
from drag_core.ingest.describe.extractive import ExtractiveSummarizer  # noqa: E402
from drag_core.models.embeddings import Embedder  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DRAG_SHARED", REPO.parent / "shared"))
PDFS = SHARED / "data" / "pdfs"
FINANCE = SHARED / "data" / "financebench-dev" / "docs"


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real offline embedder (MiniLM + BM25), loaded once."""
    return Embedder(Path(os.environ.get("DRAG_MODEL_DIR", REPO / "models")))


@pytest.fixture
def make_engine(embedder: Embedder, tmp_path: Path) -> Iterator[Callable[..., Engine]]:
    """Factory of engines on a fresh store (``:memory:`` by default, or ``store=`` a folder; ``engine=`` picks
    the embedded engine, ``cache_path=`` a description cache file), closed after."""
    engines: list[Engine] = []

    def make(store: str = ":memory:", **kwargs: object) -> Engine:
        settings = Settings.from_env(
            env={}, store=store, cache_path=kwargs.pop("cache_path", None), engine=kwargs.pop("engine", "")
        )
        kwargs.setdefault("summarizer", ExtractiveSummarizer())
        engine = Engine(settings, embedder=embedder, **kwargs)  # type: ignore[arg-type]
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a ``drag_core`` subprocess: offline models, and no LLM, Qdrant or store settings
    inherited from the caller's environment — only those in ``env``."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("DRAG_", "OPENAI_", "QDRANT_"))}
    model_dir = os.environ.get("DRAG_MODEL_DIR", str(REPO / "models"))
    return {**inherited, "HF_HUB_OFFLINE": "1", "DRAG_MODEL_DIR": model_dir, **(env or {})}


def run_cli(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m drag_core ARGS`` in a subprocess with ``child_env(env)``."""
    return subprocess.run(
        [sys.executable, "-m", "drag_core", *args],
        capture_output=True,
        text=True,
        env=child_env(env),
        cwd=REPO,
        timeout=900,
    )


# -- the app's fixtures: a small real index built once and handed out as copies, and the app in AppTest -----

SMALL_DOCS = ("ULTABEAUTY_2023Q4_EARNINGS.pdf", "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf")
APP_TIMEOUT = 300  # seconds per AppTest script run: the first run loads the models, uploads ingest real PDFs


@pytest.fixture(scope="session")
def small_index(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An embedded index folder holding two short real filings (9 and 4 pages), built once per session.

    Never open it directly: an embedded folder takes one client per process, so open a copy
    (``small_index_copy``)."""
    folder = tmp_path_factory.mktemp("small_index") / "qdrant"
    engine = Engine(
        Settings.from_env(env={}, store=str(folder), cache_path=None),
        embedder=embedder,
        summarizer=ExtractiveSummarizer(),
    )
    reports = engine.ingest_paths([FINANCE / name for name in SMALL_DOCS])
    engine.close()
    assert all(r.ok for r in reports), [r.line() for r in reports]
    return folder


@pytest.fixture
def small_index_copy(small_index: Path, tmp_path: Path) -> Path:
    """A private copy of ``small_index`` (a folder for ``DRAG_STORE``)."""
    return Path(shutil.copytree(small_index, tmp_path / "qdrant"))


@pytest.fixture(scope="session")
def small_engine(
    small_index: Path, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """A read-only engine on a copy of ``small_index``, shared by the session (do not ingest or remove)."""
    folder = shutil.copytree(small_index, tmp_path_factory.mktemp("small_engine") / "qdrant")
    engine = Engine(
        Settings.from_env(env={}, store=str(folder), cache_path=None),
        embedder=embedder,
        summarizer=ExtractiveSummarizer(),
    )
    yield engine
    engine.close()


@pytest.fixture
def open_app(monkeypatch: pytest.MonkeyPatch) -> Callable[..., object]:
    """Open ``app.py`` in Streamlit's AppTest on an index folder, offline (no LLM, no Qdrant server, no
    sample on start; extra variables as keywords), run it, and switch to ``page`` (e.g.
    ``pages/compare.py``) if given. Returns the ``AppTest``."""
    from streamlit.testing.v1 import AppTest

    def open_(store: Path | str, page: str | None = None, **env: str) -> AppTest:
        for name in list(os.environ):
            if name.startswith(("DRAG_", "OPENAI_", "QDRANT_")):
                monkeypatch.delenv(name)
        variables = {"DRAG_STORE": str(store), "DRAG_MODEL_DIR": str(REPO / "models"), "DRAG_SAMPLE": "off"}
        for name, value in {**variables, "HF_HUB_OFFLINE": "1", **env}.items():
            monkeypatch.setenv(name, value)
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=APP_TIMEOUT).run()
        if page:
            at.switch_page(page).run()
        return at

    return open_


def no_exceptions(at: object) -> None:
    """Assert that the last AppTest run raised nothing (showing what it raised if it did)."""
    errors = [e.value for e in at.exception]  # type: ignore[attr-defined]
    assert not errors, errors
