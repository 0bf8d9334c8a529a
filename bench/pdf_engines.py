"""PDF text engines side by side: pages a second and text quality, PDFium (pypdfium2) against pypdf.

Run: ``.venv/bin/python bench/pdf_engines.py [--filings 17]``. Every file is read by both engines in this
process, one engine after the other per file (so both see the same load). Text quality is the word-split
rate: the share of words (runs of 2+ letters, lower-cased) that are not whole words of MiniLM's WordPiece
vocabulary — words glued together ("therearetwomethods") or torn apart ("associat ing") are not, so the rate
rises with either fault. The files: ``debian-reference.en.pdf`` (the spacing hard case), the five manuals of
manuals-dev, and the N smallest financebench-dev filings.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from collections import defaultdict
from pathlib import Path

from drag_core.config import PDF_ENGINES
from drag_core.ingest.loading import load_path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
VOCAB = REPO / "models" / "all-MiniLM-L6-v2" / "vocab.txt"
WORD = re.compile(r"[A-Za-z]{2,}")


def groups(filings: int) -> dict[str, list[Path]]:
    """The files of each group, by name."""
    finance = sorted((SHARED / "financebench-dev" / "docs").glob("*.pdf"), key=lambda p: p.stat().st_size)
    return {
        "debian-reference": [SHARED / "pdfs" / "debian-reference.en.pdf"],
        "manuals-dev": sorted((SHARED / "manuals-dev" / "docs").glob("*.pdf")),
        f"financebench-dev ({min(filings, len(finance))} filings)": finance[:filings],
    }


def split_rate(texts: list[str], vocabulary: set[str]) -> tuple[float, int]:
    """Share of words not in the vocabulary, and the number of words."""
    words = [w.lower() for text in texts for w in WORD.findall(text)]
    return sum(w not in vocabulary for w in words) / max(1, len(words)), len(words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--filings", type=int, default=17, help="the N smallest financebench-dev filings")
    args = parser.parse_args()
    vocabulary = {line.strip() for line in VOCAB.read_text().splitlines() if not line.startswith("##")}
    print(f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f}")
    print("| files | engine | pages | seconds | pages/s | × pypdf speed | words | word-split rate |")
    print("|---|---|---|---|---|---|---|---|")
    for name, files in groups(args.filings).items():
        seconds: dict[str, float] = defaultdict(float)
        texts: dict[str, list[str]] = defaultdict(list)
        for i, path in enumerate(files):
            for engine in PDF_ENGINES[:: 1 if i % 2 == 0 else -1]:  # alternate who goes first
                started = time.perf_counter()
                document = load_path(path, pdf_engine=engine)
                seconds[engine] += time.perf_counter() - started
                texts[engine] += [page.text for page in document.pages]
        for engine in PDF_ENGINES:
            rate, words = split_rate(texts[engine], vocabulary)
            pages = len(texts[engine])
            speed = seconds["pypdf"] / seconds[engine]
            print(
                f"| {name} | {engine} | {pages} | {seconds[engine]:.1f} | {pages / seconds[engine]:.1f} "
                f"| {speed:.1f} | {words} | {rate:.3f} |"
            )
    print(f"load={os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
