"""Parsing in worker processes gives the loader's pages, in order, one failure per bad file; parsed pages are
cached by content hash and file name."""

from __future__ import annotations

import os
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from conftest import FINANCE

from drag_core.ingest.loading import LoadedDocument, LoadError, load_path
from drag_core.ingest.parsing import PageCache, Parser
from drag_core.layout import page_cache_beside

GOOD = (FINANCE / "AMCOR_2022_8K_dated-2022-07-01.pdf", FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf")
MAX_BYTES = 50 * 2**20


@pytest.fixture(scope="module")
def expected() -> dict[str, LoadedDocument]:
    return {path.name: load_path(path) for path in GOOD}


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nthis is not a PDF body at all")
    return [GOOD[0], broken, tmp_path / "missing.pdf", GOOD[1]]


def _outcomes(parser: Parser, paths: list[Path]) -> list[LoadedDocument | Exception]:
    outcomes: list[LoadedDocument | Exception] = []
    for load in parser.parse_paths(paths):
        try:
            outcomes.append(load())
        except Exception as error:
            outcomes.append(error)
    return outcomes


@pytest.mark.parametrize("workers", [1, 2])
def test_parallel_parsing_keeps_order_pages_and_failures(files, expected, workers: int) -> None:
    good, broken, missing, other = _outcomes(Parser(MAX_BYTES, PageCache(None), workers), files)
    assert good == expected[GOOD[0].name] and other == expected[GOOD[1].name]
    assert isinstance(broken, LoadError) and "broken PDF" in str(broken)
    assert isinstance(missing, LoadError) and "not found" in str(missing)


def test_the_page_cache_answers_the_same_bytes_and_nothing_else(files, expected, tmp_path: Path) -> None:
    path = page_cache_beside(tmp_path / "index" / "description-cache.sqlite")
    assert path == tmp_path / "index" / "page-cache.sqlite"
    first = PageCache(path)
    _outcomes(Parser(MAX_BYTES, first, 2), files)
    assert (first.hits, first.misses) == (0, 3)  # the missing file is never looked up

    again = PageCache(path)  # a later process
    outcomes = _outcomes(Parser(MAX_BYTES, again, 2), files)
    assert again.hits == 2 and again.misses == 1  # the broken file was not cached: it fails again
    assert outcomes[0] == expected[GOOD[0].name] and isinstance(outcomes[1], LoadError)

    data = GOOD[1].read_bytes()
    parser = Parser(MAX_BYTES, again)
    assert parser.parse_bytes(GOOD[1].name, data) == expected[GOOD[1].name]
    assert again.hits == 3
    renamed = parser.parse_bytes("renamed.pdf", data)
    assert again.misses == 2 and {p.file_name for p in renamed.pages} == {"renamed.pdf"}
    assert [p.text for p in renamed.pages] == [p.text for p in expected[GOOD[1].name].pages]
    changed = data.replace(b"%%EOF", b"%%EOF\n% one more line", 1)
    assert parser.parse_bytes(GOOD[1].name, changed).doc_id != expected[GOOD[1].name].doc_id
    assert again.misses == 3


def test_a_dead_worker_is_replaced_by_parsing_here(expected) -> None:
    parser = Parser(MAX_BYTES, PageCache(None))
    future: Future[LoadedDocument] = Future()
    future.set_exception(BrokenProcessPool("a worker died"))
    assert parser._parse(GOOD[0], future) == expected[GOOD[0].name]


def test_engine_ingests_several_files_in_order_and_caches_their_pages(make_engine, files, tmp_path) -> None:
    cache = tmp_path / "index" / "description-cache.sqlite"
    engine = make_engine(cache_path=cache)
    reports = engine.ingest_paths(files)
    assert [r.file_name for r in reports] == [p.name for p in files]
    assert [r.status for r in reports] == ["indexed", "failed", "failed", "indexed"]
    assert reports[0].pages == 9 and reports[3].pages == 5
    assert {d.file_name for d in engine.documents()} == {p.name for p in GOOD}

    again = make_engine(cache_path=cache)
    assert [r.status for r in again.ingest_paths(GOOD)] == ["indexed", "indexed"]
    assert again.parser.cache.hits == 2 and again.parser.cache.misses == 0


def test_pdfium_parses_here_and_pypdf_in_one_worker_per_core() -> None:
    assert Parser(MAX_BYTES, PageCache(None)).workers == 1
    assert Parser(MAX_BYTES, PageCache(None), pdf_engine="pypdf").workers == (os.cpu_count() or 1)
    assert Parser(MAX_BYTES, PageCache(None), 3, pdf_engine="pdfium").workers == 3
