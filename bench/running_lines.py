"""Running headers and footers over the development documents: how many lines are recognised per document, how
many of them the page text holds (what the vectors read before), and how many are left in what the vectors
read now (the target: none), with both PDF engines.

Run: ``.venv/bin/python bench/running_lines.py [--engines pdfium pypdf] [--all-pdfs]``. What a page's vectors read
is ``vector_text.leaf_text``, dense and BM25 (the page body under the file's title, and the section's for BM25);
the check is ``RunningLines.left_in``. Exits 1 when a recognised line is left in the vectors of any page.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from drag_core.config import PDF_ENGINES
from drag_core.ingest.loading import load_path
from drag_core.ingest.running_lines import find_running_lines
from drag_core.ingest.tree import plan_tree
from drag_core.ingest.vector_text import leaf_text, title_of
from drag_core.types import Node

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
DEV_SETS = ("financebench-dev", "manuals-dev")


def files(all_pdfs: bool) -> list[Path]:
    """The PDFs of the development sets (and of ``shared/data/pdfs`` with ``all_pdfs``), each name once."""
    folders = [SHARED / name / "docs" for name in DEV_SETS] + ([SHARED / "pdfs"] if all_pdfs else [])
    seen: dict[str, Path] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.pdf")):
            seen.setdefault(path.name, path)
    return list(seen.values())


def vector_texts(path: Path, engine: str) -> tuple[list[str], list[str], list[str]]:
    """A PDF's page texts, and below their heading line (file title, › section for BM25) what each page's
    dense and BM25 vectors read."""
    document = load_path(path, pdf_engine=engine)
    bodies = [page.body for page in document.pages]
    dense, sparse = [], []
    for page, title in zip(document.pages, plan_tree(document).page_titles):
        leaf = Node(
            0, -1, [], 0, document.doc_id, document.file_name, page.number, page.number, [], "", title=title
        )
        for read, as_sparse in ((dense, False), (sparse, True)):
            text = leaf_text(leaf, bodies, as_sparse) if page.body.strip() else ""
            read.append(text.split("\n", 1)[-1] if title_of(document.file_name) or title else text)
    return [page.text for page in document.pages], dense, sparse


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", nargs="+", choices=PDF_ENGINES, default=list(PDF_ENGINES))
    parser.add_argument("--all-pdfs", action="store_true", help="also the manuals of shared/data/pdfs")
    args = parser.parse_args()
    left_total = 0
    print(
        "| engine | file | pages | lines left out (repeating kinds) | other page-number lines "
        "| in the page text (at least) | left in the vectors | ms |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for engine in args.engines:
        totals = [0, 0, 0, 0]
        for path in files(args.all_pdfs):
            pages, dense, sparse = vector_texts(path, engine)
            started = time.perf_counter()
            found = find_running_lines(pages)
            ms = (time.perf_counter() - started) * 1000
            removed = sum(1 for edits in found.edits for replacement in edits.values() if not replacement)
            before = len(found.left_in(pages, pages))
            left = len(found.left_in(pages, dense)) + len(found.left_in(pages, sparse))
            for i, n in enumerate((len(pages), removed, before, left)):
                totals[i] += n
            left_total += left
            print(
                f"| {engine} | {path.name} | {len(pages)} | {removed} ({len(found.counts)}) | {found.page_numbers} "
                f"| {before} | {left} | {ms:.0f} |"
            )
        print(f"| {engine} | **all** | {totals[0]} | {totals[1]} | | {totals[2]} | **{totals[3]}** | |")
    return 1 if left_total else 0


if __name__ == "__main__":
    sys.exit(main())
