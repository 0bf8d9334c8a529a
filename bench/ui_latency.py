"""The Compare page as a live instrument: key-press-to-idle for one Sensitivity step and the page's first
open, against Streamlit's own floor (a minimal page with one slider), both served and driven in one run.

Run: ``nice -n 10 .venv/bin/python bench/ui_latency.py [--index FOLDER …] [--steps 12] [--opens 5]``
(the models from ``DRAG_MODEL_DIR`` when set, else ``models/``: a worktree has none of its own).

``streamlit run`` servers on 127.0.0.1: ``app.py`` on a private copy of each index (at least 10,000 nodes;
``bench/ui_index.py`` builds one, default ``data/bench/ui-index``; ``bench/scale.py`` builds larger ones) and
``bench/minimal_app.py``. Besides Compare, the first open of each app's Upload page (until its document
list is drawn) and Tree page (until the root's page texts are drawn) is measured, so several indexes compare
in one run (``× first index``). Headless Chromium (Playwright, Debian's chromium) opens each page in a fresh
browser context (a new session) and waits until the script is idle and the results are drawn (``first
open``), then presses the arrow key on the Sensitivity slider, alternating right and left, and measures in
the page's clock from the key press to the page showing what the rerun drew (its last element changed:
``S = …`` on the minimal page, ``Drawn in …`` on Compare) with the script idle; a fragment rerun counts.
Pages take turns so machine noise falls on all alike. Prints every median and the ratios (targets: slider
step ≤ 2×, first open ≤ 3×).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
QUERY = "Vitamin D deficiency is associated with increased risk of cardiovascular disease"
STARTUP_S = 300
#: The text of the last element a page draws from the slider (``S = …`` on the minimal page; the Compare
#: page's ``Drawn in … (view N)`` line, which changes with every rerun of its fragment).
MARKER = """prefix => {
    const found = [...document.querySelectorAll('[data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"]')]
        .map(e => e.innerText).filter(t => t.startsWith(prefix));
    return found.length ? found[found.length - 1] : null;
}"""
#: The page's clock once the marker differs from ``old`` and the script is idle, else null (polled).
DONE = """([prefix, old]) => {
    const found = [...document.querySelectorAll('[data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"]')]
        .map(e => e.innerText).filter(t => t.startsWith(prefix));
    const now = found.length ? found[found.length - 1] : null;
    const idle = document.querySelector('[data-testid="stApp"]')
        .getAttribute('data-test-script-state') === 'notRunning';
    return now !== null && now !== old && idle ? performance.now() : null;
}"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve(script: Path, env: dict[str, str], log: Path) -> Iterator[str]:
    """``streamlit run script`` on a free port of 127.0.0.1; yields its URL once healthy."""
    port = _free_port()
    command = [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true"]
    with log.open("w") as out:
        server = subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + STARTUP_S
            while True:
                if server.poll() is not None:
                    raise RuntimeError(f"{script.name} exited; see {log}")
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.2)
            yield f"http://127.0.0.1:{port}"
        finally:
            server.terminate()
            server.wait(timeout=60)


def open_page(browser, url: str, ready: str) -> tuple[object, float]:
    """A fresh context (a new Streamlit session) on ``url``; milliseconds until idle with ``ready`` drawn."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(STARTUP_S * 1000)
    started = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(ready, state="visible")
    page.wait_for_selector(IDLE)
    return page, (time.perf_counter() - started) * 1000


def slider_steps(page, steps: int, marker: str) -> list[float]:
    """Milliseconds from an arrow key on the Sensitivity slider until the page has drawn the rerun it caused
    (its last element, starting with ``marker``, changed) and the script is idle."""
    thumb = page.get_by_test_id("stSlider").filter(has_text="Sensitivity").get_by_role("slider")
    thumb.focus()
    times = []
    for i in range(steps):
        old = page.evaluate(MARKER, marker)
        t0 = page.evaluate("performance.now()")
        thumb.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        end = page.wait_for_function(DONE, arg=[marker, old], polling=10).json_value()
        times.append(end - t0)
        print(f"  {marker!r}: step {i + 1} {end - t0:.0f} ms", file=sys.stderr, flush=True)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, nargs="+", default=[REPO / "data" / "bench" / "ui-index"])
    parser.add_argument("--steps", type=int, default=12, help="slider steps per page")
    parser.add_argument("--opens", type=int, default=5, help="first opens per page")
    parser.add_argument("--shots", type=Path, help="folder for a screenshot of the Compare page")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="drag-ui-bench-") as tmp, ExitStack() as servers:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("DRAG_", "OPENAI_", "QDRANT_"))}
        base |= {
            "HF_HUB_OFFLINE": "1",
            "DRAG_MODEL_DIR": os.environ.get("DRAG_MODEL_DIR", str(REPO / "models")),
        }
        minimal = servers.enter_context(
            serve(REPO / "bench" / "minimal_app.py", base, Path(tmp) / "minimal.log")
        )
        pages = {"minimal": (f"{minimal}/", "text=S = ")}
        apps = []
        for i, index in enumerate(args.index):
            store = shutil.copytree(index, Path(tmp) / f"qdrant-{i}")
            env = base | {
                "DRAG_STORE": str(store),
                "DRAG_SAMPLE": "off",
                "DRAG_CACHE": str(Path(tmp) / f"c{i}.db"),
            }
            app = servers.enter_context(serve(REPO / "app.py", env, Path(tmp) / f"app-{i}.log"))
            apps.append(app)
            pages |= {
                f"{index.name} compare": (f"{app}/compare?q={urllib.parse.quote(QUERY)}", "text=Drawn in"),
                f"{index.name} upload": (f"{app}/upload", "text=Indexed documents"),
                f"{index.name} tree": (f"{app}/tree", "text=Page text"),
            }
        playwright = servers.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        cold_ms = []
        for app in apps:  # loads the models: reported, not counted
            cold, ms = open_page(browser, f"{app}/", IDLE)
            cold.context.close()
            cold_ms.append(round(ms))
        opens: dict[str, list[float]] = {name: [] for name in pages}
        steps: dict[str, list[float]] = {name: [] for name in pages if not name.endswith(("upload", "tree"))}
        for round_ in range(args.opens):
            names = list(pages)[round_ % len(pages) :] + list(pages)[: round_ % len(pages)]
            for name in names:
                page, ms = open_page(browser, *pages[name])
                opens[name].append(ms)
                print(f"  {name}: first open {ms:.0f} ms", file=sys.stderr, flush=True)
                if round_ == 0 and name in steps:
                    steps[name] += slider_steps(page, args.steps, "S = " if name == "minimal" else "Drawn in")
                    if args.shots and name.endswith("compare"):
                        page.screenshot(path=str(args.shots / "bench-compare.png"), full_page=True)
                page.context.close()
        browser.close()
    report(args.index, opens, steps, cold_ms)


def report(
    indexes: list[Path], opens: dict[str, list[float]], steps: dict[str, list[float]], cold: list[int]
) -> None:
    """Medians, each page's ratio to the minimal page, and each index's ratio to the first index."""
    print(
        f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f} indexes={[str(i) for i in indexes]} cold opens={cold} ms"
    )
    print("| measure | ms (median) | × minimal page | × first index | target |")
    print("|---|---|---|---|---|")
    floor_step, floor_open = statistics.median(steps["minimal"]), statistics.median(opens["minimal"])
    print(f"| minimal: Sensitivity step / first open | {floor_step:.0f} / {floor_open:.0f} | 1 | | |")
    first = indexes[0].name
    for index in indexes:
        for page, data, floor, target in (
            ("compare", steps, floor_step, "step ≤ 2× minimal"),
            ("compare", opens, floor_open, "open ≤ 3× minimal"),
            ("upload", opens, floor_open, ""),
            ("tree", opens, floor_open, ""),
        ):
            ours = statistics.median(data[f"{index.name} {page}"])
            versus = ours / statistics.median(data[f"{first} {page}"])
            what = "Sensitivity step" if data is steps else "first open"
            print(
                f"| {index.name}: {page} {what} | {ours:.0f} | {ours / floor:.2f}× | {versus:.2f}× | {target} |"
            )
    for name in opens:
        print(
            f"  {name}: steps {[round(x) for x in steps.get(name, [])]} opens {[round(x) for x in opens[name]]}"
        )


if __name__ == "__main__":
    main()
