"""How fast a highlighted page opens: pages of a 99-page 10-K (ADOBE_2022_10K.pdf) rendered at the viewer's
scale with the snippet of a question highlighted — first (nothing remembered: the file's bytes read, the PDF
opened, the page rendered, every character's box read, the highlight blended, the PNG written) and again with
another question's highlight (the render remembered: a blend and a PNG). The baseline, measured in the same
run on the same pages: PDFium alone opening the document and rendering the page to pixels.

Run: ``nice -n 10 .venv/bin/python bench/evidence_render.py [PDF] [--every 7] [--repeat 3]``. Prints medians
and 90th percentiles in ms, the ratios to the targets (first ≤ 300 ms, cached ≤ 30 ms) and to the baseline.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pypdfium2 as pdfium

from drag_core.evidence import PageImages, snippet
from drag_core.evidence.render import SCALE
from drag_core.ingest.pdf_text import pdf_pages

REPO = Path(__file__).resolve().parents[1]
PDF = REPO.parent / "shared" / "data" / "financebench-dev" / "docs" / "ADOBE_2022_10K.pdf"
QUESTIONS = ("What was the total revenue in fiscal 2022?", "How much cash did operating activities provide?")
FIRST_TARGET_MS, CACHED_TARGET_MS = 300.0, 30.0


def _plain_render(path: Path, number: int) -> None:
    document = pdfium.PdfDocument(path.read_bytes())
    page = document[number - 1]
    page.render(scale=SCALE, rev_byteorder=True).to_numpy()
    page.close()
    document.close()


def _line(name: str, values: list[float], target: float | None, baseline: float) -> str:
    median = statistics.median(values)
    p90 = sorted(values)[int(0.9 * (len(values) - 1))]
    aim = f", {median / target:.2f}× the target {target:.0f} ms" if target else ""
    return (
        f"  {name:<28} median {median:6.1f} ms, p90 {p90:6.1f} ms, {median / baseline:.2f}× the baseline{aim}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdf", nargs="?", type=Path, default=PDF)
    parser.add_argument("--every", type=int, default=7, help="every Nth page")
    parser.add_argument("--repeat", type=int, default=3, help="passes over the pages")
    args = parser.parse_args()
    texts = pdf_pages(args.pdf.read_bytes(), 3000)
    numbers = list(range(1, len(texts) + 1, args.every))
    plain, first, cached = [], [], []
    for _ in range(args.repeat):
        for number in numbers:
            text = texts[number - 1]
            started = time.perf_counter()
            _plain_render(args.pdf, number)
            plain.append((time.perf_counter() - started) * 1000)
            images = PageImages()  # nothing remembered
            shown = [snippet(q, text) for q in QUESTIONS]
            started = time.perf_counter()
            images.image("bench", args.pdf.read_bytes, number, text, shown[0].highlights, shown[0].marks)
            first.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            images.image("bench", args.pdf.read_bytes, number, text, shown[1].highlights, shown[1].marks)
            cached.append((time.perf_counter() - started) * 1000)
    baseline = statistics.median(plain)
    print(
        f"{args.pdf.name}: {len(texts)} pages; pages {numbers[0]}, {numbers[1]}, … {numbers[-1]} × {args.repeat}"
    )
    print(_line("PDFium open + render (base)", plain, None, baseline))
    print(_line("first highlighted page", first, FIRST_TARGET_MS, baseline))
    print(_line("cached page, new highlight", cached, CACHED_TARGET_MS, baseline))
    return 0


if __name__ == "__main__":
    sys.exit(main())
