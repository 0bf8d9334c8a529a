"""Every knee detector's Sensitivity slider moves the answer on real rankings, in one direction (issue 28).

The rankings are the curves ``adaptive``'s knee cuts read (seed pages, then the chosen documents' pages), on
both curves (dense cosines and fused RRF scores), from a real index of the packaged R manual ``R-data.pdf``
(41 pages) built once for this module with the real embedder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLE_PDF

from drag_core.config import Settings
from drag_core.engine import Engine
from drag_core.ingest.describe.extractive import ExtractiveSummarizer
from drag_core.knee import KNEE_METHODS, SENSITIVITIES, WITHDRAWN, find_knee
from drag_core.knobs import OFFERED_METHODS, offered, offered_curves
from drag_core.models.embeddings import Embedder
from drag_core.params import SCORE_SOURCES, SearchParams

QUESTIONS = (
    "How do I read a CSV file into a data frame?",
    "How can I import data from a spreadsheet such as Excel?",
    "How do I connect to a relational database from R?",
    "How can I read files written by other statistics programs such as SPSS or Stata?",
    "How do I export a data frame to a text file?",
    "How can I read data over a network connection or from a URL?",
    "How are character encodings handled when reading a file?",
    "How do I read fixed-width formatted data?",
)
#: The most items a cut keeps (``SearchParams``' default rail), so sizes count as in the app.
MAX_KEEP = SearchParams().max_keep


@pytest.fixture(scope="module")
def curves(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """(detector, curve) → the score curves ``adaptive``'s knee cuts read at the detector's default."""
    folder = Path(tmp_path_factory.mktemp("knee_sliders")) / "qdrant"
    engine = Engine(
        Settings.from_env(env={}, store=str(folder), cache_path=None),
        embedder=embedder,
        summarizer=ExtractiveSummarizer(),
    )
    try:
        (report,) = engine.ingest_paths([SAMPLE_PDF])
        assert report.ok, report.line()
        found: dict[tuple[str, str], list[np.ndarray]] = {}
        for method in KNEE_METHODS:
            for source in SCORE_SOURCES:
                params = SearchParams(knee_method=method, score_source=source)
                for question in QUESTIONS:
                    result = engine.search(question, "adaptive", params)
                    steps = [s for s in result.trace if s.bound is not None and len(s.curve) >= 3]
                    found.setdefault((method, source), []).extend(np.asarray(s.curve) for s in steps)
        yield found
    finally:
        engine.close()


def sizes(scores: np.ndarray, method: str, values: tuple[float, ...] | np.ndarray) -> list[int]:
    return [find_knee(scores, method, float(s), max_keep=MAX_KEEP).keep for s in values]


@pytest.mark.parametrize("method", KNEE_METHODS)
def test_more_sensitivity_never_keeps_fewer_on_real_curves(method: str, curves: dict) -> None:
    """Over a fine sweep past the slider's largest value, on both curves (offered or not)."""
    sweep = np.linspace(0.0, 1.5 * max(SENSITIVITIES[method]), 61)
    for source in SCORE_SOURCES:
        assert curves[(method, source)], (method, source)
        for scores in curves[(method, source)]:
            kept = [find_knee(scores, method, float(s)).keep for s in sweep]
            assert kept == sorted(kept), (method, source, kept)


@pytest.mark.parametrize("method", KNEE_METHODS)
def test_each_offered_slider_gives_at_least_three_answer_sizes_on_real_curves(
    method: str, curves: dict
) -> None:
    for source in offered_curves(method):
        distinct = [
            len(set(sizes(scores, method, SENSITIVITIES[method]))) for scores in curves[(method, source)]
        ]
        assert np.mean(distinct) >= 3, (method, source, distinct)


def test_the_offered_combinations_follow_what_each_detector_withdraws() -> None:
    assert set(OFFERED_METHODS) == {m for m in KNEE_METHODS if set(SCORE_SOURCES) - set(WITHDRAWN[m])}
    for method in KNEE_METHODS:
        assert set(WITHDRAWN[method]) <= set(SCORE_SOURCES), method
        for source in SCORE_SOURCES:
            assert (
                offered(method, source)
                == (source not in WITHDRAWN[method])
                == (source in offered_curves(method))
            )
            assert WITHDRAWN[method].get(source, "x") != "", "a withdrawn curve says why"
    assert offered("relative", "dense"), "the default detector and curve are offered"
    assert not offered("elbow", "dense") and not offered("relative", "cosine")
