"""End to end in a real browser: ``streamlit run app.py`` on 127.0.0.1 with its own index, driven by
Playwright through Debian's chromium. Upload a real PDF, ask on Compare, move the sensitivity slider and see
the knee and the kept count change; click a node of the tree. Waits on the app's script state, never on sleeps.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FINANCE, REPO, child_env

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
QUERY = "What was net sales growth in the fourth quarter?"
STARTUP_S = 240  # the first script run loads the embedding models
STEP_MS = 180_000

pytestmark = pytest.mark.skipif(
    not CHROMIUM.is_file(), reason="needs Debian's chromium: apt-get install chromium"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def app_url(tmp_path: Path) -> Iterator[str]:
    """``streamlit run app.py`` on a free port of 127.0.0.1, with an empty index of its own."""
    port = _free_port()
    env = child_env({"DRAG_STORE": str(tmp_path / "qdrant"), "DRAG_SAMPLE": "off"})
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
    with (tmp_path / "streamlit.log").open("w") as log:
        server = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            _wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", server)
            yield f"http://127.0.0.1:{port}"
        finally:
            server.terminate()
            server.wait(timeout=60)


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


def test_upload_compare_and_tune_the_knee_in_a_browser(app_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 2400})
        page.set_default_timeout(STEP_MS)
        expect.set_options(timeout=STEP_MS)
        try:
            page.goto(app_url)
            page.wait_for_selector(IDLE, timeout=STARTUP_S * 1000)
            expect(page.get_by_role("heading", name="Documents", exact=True)).to_be_visible()

            page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(PDF))
            expect(
                page.get_by_test_id("stProgress").get_by_text(f"{PDF.name}: indexed — 9 pages")
            ).to_be_visible()
            page.wait_for_selector(IDLE)

            page.get_by_role("link", name="Compare").click()
            expect(page.get_by_role("heading", name="Compare strategies")).to_be_visible()
            page.wait_for_selector(IDLE)
            question = page.get_by_label("Question")
            question.fill(QUERY)
            question.press("Enter")
            adaptive = (
                page.locator('[data-testid="stVerticalBlock"]')
                .filter(has=page.get_by_role("heading", name="adaptive", exact=True))
                .last
            )
            kept = adaptive.get_by_test_id("stMetricValue").first
            expect(kept).to_be_visible()
            page.wait_for_selector(IDLE)
            page.get_by_role("tab", name="adaptive").click()
            titles = page.get_by_role("tabpanel").locator(".stPlotlyChart .annotation-text")
            expect(titles.first).to_be_attached()
            kept_before = kept.inner_text()
            knees_before = titles.all_text_contents()
            assert knees_before and all(" · kept " in t for t in knees_before)

            sensitivity = page.get_by_test_id("stSlider").filter(has_text="Sensitivity")
            value = sensitivity.get_by_test_id("stSliderThumbValue")
            expect(value).to_have_text("1.00")
            sensitivity.get_by_role("slider").press("End")
            expect(value).to_have_text("5.00")
            expect(kept).not_to_have_text(kept_before)
            page.wait_for_selector(IDLE)
            expect(titles).not_to_have_text(knees_before)
            knees_after = titles.all_text_contents()
            assert kept.inner_text() != kept_before
            assert knees_after != knees_before
            page.screenshot(path=str(tmp_path / "compare.png"), full_page=True)

            page.get_by_role("link", name="Tree").click()
            expect(page.get_by_role("heading", name="Tree", exact=True)).to_be_visible()
            page.wait_for_selector(IDLE)
            inspector = page.get_by_role("heading", name="root")
            expect(inspector).to_be_visible()
            bars = page.locator(".stPlotlyChart .trace.bars .point path")
            widths = [bars.nth(i).bounding_box()["width"] for i in range(bars.count())]
            assert len(widths) > 9
            leaf = widths.index(min(widths))
            bars.nth(leaf).click(force=True)  # plotly's drag layer sits on top and takes the click
            expect(page.get_by_role("heading", name="root")).to_have_count(0)
            page.wait_for_selector(IDLE)
            page.screenshot(path=str(tmp_path / "tree.png"), full_page=True)
        finally:
            browser.close()
