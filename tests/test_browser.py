"""End to end in a real browser: ``streamlit run app.py`` on 127.0.0.1 with its own index, driven by
Playwright through Debian's chromium. Upload a real PDF and a broken one (the failure stays
until dismissed), ask on Compare, read why each ranking was cut, move the sensitivity slider and see the
cuts change; click a node of the tree; open a deep link first and get the app's navigation; cancel an upload
and an evaluation. The app's log must hold no
traceback. Waits on the app's script state, never on sleeps.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import FINANCE, REPO, child_env
from test_evaluation import write_page_dataset

from drag_core.search import DEFAULT_STRATEGIES

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
PDF = FINANCE / "ULTABEAUTY_2023Q4_EARNINGS.pdf"
BIG_PDF = FINANCE / "PEPSICO_2022_10K.pdf"
SHOTS = Path(os.environ.get("DRAG_SHOTS", "/tmp"))
QUERY = "What was net sales growth in the fourth quarter?"
#: The strategy picker's chips that lie wholly inside it (a chip scrolled out of a one-row picker does not).
CHIPS_SHOWN = """() => {
  const picker = document.querySelector('[data-testid="stMultiSelectTagsContainer"]').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid="stMultiSelect"] [data-tag]')]
    .filter(chip => {
      const r = chip.getBoundingClientRect();
      return r.left >= picker.left && r.right <= picker.right && r.top >= picker.top && r.bottom <= picker.bottom;
    })
    .map(chip => chip.getAttribute("aria-label"));
}"""
STARTUP_S = 240  # the first script run loads the embedding models
STEP_MS = 180_000

pytestmark = pytest.mark.skipif(
    not CHROMIUM.is_file(), reason="needs Debian's chromium: apt-get install chromium"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serving(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """A starter of ``streamlit run app.py`` on a free port of 127.0.0.1 with an empty index of its own (extra
    variables as keywords; it returns the URL). At the end the app's log must hold no traceback."""
    servers: list[subprocess.Popen] = []
    log_path = tmp_path / "streamlit.log"

    def start(**variables: str) -> str:
        port = _free_port()
        env = child_env({"DRAG_STORE": str(tmp_path / "qdrant"), "DRAG_SAMPLE": "off", **variables})
        command = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(REPO / "app.py"),
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
        ]
        with log_path.open("w") as log:
            servers.append(subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT))
        _wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", servers[-1])
        return f"http://127.0.0.1:{port}"

    try:
        yield start
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=60)
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    assert "Traceback" not in log, log[-3000:]


@pytest.fixture
def serve_app(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """Start the app with extra variables (see ``serving``)."""
    with serving(tmp_path) as start:
        yield start


@pytest.fixture
def app_url(tmp_path: Path) -> Iterator[str]:
    """The app on an empty index of its own (see ``serving``)."""
    with serving(tmp_path) as start:
        yield start()


@contextmanager
def browser_page(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium page, 1400 px wide (five strategies side by side must be readable there)."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2600})
        page.set_default_timeout(STEP_MS)
        expect.set_options(timeout=STEP_MS)
        try:
            yield page
        finally:
            browser.close()


def _wait_healthy(url: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        assert server.poll() is None, "streamlit exited"
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)  # polling the health endpoint, not waiting for the app's work
    raise TimeoutError(f"{url} did not answer within {STARTUP_S} s")


def _upload(page: Any, *paths: Path) -> None:
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files([str(p) for p in paths])


def test_upload_compare_and_tune_the_knee_in_a_browser(serve_app: Callable[..., str], tmp_path: Path) -> None:
    from playwright.sync_api import expect

    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 this is not really a PDF")
    app_url = serve_app()
    with browser_page(tmp_path) as page:
        page.goto(app_url)
        page.wait_for_selector(IDLE, timeout=STARTUP_S * 1000)
        expect(page.get_by_role("heading", name="Documents", exact=True)).to_be_visible()
        expect(page.get_by_text("tree of summaries")).to_be_visible()

        _upload(page, PDF, broken)
        expect(page.get_by_role("button", name="Cancel indexing")).to_be_visible()
        errors = page.get_by_test_id("stAlertContentError")
        expect(errors.filter(has_text="broken.pdf: FAILED")).to_be_visible()
        expect(
            page.get_by_test_id("stAlertContentSuccess").filter(has_text=f"{PDF.name}: indexed")
        ).to_be_visible()
        page.wait_for_selector(IDLE)
        page.screenshot(path=str(SHOTS / "upload-failed.png"), full_page=True)

        page.get_by_role("link", name="Compare").click()
        expect(page.get_by_role("heading", name="Compare strategies")).to_be_visible()
        page.wait_for_selector(IDLE)
        page.get_by_role("link", name="Upload").click()
        expect(errors.filter(has_text="broken.pdf: FAILED")).to_be_visible()  # kept until dismissed
        page.get_by_role("button", name="Dismiss").click()
        expect(errors).to_have_count(0)
        page.wait_for_selector(IDLE)

        page.get_by_role("link", name="Compare").click()
        page.wait_for_selector(IDLE)
        question = page.get_by_label("Question")
        question.fill(QUERY)
        question.press("Enter")
        adaptive = page.locator(".drag-card").filter(
            has=page.get_by_role("heading", name="adaptive", exact=True)
        )
        expect(adaptive.get_by_text(PDF.name).first).to_be_visible()  # every result names its file
        expect(page.get_by_role("tab", name="adaptive", selected=True)).to_be_visible()
        charts = page.get_by_role("tabpanel").locator(".stPlotlyChart")
        expect(charts).to_have_count(1)  # the steps; kept vs sensitivity under them is SVG
        titles = charts.first.locator(".annotation-text")
        expect(titles.first).to_be_attached()
        before = titles.all_text_contents()
        assert any("→ kept" in t or "no knee found" in t for t in before), before
        assert any(t.startswith(("knee at", "no knee found")) or "knee at" in t for t in before), before
        below = page.get_by_role("tabpanel").locator(".drag-kvs")
        expect(below.locator(".title").first).to_be_visible()
        assert all(t.startswith("kept vs sensitivity") for t in below.locator(".title").all_text_contents())
        images = below.locator("img.kvs")
        expect(images).not_to_have_count(0)
        assert all(i.evaluate("img => img.complete && img.naturalWidth > 0") for i in images.all())
        page.wait_for_selector(IDLE)
        page.screenshot(path=str(SHOTS / "compare-1400.png"), full_page=True)
        for width in (1000, 1400):  # every chosen strategy's chip whole in the picker
            page.set_viewport_size({"width": width, "height": 2600})
            assert page.evaluate(CHIPS_SHOWN) == list(DEFAULT_STRATEGIES), width

        sensitivity = page.get_by_test_id("stSlider").filter(has_text="Sensitivity")
        value = sensitivity.get_by_test_id("stSliderThumbValue")
        expect(value).to_have_text("1.0")
        sensitivity.get_by_role("slider").press("End")  # this question's knee keeps 1 page from S = 0 to 1
        expect(value).to_have_text("5.0")
        page.wait_for_selector(IDLE)
        expect(titles).not_to_have_text(before)
        assert titles.all_text_contents() != before
        page.screenshot(path=str(SHOTS / "compare-s5.png"), full_page=True)

        page.get_by_role("link", name="Tree").click()
        expect(page.get_by_role("heading", name="Tree", exact=True)).to_be_visible()
        page.wait_for_selector(IDLE)
        expect(page.get_by_role("heading", name="root")).to_be_visible()
        bars = page.locator(".stPlotlyChart .trace.bars .point path")
        widths = [bars.nth(i).bounding_box()["width"] for i in range(bars.count())]
        assert len(widths) > 9
        bars.nth(widths.index(min(widths))).click(force=True)  # plotly's drag layer takes the click
        expect(page.get_by_role("heading", name="root")).to_have_count(0)
        page.wait_for_selector(IDLE)


def test_cancel_an_upload_and_an_evaluation_in_a_browser(
    serve_app: Callable[..., str], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    data = tmp_path / "data"
    write_page_dataset(data / "tiny-pages")
    shutil.copy(BIG_PDF, data / "tiny-pages" / "docs")  # long enough to be cancelled while it indexes
    app_url = serve_app(DRAG_EVAL_DATA=str(data), DRAG_EVAL_DIR=str(tmp_path / "eval"))
    with browser_page(tmp_path) as page:
        page.goto(f"{app_url}/compare")  # a deep link as the server's first session gets the app's pages
        page.wait_for_selector(IDLE, timeout=STARTUP_S * 1000)
        sidebar = page.get_by_test_id("stSidebar")
        titles = sidebar.get_by_test_id("stPageLink-NavLink").locator("p")
        expect(titles).to_have_text(["Upload", "Tree", "Compare", "Evaluate", "Settings"])
        expect(sidebar.get_by_test_id("stSidebarNavLink")).to_have_count(0)  # Streamlit's own list is hidden
        expect(page.get_by_role("heading", name="Compare strategies")).to_be_visible()
        titles.first.click()
        page.wait_for_selector(IDLE)
        _upload(page, BIG_PDF)
        page.get_by_role("button", name="Cancel indexing").click()
        cancelled = page.get_by_test_id("stAlertContentWarning").filter(has_text=f"{BIG_PDF.name}: cancelled")
        expect(cancelled).to_be_visible()
        expect(page.get_by_role("heading", name="Indexed documents (0)")).to_be_visible()
        page.wait_for_selector(IDLE)

        page.get_by_role("link", name="Evaluate").click()
        expect(page.get_by_text("The first run indexes the whole data set")).to_be_visible()
        page.get_by_role("button", name="Run").click()
        expect(page.get_by_role("button", name="Cancel")).to_be_visible()
        page.screenshot(path=str(SHOTS / "evaluate-running.png"), full_page=True)
        page.get_by_role("button", name="Cancel").click()
        expect(
            page.get_by_text("Cancelled. Each document of the evaluation index is whole or absent")
        ).to_be_visible()
        page.wait_for_selector(IDLE)
        assert not list((tmp_path / "eval").rglob("manifest.json"))
