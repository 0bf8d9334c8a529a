"""End to end in a real browser: ``streamlit run app.py`` on 127.0.0.1 with its own index, driven by
Playwright through Debian's chromium. Upload a real PDF and a broken one (the failure stays
until dismissed), ask on Compare, read why each ranking was cut, move the sensitivity slider and see the
cuts change, and the address follow: open it in a new session and get the same view; ask again from the
question history; click a node of the tree; open a deep link first and get the app's navigation; cancel an
upload (an overall bar, the uploader emptied) and an evaluation (its estimate then counts what is indexed,
its temporary folder goes); every page at 1000 and 1400 px with nothing cut short and no labels on top of
each other. Every browser session records every request and console message: nothing may go to another
host than the app's, and the console must hold no error. The app's log must hold no traceback. Waits on the
app's script state, never on sleeps.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import FINANCE, REPO, child_env
from test_evaluation import write_page_dataset

from drag_core.app import url_state
from drag_core.app.figures.sensitivity import WIDTH as KVS_WIDTH
from drag_core.knee import SENSITIVITIES
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
OTHER_QUERY = "How many stores were open at the end of the year?"
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
#: Text that is cut short: an ellipsis that hides some of it, a box (a select box, a button, a chip) that
#: clips it sideways, or a combo box whose value is wider than the box. Elements inside SVG are the charts'.
TEXT_CUT_SHORT = """() => {
  const cut = [];
  for (const root of document.querySelectorAll('[data-testid="stMain"], [data-testid="stSidebar"]')) {
    for (const el of root.querySelectorAll('*')) {
      if (el.closest('svg')) continue;
      const texts = [...el.childNodes].filter(n => n.nodeType === 3 && n.textContent.trim());
      const range = document.createRange();
      const boxes = texts.map(t => { range.selectNodeContents(t); return range.getBoundingClientRect(); })
        .filter(b => b.width > 0 && b.height > 0);
      if (!boxes.length) continue;
      const left = Math.min(...boxes.map(b => b.left)), right = Math.max(...boxes.map(b => b.right));
      if (getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1) {
        cut.push(el.textContent.trim()); continue;
      }
      for (let box = el; box && box !== root.parentElement; box = box.parentElement) {
        const style = getComputedStyle(box);
        if (style.overflowX === 'visible' || style.display === 'inline') continue;  // it clips nothing
        const r = box.getBoundingClientRect();
        if (left < r.left - 3 || right > r.right + 3) { cut.push(el.textContent.trim()); break; }
      }
    }
  }
  for (const box of document.querySelectorAll('[data-testid="stMain"] input[role="combobox"]')) {
    if (box.value && box.scrollWidth > box.clientWidth + 1) cut.push(box.value);
  }
  return cut;
}"""
#: Texts of a chart (tick labels, axis and panel titles, legend) that overlap another or leave the chart.
CHART_TEXT_CLASHES = """() => {
  const found = [];
  for (const chart of document.querySelectorAll('.stPlotlyChart')) {
    const svg = chart.querySelector('svg.main-svg');
    if (!svg) continue;
    const frame = svg.getBoundingClientRect();
    const texts = chart.querySelectorAll(
      'g[class*="tick"] text, .annotation-text, [class*="title"] text, .legendtext');
    const boxes = [...new Set(texts)].filter(t => t.textContent.trim())
      .map(t => [t.textContent.trim(), t.getBoundingClientRect()]).filter(([, b]) => b.width > 0);
    for (const [text, b] of boxes) {
      if (b.left < frame.left - 1 || b.right > frame.right + 1 || b.top < frame.top - 1 || b.bottom > frame.bottom + 1)
        found.push(`outside the chart: ${text}`);
    }
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const [ta, a] = boxes[i], [tb, b] = boxes[j];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) found.push(`${ta} on ${tb}`);
    }
  }
  return found;
}"""
#: Tables wider than the box that holds them (a column behind a sideways scroll): the steps' HTML tables and
#: Streamlit's own tables, named by their first header.
TABLES_TOO_WIDE = """() => {
  const found = [];
  const main = document.querySelector('[data-testid="stMain"]');
  for (const table of main.querySelectorAll('table.drag-steps, [data-testid="stTable"] table')) {
    const box = table.parentElement;
    if (table.getBoundingClientRect().width > box.clientWidth + 1) found.push(table.querySelector('th').textContent);
  }
  return found;
}"""
#: Streamlit's own probe of its base path when a page is opened by its address: ``/<page>/_stcore/health``
#: and ``/<page>/_stcore/host-config`` answer 404 by design before ``/_stcore/…`` answers (its static files
#: reserve those suffixes; streamlit/streamlit#7074). Every other console error fails a test.
BASE_PATH_PROBE = re.compile(r"^http://127\.0\.0\.1:\d+/[a-z]+/_stcore/(health|host-config)$")
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


@dataclass
class Traffic:
    """Every request a browser page made and every error its console showed.

    Attributes:
        requests: the URLs requested (documents, scripts, fonts, images, fetches, websockets).
        errors: console errors and uncaught page errors, with the URL they are about.
    """

    requests: list[str] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)

    def watch(self, page: Any) -> None:
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("websocket", lambda socket: self.requests.append(socket.url))
        page.on(
            "console",
            lambda m: self.errors.append((m.text, m.location.get("url", ""))) if m.type == "error" else None,
        )
        page.on("pageerror", lambda error: self.errors.append((str(error), "")))

    def outside(self) -> list[str]:
        """Requests to any host but the app's (127.0.0.1 and the app's port); data and blob URLs stay in the
        page."""
        hosts = {urlsplit(url).netloc for url in self.requests if url.startswith("http")}
        own = {h for h in hosts if h.startswith("127.0.0.1:")}
        assert len(own) == 1, own  # one app
        return [
            url
            for url in self.requests
            if urlsplit(url).scheme not in ("data", "blob") and urlsplit(url).netloc not in own
        ]

    def console_errors(self) -> list[tuple[str, str]]:
        return [(text, url) for text, url in self.errors if not BASE_PATH_PROBE.match(url)]


@contextmanager
def browser_page(tmp_path: Path, traffic: Traffic | None = None) -> Iterator[Any]:
    """A headless Chromium page, 1400 px wide (five strategies side by side must be readable there). Its
    requests and console are recorded (into ``traffic`` when given); when the test's steps pass, nothing may
    have gone to another host and the console must hold no error. Chromium's own background traffic is off
    (``CHROMIUM_ARGS``), so every request recorded is the page's."""
    from playwright.sync_api import expect, sync_playwright

    traffic = traffic or Traffic()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2600})
        traffic.watch(page)
        page.set_default_timeout(STEP_MS)
        expect.set_options(timeout=STEP_MS)
        try:
            yield page
        finally:
            browser.close()
    assert traffic.outside() == [], "requests left the machine"
    assert traffic.console_errors() == [], "the console showed errors"


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


def _address(url: str) -> dict[str, str]:
    """The query of an address as one value per name."""
    return {name: values[-1] for name, values in parse_qs(urlsplit(url).query).items()}


def _upload(page: Any, *paths: Path) -> None:
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files([str(p) for p in paths])


def _ask(page: Any, query: str) -> None:
    """Go to Compare and ask ``query``."""
    page.get_by_role("link", name="Compare", exact=True).click()
    page.wait_for_selector(IDLE)
    _ask_here(page, query)


def _ask_here(page: Any, query: str) -> None:
    """Ask ``query`` on the Compare page and wait until its answer is drawn. The app is idle for a moment
    after Enter before the rerun starts, so idleness alone can let a test read the previous question's cards:
    the address names the question once its search ran, then idleness means its cards are drawn."""
    question = page.get_by_label("Question")
    question.fill(query)
    question.press("Enter")
    page.wait_for_function(
        "q => new URLSearchParams(window.location.search).get('q') === q", arg=query, timeout=60_000
    )
    page.wait_for_selector(IDLE)


def test_upload_compare_and_tune_the_knee_in_a_browser(serve_app: Callable[..., str], tmp_path: Path) -> None:
    from playwright.sync_api import expect

    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 this is not really a PDF")
    app_url = serve_app()
    traffic = Traffic()
    with browser_page(tmp_path, traffic) as page:
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
        expect(page.get_by_test_id("stFileChip")).to_have_count(
            0
        )  # taken: the outcomes say what became of them
        page.screenshot(path=str(SHOTS / "upload-failed.png"), full_page=True)

        page.get_by_role("link", name="Compare", exact=True).click()
        expect(page.get_by_role("heading", name="Compare strategies")).to_be_visible()
        page.wait_for_selector(IDLE)
        page.get_by_role("link", name="Upload", exact=True).click()
        expect(errors.filter(has_text="broken.pdf: FAILED")).to_be_visible()  # kept until dismissed
        page.get_by_role("button", name="Dismiss").click()
        expect(errors).to_have_count(0)
        page.wait_for_selector(IDLE)

        _ask(page, QUERY)
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
        expect(value).to_have_text("0.5")  # the default detector's (relative) own default
        sensitivity.get_by_role("slider").press("Home")
        first = f"{SENSITIVITIES['relative'][0]:g}"
        expect(value).to_have_text(first)  # the first of its slider values
        page.wait_for_selector(IDLE)
        expect(titles).not_to_have_text(before)
        moved = titles.all_text_contents()
        assert moved != before
        page.screenshot(path=str(SHOTS / "compare-s0.png"), full_page=True)

        # the address holds the view: the question, the strategies, every knob; a new session opening it
        # (a shared link) shows the same view
        expect(page).to_have_url(re.compile(rf"[?&]sensitivity={re.escape(first)}(&|$)"))
        address = _address(page.url)
        assert set(address) == {url_state.QUERY, url_state.STRATEGIES, *url_state.KNOBS}
        assert address[url_state.QUERY] == QUERY and address["sensitivity"] == first
        assert address[url_state.STRATEGIES] == ",".join(DEFAULT_STRATEGIES)
        shared = page.context.browser.new_context(viewport={"width": 1400, "height": 2600}).new_page()
        traffic.watch(shared)
        shared.goto(page.url)
        shared.wait_for_selector(IDLE, timeout=STARTUP_S * 1000)
        expect(shared.get_by_label("Question")).to_have_value(QUERY)
        shown = shared.get_by_test_id("stSlider").filter(has_text="Sensitivity")
        expect(shown.get_by_test_id("stSliderThumbValue")).to_have_text(first)
        shared_titles = (
            shared.get_by_role("tabpanel").locator(".stPlotlyChart").first.locator(".annotation-text")
        )
        expect(shared_titles).to_have_text(moved)
        shared.context.close()

        # a new question replaces the old one in the address; the history asks the old one again in a click
        _ask_here(page, OTHER_QUERY)
        question = page.get_by_label("Question")
        page.get_by_test_id("stPopoverButton").filter(has_text="Asked before").click()
        page.get_by_role("button", name=QUERY).click()
        expect(question).to_have_value(QUERY)
        expect(page).to_have_url(re.compile(r"[?&]q=What\+was\+net\+sales"))
        page.wait_for_selector(IDLE)

        page.get_by_role("link", name="Tree", exact=True).click()
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
    write_page_dataset(data / "tiny-pages")  # three short documents, indexed first (sorted by name) …
    shutil.copy(
        BIG_PDF, data / "tiny-pages" / "docs" / "zz-annual-report.pdf"
    )  # … then one long enough to cancel
    temporary = tmp_path / "tmp"  # the app's temporary folders (the evaluation's job folder goes here)
    temporary.mkdir()
    app_url = serve_app(DRAG_EVAL_DATA=str(data), DRAG_EVAL_DIR=str(tmp_path / "eval"), TMPDIR=str(temporary))
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
        _upload(page, BIG_PDF, PDF)
        overall = page.get_by_test_id("stProgress").filter(
            has_text=re.compile(r"^All files: \d+ % · 0 of 2 files done")
        )
        expect(overall).to_be_visible()  # one bar for the whole upload, in one measure of work
        expect(
            page.get_by_test_id("stProgress").filter(has_text=re.compile(rf"^{BIG_PDF.name} — \d+ % · "))
        ).to_be_visible()
        expect(page.get_by_test_id("stFileChip")).to_have_count(0)  # the uploader is emptied as it is taken
        page.screenshot(path=str(SHOTS / "upload-running.png"))
        page.get_by_role("button", name="Cancel indexing").click()
        warnings = page.get_by_test_id("stAlertContentWarning")
        expect(warnings.filter(has_text=f"{BIG_PDF.name}: cancelled")).to_be_visible()
        expect(warnings.filter(has_text=f"{PDF.name}: cancelled — not started")).to_be_visible()
        expect(page.get_by_role("heading", name="Indexed documents (0)")).to_be_visible()
        expect(page.get_by_test_id("stFileChip")).to_have_count(0)
        page.wait_for_selector(IDLE)

        page.get_by_role("link", name="Evaluate", exact=True).click()
        expect(
            page.get_by_text("The first run indexes the whole data set — 515 pages in 4 documents")
        ).to_be_visible()
        page.get_by_role("button", name="Run").click()
        expect(page.get_by_role("button", name="Cancel")).to_be_visible()
        indexing = page.get_by_test_id("stProgress").filter(
            has_text=re.compile(r"^Indexing: \d+ % · 3 of 4 documents done")
        )
        expect(indexing).to_be_visible()  # the short ones are in; the long one is being indexed
        expect(
            page.get_by_test_id("stProgress").filter(
                has_text=re.compile(r"^zz-annual-report\.pdf — \d+ % · ")
            )
        ).to_be_visible()
        page.screenshot(path=str(SHOTS / "evaluate-running.png"))
        page.get_by_role("button", name="Cancel").click()
        expect(
            page.get_by_text("Cancelled. Each document of the evaluation index is whole or absent")
        ).to_be_visible()
        page.wait_for_selector(IDLE)
        assert not list((tmp_path / "eval").rglob("manifest.json"))
        assert not list(temporary.glob("drag-eval-*")), "the cancelled job's temporary folder is removed"
        page.get_by_role("link", name="Upload", exact=True).click()
        page.wait_for_selector(IDLE)
        page.get_by_role(
            "link", name="Evaluate", exact=True
        ).click()  # what is left: the three short ones are counted
        expect(
            page.get_by_text(
                "This run indexes the rest of the data set — 503 pages in 1 document (3 documents are indexed already)"
            )
        ).to_be_visible()
        page.wait_for_selector(IDLE)


def test_nothing_leaves_the_machine_and_every_page_reads_at_1000_and_1400(
    serve_app: Callable[..., str], tmp_path: Path
) -> None:
    """Every page opened by its own address, a question asked, an evaluation run: no request to another host,
    no console error (``browser_page``); then Compare (two strategies' steps), Tree and Evaluate at 1000 and
    1400 px: no text cut short, no chart texts on top of each other, every chip whole, the kept-vs-S lines
    drawn at their own size at least."""
    from playwright.sync_api import expect

    data = tmp_path / "data"
    write_page_dataset(data / "tiny-pages")
    app_url = serve_app(DRAG_SAMPLE="auto", DRAG_EVAL_DATA=str(data), DRAG_EVAL_DIR=str(tmp_path / "eval"))
    traffic = Traffic()
    with browser_page(tmp_path, traffic) as page:
        page.goto(f"{app_url}/upload")  # the first session indexes the bundled sample
        page.wait_for_selector(IDLE, timeout=STARTUP_S * 1000)
        expect(page.get_by_role("heading", name="Indexed documents (1)")).to_be_visible()
        for slug in ("tree", "compare", "evaluate", "settings", "upload", "compare"):
            page.goto(f"{app_url}/{slug}")
            page.wait_for_selector(IDLE, timeout=STARTUP_S * 1000)
        _ask_here(page, "How do I read a file with fixed-width fields?")
        page.get_by_role("link", name="Evaluate", exact=True).click()
        page.get_by_role("button", name="Run").click()
        expect(page.get_by_role("heading", name="Per query")).to_be_visible()
        page.wait_for_selector(IDLE)

        for width in (1000, 1400):
            page.set_viewport_size({"width": width, "height": 4800})
            for name, tab in (
                ("Compare", "adaptive"),
                ("Compare", "branch"),
                ("Compare", "knee-beam"),
                ("Tree", None),
                ("Evaluate", None),
            ):
                page.get_by_role("link", name=name).click()
                page.wait_for_selector(IDLE)
                if tab:
                    page.get_by_role("tab", name=tab, exact=True).click()
                    expect(page.get_by_role("tab", name=tab, selected=True)).to_be_visible()
                    page.wait_for_selector(IDLE)
                _charts_drawn(page)
                page.screenshot(path=str(SHOTS / f"{name.lower()}{'-' + tab if tab else ''}-{width}.png"))
                assert page.evaluate(TEXT_CUT_SHORT) == [], (name, tab, width)
                assert page.evaluate(CHART_TEXT_CLASHES) == [], (name, tab, width)
                assert page.evaluate(TABLES_TOO_WIDE) == [], (name, tab, width)
                if name != "Tree":  # every chosen strategy's chip whole in its picker
                    assert page.evaluate(CHIPS_SHOWN) == list(DEFAULT_STRATEGIES), (name, width)
                if tab == "adaptive":
                    legend = page.get_by_role("tabpanel").locator(".legendtext").all_text_contents()
                    assert any(t.startswith("already in the answer") for t in legend), legend
                    assert not any(t.startswith("dropped") for t in legend), "breadth adds or finds covered"
                    images = page.get_by_role("tabpanel").locator("img.kvs")
                    assert all(i.bounding_box()["width"] >= 0.9 * KVS_WIDTH for i in images.all()), width
                if (
                    tab == "knee-beam"
                ):  # its knee is pinned: the slider cannot move it, so no line says it would
                    expect(page.get_by_role("tabpanel").locator(".drag-steps")).to_be_visible()
                    expect(page.get_by_role("tabpanel").locator(".drag-kvs")).to_have_count(0)
                if name == "Evaluate":  # the headline columns in view; the heat map's rows are the questions
                    headline = page.get_by_test_id("stDataFrame").first.locator(".dvn-scroller")
                    expect(headline).to_be_visible()  # the first table: no column behind a sideways scroll
                    assert headline.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), width
                    rows = page.locator(".stPlotlyChart").last.locator(".yaxislayer-above .ytick text")
                    names = rows.all_text_contents()
                    assert names and all(re.match(r"^\d+\. \w+ \w+", n) for n in names), names
                    assert not any(re.fullmatch(r"\d+\. q\d+", n) for n in names), names
                if tab == "branch":  # every panel names its document
                    chart = page.get_by_role("tabpanel").locator(".stPlotlyChart").first
                    panel_titles = chart.locator(".annotation-text").all_text_contents()
                    assert panel_titles and all(
                        "R-data.pdf" in t or "(all documents)" in t for t in panel_titles
                    ), panel_titles


def _charts_drawn(page: Any) -> None:
    """Wait until every chart on the page is drawn at its container's width (Plotly redraws after a resize)."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('.stPlotlyChart')].every(chart => {
             const svg = chart.querySelector('svg.main-svg');
             return svg && Math.abs(svg.getBoundingClientRect().width - chart.getBoundingClientRect().width) < 3;
           })"""
    )


def test_a_page_opens_highlighted_and_labels_become_a_data_set_in_a_browser(
    serve_app: Callable[..., str], tmp_path: Path
) -> None:
    """Click a result: its page, rendered, the matching sentences highlighted; mark it relevant; the extracted
    answer's citation opens its page; the labels are a data set the Evaluate page runs on this index."""
    from urllib.parse import urlsplit

    from playwright.sync_api import expect

    app_url = serve_app()
    with browser_page(tmp_path) as page:
        hosts: set[str] = set()
        page.on(  # data: and blob: URLs are the page's own
            "request",
            lambda r: hosts.add(urlsplit(r.url).netloc) if r.url.startswith(("http", "ws")) else None,
        )
        page.goto(app_url)
        page.wait_for_selector(IDLE, timeout=STARTUP_S * 1000)
        notes = tmp_path / "notes.md"
        notes.write_text(
            "# Results\n\nNet sales grew in the fourth quarter of the year.\n\nThe weather was fine.\n"
        )
        _upload(page, PDF, notes)
        done = page.get_by_test_id("stAlertContentSuccess")
        expect(done.filter(has_text=f"{PDF.name}: indexed")).to_be_visible()
        expect(done.filter(has_text="notes.md: indexed")).to_be_visible()
        page.wait_for_selector(IDLE)
        _ask(page, QUERY)
        card = page.locator('.drag-card[data-strategy="adaptive"]')
        expect(card.locator(".snippet mark.drag-term").first).to_be_visible()  # the question's words marked
        expect(card.locator(".scores").first).to_have_text(
            re.compile(r"^cos 0\.\d{3} #\d+ · BM25 \d+\.\d\d #\d+$")
        )
        expect(page.locator(".drag-legend")).to_contain_text("cos: MiniLM cosine")
        page.wait_for_selector(IDLE)
        for width in (1000, 1400):
            page.set_viewport_size({"width": width, "height": 2600})
            page.screenshot(path=str(SHOTS / f"evidence-cards-{width}.png"), full_page=True)

        link = card.locator("a.drag-open").first
        opened = re.search(r"p\.(\d+)", link.inner_text())
        assert opened
        link.click()
        dialog = page.get_by_role("dialog")
        image = dialog.locator('[data-testid="stImage"] img')
        expect(image).to_be_visible()
        assert image.evaluate("img => img.complete && img.naturalWidth > 800")
        expect(dialog.get_by_text(f"page {opened.group(1)} of 9")).to_be_visible()
        expect(dialog.get_by_text("Highlighted: the sentences of this page that best match")).to_be_visible()
        dialog.get_by_role("radio", name="relevant", exact=True).click()
        expect(dialog.get_by_role("radio", name="relevant", exact=True)).to_have_attribute(
            "aria-checked", "true"
        )
        page.wait_for_selector(IDLE)
        for width in (1000, 1400):
            page.set_viewport_size({"width": width, "height": 1600})
            page.screenshot(path=str(SHOTS / f"evidence-page-{width}.png"))
        qrels = (tmp_path / "qdrant" / "labels" / "qrels.tsv").read_text().splitlines()
        assert qrels[1].endswith(f"\t{PDF.name}\t{opened.group(1)}\t1"), qrels
        page.keyboard.press("Escape")
        expect(dialog).to_have_count(0)

        page.get_by_text("Answer from one strategy's context").click()
        answer = page.locator(".drag-answer")
        expect(answer).to_contain_text(f"[{PDF.name} p.")
        expect(card.locator(".label.yes")).to_have_count(1)  # the cards show the page marked relevant
        page.screenshot(path=str(SHOTS / "evidence-answer-1400.png"), full_page=True)
        answer.locator("a.drag-open", has_text=PDF.name).first.click()
        expect(dialog.locator('[data-testid="stImage"] img')).to_be_visible()
        expect(dialog.get_by_text("Highlighted: the sentence the answer quotes")).to_be_visible()
        page.keyboard.press("Escape")
        expect(dialog).to_have_count(0)

        page.get_by_role("link", name="Evaluate on my labels").click()
        page.wait_for_selector(IDLE)
        expect(
            page.get_by_text("1 question with a page marked relevant, on this app's own index")
        ).to_be_visible()
        page.get_by_role("button", name="Run").click()
        expect(page.get_by_role("heading", name=re.compile(r"^my labels: 1 queries"))).to_be_visible()
        expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
        page.wait_for_selector(IDLE)
        page.screenshot(path=str(SHOTS / "evidence-my-labels-1400.png"), full_page=True)

        page.get_by_role(
            "link", name="Tree", exact=True
        ).click()  # the inspector opens pages too: a text file's as text
        page.wait_for_selector(IDLE)
        page.get_by_role("button", name="Show the page").click()
        expect(dialog.locator(".drag-page-text mark.drag-term").first).to_be_visible()
        expect(dialog.get_by_text("notes.md")).to_be_visible()
        page.keyboard.press("Escape")
        expect(dialog).to_have_count(0)
        page.get_by_test_id("stSelectbox").filter(has_text="Document").click()
        page.get_by_role("option", name=PDF.name).click()
        page.wait_for_selector(IDLE)
        page.get_by_test_id("stExpander").filter(has_text="Page 3").locator("summary").click()
        page.get_by_role("button", name="Show page 3").click()
        expect(dialog.get_by_text("page 3 of 9")).to_be_visible()
        expect(dialog.locator('[data-testid="stImage"] img')).to_be_visible()
        page.wait_for_selector(IDLE)
        page.screenshot(path=str(SHOTS / "evidence-tree-page-1400.png"))
        assert hosts == {urlsplit(app_url).netloc}, hosts


def test_labels_show_at_once_links_open_the_page_they_name_and_remove_asks_in_a_browser(
    serve_app: Callable[..., str], tmp_path: Path
) -> None:
    """At 1000 px: the knee-beam tab fits (its step table whole beside a long file name, no kept-vs-S line for
    a pinned knee); a card's page range opens its first page and its best page is a link of its own; a label
    marked in the viewer shows in the cards and the labels panel as soon as the viewer is closed; Remove asks
    once."""
    from playwright.sync_api import expect

    app_url = serve_app(DRAG_SAMPLE="auto")
    with browser_page(tmp_path) as page:
        page.set_viewport_size({"width": 1000, "height": 2600})
        page.goto(f"{app_url}/upload")
        page.wait_for_selector(IDLE, timeout=STARTUP_S * 1000)
        expect(page.get_by_role("heading", name="Indexed documents (1)")).to_be_visible()
        _upload(page, PDF)  # a long file name for the steps' titles and table
        expect(
            page.get_by_test_id("stAlertContentSuccess").filter(has_text=f"{PDF.name}: indexed")
        ).to_be_visible()
        page.wait_for_selector(IDLE)

        _ask(page, QUERY)
        page.wait_for_selector(IDLE)
        page.get_by_role("tab", name="knee-beam", exact=True).click()
        expect(page.get_by_role("tab", name="knee-beam", selected=True)).to_be_visible()
        page.wait_for_selector(IDLE)
        _charts_drawn(page)
        panel = page.get_by_role("tabpanel")
        expect(panel.locator(".stPlotlyChart")).to_have_count(1)
        page.screenshot(path=str(SHOTS / "compare-knee-beam-1000.png"), full_page=True)
        assert page.evaluate(TABLES_TOO_WIDE) == []
        assert page.evaluate(CHART_TEXT_CLASHES) == []
        assert page.evaluate(TEXT_CUT_SHORT) == []
        expect(panel.locator(".drag-kvs")).to_have_count(0)  # the slider cannot move a pinned knee

        _ask_here(page, "How do I read a CSV file?")
        section = (
            page.locator(".drag-card li").filter(has=page.locator("a.drag-open", has_text="best p.")).first
        )
        expect(section).to_be_visible()
        span = section.locator("a.drag-open").first
        first, last = map(int, re.search(r"p\.(\d+)–(\d+)", span.inner_text()).groups())
        best = int(re.search(r"best p\.(\d+)", section.locator("a.drag-open").nth(1).inner_text()).group(1))
        assert first < last and first <= best <= last and best != first
        span.click()  # the range opens its first page
        dialog = page.get_by_role("dialog")
        expect(dialog.get_by_text(re.compile(rf"— page {first} of \d+$"))).to_be_visible()
        dialog.get_by_role("radio", name="relevant", exact=True).click()
        expect(dialog.get_by_role("radio", name="relevant", exact=True)).to_have_attribute(
            "aria-checked", "true"
        )
        page.wait_for_selector(IDLE)
        page.keyboard.press("Escape")
        expect(dialog).to_have_count(0)
        # no other click: the cards and the labels panel show the label as soon as the viewer is closed
        expect(section.locator(".label.yes")).to_have_count(1)
        expect(page.get_by_text(re.compile(r"^1 question · 1 page marked relevant"))).to_be_visible()
        page.wait_for_selector(IDLE)
        page.screenshot(path=str(SHOTS / "compare-cards-1000.png"), full_page=True)
        section.locator("a.drag-open", has_text="best p.").click()  # the best page, one click away
        expect(dialog.get_by_text(re.compile(rf"— page {best} of \d+$"))).to_be_visible()
        page.keyboard.press("Escape")
        expect(dialog).to_have_count(0)
        page.wait_for_selector(IDLE)

        page.get_by_role("link", name="Upload", exact=True).click()
        page.wait_for_selector(IDLE)
        page.locator(".st-key-remove button").click()  # asked once: nothing is removed yet
        warning = page.get_by_test_id("stAlertContentWarning").filter(has_text="from the index?")
        expect(warning).to_be_visible()
        expect(page.get_by_role("heading", name="Indexed documents (2)")).to_be_visible()
        page.locator(".st-key-remove_kept button").click()
        expect(warning).to_have_count(0)
        expect(page.get_by_role("heading", name="Indexed documents (2)")).to_be_visible()
        page.locator(".st-key-remove button").click()
        page.locator(".st-key-remove_confirmed button").click()
        expect(page.get_by_role("heading", name="Indexed documents (1)")).to_be_visible()
        page.wait_for_selector(IDLE)
