"""One engine, several sessions at once (the app shares one engine between all browser sessions): searches go on
while another session ingests, and two sessions uploading the same file name leave exactly one version."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import FINANCE
from pdf_factory import encrypted_pdf, numbered_pages, scanned_pdf, text_pdf, truncated
from test_browser import CHROMIUM, CHROMIUM_ARGS, IDLE, STARTUP_S, STEP_MS, app_url  # noqa: F401 (fixture)

from drag_core.engine import Engine
from drag_core.ingest.report import IngestReport, ProgressEvent
from drag_core.search import STRATEGIES, SearchResult

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

SEED = FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"
UPLOAD = FINANCE / "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"
QUERY = "shareholder vote on the election of directors"
WAIT_S = 300  # generous: the machine may be busy; reaching it is a failure, not a slow pass


class Searcher(threading.Thread):
    """Another session: searches with every strategy in turn until told to stop (at least ``minimum`` times).

    Attributes:
        results: every search result.
        errors: every exception raised.
        searched: set once the first search has returned.
    """

    def __init__(self, engine: Engine, minimum: int = len(STRATEGIES)) -> None:
        super().__init__(daemon=True)
        self.engine, self.minimum = engine, minimum
        self.results: list[SearchResult] = []
        self.errors: list[BaseException] = []
        self.searched = threading.Event()
        self.stop = threading.Event()

    def run(self) -> None:
        strategies = list(STRATEGIES)
        while not self.stop.is_set() or len(self.results) < self.minimum:
            try:
                self.results.append(
                    self.engine.search(QUERY, strategies[len(self.results) % len(strategies)])
                )
            except BaseException as error:  # noqa: BLE001 - the test reports whatever went wrong
                self.errors.append(error)
                return
            self.searched.set()


def ingest_in_thread(engine: Engine, run: Callable[[], IngestReport]) -> tuple[threading.Thread, list]:
    reports: list[IngestReport] = []
    thread = threading.Thread(target=lambda: reports.append(run()), daemon=True)
    thread.start()
    return thread, reports


def assert_every_document_whole(engine: Engine) -> None:
    docs = engine.documents()
    for doc in docs:
        assert len(engine.tree(doc.file_name)) == doc.nodes, doc.file_name
    assert engine.store.count() == sum(d.nodes for d in docs)


def test_searches_go_on_while_another_session_ingests(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    engine.ingest_paths([SEED])
    searcher = Searcher(engine)

    def hold_until_a_search_ran(event: ProgressEvent) -> None:
        # The ingest pauses between describing and embedding: a search must get through meanwhile. Were the
        # ingest holding the engine's lock here, the search would wait for it and this would time out.
        if event.stage == "vectors" and event.done == 0 and not searcher.searched.wait(WAIT_S):
            raise AssertionError("no search got through while a document was being ingested")

    thread, reports = ingest_in_thread(
        engine, lambda: engine.ingest_paths([UPLOAD], hold_until_a_search_ran)[0]
    )
    searcher.start()
    thread.join(WAIT_S)
    searcher.stop.set()
    searcher.join(WAIT_S)

    assert not searcher.errors, searcher.errors
    assert reports and reports[0].status == "indexed", reports and reports[0].line()
    assert all(result.nodes for result in searcher.results)
    assert {d.file_name for d in engine.documents()} == {SEED.name, UPLOAD.name}
    assert_every_document_whole(engine)
    assert UPLOAD.name in {n.file_name for n in engine.search("Foot Locker", "flat").nodes}


def test_two_sessions_uploading_one_file_name_leave_one_whole_version(
    make_engine: Callable[..., Engine],
) -> None:
    engine = make_engine()
    engine.ingest_paths([SEED])
    both_built = threading.Barrier(2, timeout=WAIT_S)

    def after_both_built(event: ProgressEvent) -> None:
        if event.stage == "vectors" and event.done == 0:
            both_built.wait()  # neither has written yet, and each has seen no earlier version of the file

    searcher = Searcher(engine)
    searcher.start()
    runs = [
        ingest_in_thread(engine, lambda data=data: engine.ingest_bytes("report.pdf", data, after_both_built))
        for data in (SEED.read_bytes(), UPLOAD.read_bytes())
    ]
    for thread, _ in runs:
        thread.join(WAIT_S)
    searcher.stop.set()
    searcher.join(WAIT_S)

    reports = [r for _, rs in runs for r in rs]
    assert sorted(r.status for r in reports) == ["indexed", "replaced"], [r.line() for r in reports]
    survivors = [d for d in engine.documents() if d.file_name == "report.pdf"]
    assert len(survivors) == 1, "one file name, one version"
    assert survivors[0].doc_id in {r.doc_id for r in reports}
    assert_every_document_whole(engine)
    assert not searcher.errors, searcher.errors


@pytest.mark.skipif(not CHROMIUM.is_file(), reason="needs Debian's chromium: apt-get install chromium")
def test_two_browser_sessions_one_uploading_while_the_other_searches(
    app_url: str,  # noqa: F811 (the fixture, from test_browser)
    tmp_path: Path,
) -> None:
    """``streamlit run app.py`` and two browser contexts: session A uploads a batch of good and bad files (one
    named with HTML) while session B asks on Compare. Both finish; A shows a line per file; nothing runs."""
    from playwright.sync_api import expect, sync_playwright

    markup_name = "<img src=x onerror=document.title=1>.txt"  # no quotes: browsers encode them in uploads
    batch = {
        UPLOAD.name: UPLOAD.read_bytes(),
        "long report.pdf": text_pdf(numbered_pages(60)),
        markup_name: b"Notes on tea: oolong, sencha and matcha.",
        "truncated.pdf": truncated(SEED),
        "locked.pdf": encrypted_pdf(text_pdf(["Board minutes, confidential."])),
        "scanned.pdf": scanned_pdf(2),
        "empty.md": b"",
    }
    folder = tmp_path / "uploads"
    folder.mkdir()
    for name, data in batch.items():
        (folder / name).write_bytes(data)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        expect.set_options(timeout=STEP_MS)
        uploader, searcher = (browser.new_context().new_page() for _ in range(2))
        try:
            for page in (searcher, uploader):
                page.set_default_timeout(STEP_MS)
                page.goto(app_url)
                page.wait_for_selector(IDLE, timeout=STARTUP_S * 1000)
            upload(searcher, [SEED])
            expect(progress_line(searcher, f"{SEED.name}: indexed")).to_be_visible()
            searcher.wait_for_selector(IDLE)
            searcher.get_by_role("link", name="Compare").click()
            searcher.wait_for_selector(IDLE)

            upload(uploader, [folder / name for name in batch])  # session A: a long script run starts
            question = searcher.get_by_label("Question")
            question.fill(QUERY)
            question.press("Enter")
            expect(searcher.get_by_role("heading", name="adaptive", exact=True)).to_be_visible()
            searcher.wait_for_selector(IDLE)

            for name in (UPLOAD.name, "long report.pdf", markup_name):
                expect(progress_line(uploader, f"{name}: indexed")).to_be_visible()
            for name in ("truncated.pdf", "locked.pdf", "scanned.pdf", "empty.md"):
                expect(progress_line(uploader, f"{name}: FAILED — ")).to_be_visible()
            uploader.wait_for_selector(IDLE)
            assert uploader.title() != "1" and searcher.title() != "1", "a file name ran as HTML"
            documents = uploader.get_by_test_id("stDataFrame")
            expect(documents).to_be_visible()
            assert "Indexed documents (4)" in uploader.get_by_role("heading").all_inner_texts()
        finally:
            browser.close()


def upload(page: Page, paths: list[Path]) -> None:
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files([str(p) for p in paths])


def progress_line(page: Page, text: str) -> Locator:
    """A file's outcome on the Upload page (kept as a success or error line until dismissed)."""
    return page.get_by_test_id("stAlert").get_by_text(text)
