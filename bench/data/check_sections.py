"""Re-check the section data sets against the PDFs: every question's section starts in the middle of its page.

Each data set folder (``sections-dev`` and ``sections-train`` by default) has a ``sections.tsv`` beside its
qrels: one row per question with the answering section's number and outline title, the page where it starts,
the character offset of its heading in that page's pypdf text and the share of the page's text above the
heading. For every row the script checks, from the PDFs in the folder's ``docs/``:

* the heading (section number then title; spaces, line breaks and quote styles ignored) occurs exactly once in
  the pypdf text of the labelled start page, at the recorded offset;
* the section starts in the middle of the page: the text above the heading is at least 25 % of the page's text
  or at least 600 characters (recorded share and offset must agree with the recomputed ones);
* the PDF outline (read with pypdfium2) has a bookmark with that title pointing at that page;
* the qrels give that page score 2, and any other relevant page of the question (score 1) follows it.

Run: ``.venv/bin/python bench/data/check_sections.py [FOLDER ...]`` from the repository root (PYTHONPATH set to
it); the exit status is 1 when any check fails.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium
from pypdf import PdfReader

from drag_core.evaluation.datasets import load_dataset

HERE = Path(__file__).resolve().parent
FOLDERS = (HERE / "sections-dev", HERE / "sections-train")
MIN_CHARS = 600
MIN_SHARE = 0.25
SECTIONS_FILE = "sections.tsv"
COLUMNS = ("query-id", "file", "page", "section", "title", "offset", "share")
_QUOTES = "'`\"\u2018\u2019\u201c\u201d"


@dataclass(frozen=True)
class SectionRow:
    """One question's answering section, as recorded in ``sections.tsv``.

    Attributes:
        query_id: the question's id.
        file: the PDF the section is in.
        page: the 1-based page (pypdf index + 1) where the section starts.
        number: the section number printed before the heading, e.g. ``"7.21"``.
        title: the heading's text as in the PDF outline.
        offset: the character offset of the heading in the page's pypdf text.
        share: the share of the page's text above the heading (offset / length), rounded to 2 places.
    """

    query_id: str
    file: str
    page: int
    number: str
    title: str
    offset: int
    share: float


@dataclass
class Check:
    """The outcome for one row: the recomputed position of the heading and what is wrong (nothing when fine)."""

    row: SectionRow
    offset: int = -1
    length: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def share(self) -> float:
        """The share of the page's text above the heading (0 when the heading was not found)."""
        return self.offset / self.length if self.offset >= 0 and self.length else 0.0


def read_sections(folder: Path) -> list[SectionRow]:
    """The rows of a data set's ``sections.tsv``, in file order."""
    with (folder / SECTIONS_FILE).open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return [
            SectionRow(
                row["query-id"],
                row["file"],
                int(row["page"]),
                row["section"],
                row["title"],
                int(row["offset"]),
                float(row["share"]),
            )
            for row in rows
        ]


def _squash(text: str) -> str:
    """Lower case, no white space, one quote character: how titles are compared."""
    text = text.replace("``", '"').replace("''", '"')
    return "".join("'" if ch in _QUOTES else ch.lower() for ch in text if not ch.isspace())


def heading_offsets(text: str, number: str, title: str) -> list[int]:
    """Where the heading ``number title`` starts a line of ``text`` (white space and quote styles ignored)."""
    parts = [
        f"[{re.escape(_QUOTES)}]" if ch in _QUOTES else re.escape(ch)
        for ch in number + title
        if not ch.isspace()
    ]
    pattern = r"\s*".join(parts)
    return [match.start() for match in re.finditer(rf"(?m)^{pattern}\s*$", text)]


def is_mid_page(offset: int, length: int) -> bool:
    """True when the text above a heading at ``offset`` of a page of ``length`` characters is substantial."""
    return offset >= MIN_CHARS or (length > 0 and offset / length >= MIN_SHARE)


class Pdfs:
    """The data set's PDFs, opened once: page text by pypdf, outline and page count by pypdfium2."""

    def __init__(self, docs: Path) -> None:
        self.docs = docs
        self._readers: dict[str, PdfReader] = {}
        self._outlines: dict[str, list[tuple[str, int]]] = {}
        self._counts: dict[str, int] = {}

    def text(self, file: str, page: int) -> str:
        """The pypdf text of 1-based ``page`` of ``file``."""
        if file not in self._readers:
            self._readers[file] = PdfReader(self.docs / file)
        return self._readers[file].pages[page - 1].extract_text()

    def _load(self, file: str) -> None:
        document = pdfium.PdfDocument(self.docs / file)
        try:
            self._counts[file] = len(document)
            outline = []
            for bookmark in document.get_toc():
                dest = bookmark.get_dest()
                index = dest.get_index() if dest is not None else None
                if index is not None:
                    outline.append((bookmark.get_title(), index + 1))
            self._outlines[file] = outline
        finally:
            document.close()

    def outline(self, file: str) -> list[tuple[str, int]]:
        """The bookmarks of ``file`` as (title, 1-based page), in outline order."""
        if file not in self._outlines:
            self._load(file)
        return self._outlines[file]

    def page_count(self, file: str) -> int:
        """The number of pages of ``file`` (pypdfium2)."""
        if file not in self._counts:
            self._load(file)
        return self._counts[file]


def check_section(row: SectionRow, grades: dict[tuple[str, int], int], pdfs: Pdfs) -> Check:
    """Check one row against the PDF and the question's qrels (``(file, page) -> score``)."""
    check = Check(row)
    text = pdfs.text(row.file, row.page)
    check.length = len(text)
    offsets = heading_offsets(text, row.number, row.title)
    if len(offsets) != 1:
        check.problems.append(f"heading found {len(offsets)} times on page {row.page}")
    else:
        check.offset = offsets[0]
        if not is_mid_page(check.offset, check.length):
            check.problems.append(f"heading at {check.offset}/{check.length}: not in the middle of the page")
        if check.offset != row.offset or round(check.share, 2) != row.share:
            check.problems.append(f"recorded offset {row.offset} ({row.share}), found {check.offset}")
    if (_squash(row.title), row.page) not in {
        (_squash(title), page) for title, page in pdfs.outline(row.file)
    }:
        check.problems.append(f"no outline bookmark '{row.title}' on page {row.page}")
    if grades.get((row.file, row.page)) != 2:
        check.problems.append(f"qrels do not give the start page {row.page} score 2")
    for (file, page), score in grades.items():
        after = page == row.page if score == 2 else row.page < page <= pdfs.page_count(file)
        if file != row.file or not after:
            check.problems.append(f"relevant page {file} {page} (score {score}) is not the start or after it")
    return check


def check_folder(folder: Path) -> list[Check]:
    """Check every row of a data set folder; also that the rows and the questions are the same ids."""
    dataset = load_dataset(folder)
    rows = read_sections(folder)
    pdfs = Pdfs(folder / "docs")
    checks = [check_section(row, dataset.qrels.get(row.query_id, {}), pdfs) for row in rows]
    missing = {query.id for query in dataset.queries} ^ {row.query_id for row in rows}
    if missing:
        extra = SectionRow(",".join(sorted(missing)), "-", 0, "-", "-", -1, 0.0)
        checks.append(Check(extra, problems=["questions and sections.tsv rows differ"]))
    return checks


def main(argv: list[str] | None = None) -> int:
    """Print one line per question with its heading's offset and share; 1 when any check fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=list(FOLDERS), help="data set folders")
    args = parser.parse_args(argv)
    failed = 0
    for folder in args.folders:
        checks = check_folder(folder)
        bad = [check for check in checks if check.problems]
        failed += len(bad)
        print(f"{folder.name}: {len(checks)} questions, {len(checks) - len(bad)} pass")
        for check in checks:
            row = check.row
            status = "ok" if not check.problems else "FAIL: " + "; ".join(check.problems)
            print(
                f"  {row.query_id:7} {row.file:25} p{row.page:<4} {row.number:8} "
                f"{check.offset:5}/{check.length:<5} {check.share:4.0%}  {row.title[:48]:48}  {status}"
            )
    print("all checks pass" if not failed else f"{failed} questions fail")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
