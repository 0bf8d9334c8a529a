"""Whatever people upload: each bad file fails alone with a one-line reason and leaves no node behind, the
good files of the same batch are indexed — through the engine (the app's upload path) and through the CLI.

Every bad input is made here: empty, truncated, corrupt, password-encrypted, scanned-only, mislabelled and
binary files, a text too long to index; and the awkward good ones: Latin-1, UTF-16 with a BOM, one huge line,
odd file names, a 500-page PDF.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FINANCE, SAMPLE_PDF, run_cli
from pdf_factory import encrypted_pdf, numbered_pages, scanned_pdf, text_pdf, truncated

from drag_core.config import PDF_ENGINES
from drag_core.engine import Engine
from drag_core.ingest.loading import SECTION_CHARS, LoadError, load_bytes
from drag_core.ingest.report import STAGES, ProgressEvent
from drag_core.search import SearchParams

SMALL_PDF = FINANCE / "PEPSICO_2023_8K_dated-2023-05-05.pdf"
LATIN = "Crème brûlée and café au lait: a façade of naïve Zürich pâtisserie. "
UNICODE = "Ωmega über straße — 東京 and Ελλάδα, typed in UTF-16. "
ONE_LINE = " ".join(f"token{i}" for i in range(4000))


def noise(size: int) -> bytes:
    """Deterministic bytes that look random."""
    blocks = (hashlib.sha256(str(i).encode()).digest() for i in range(size // 32 + 1))
    return b"".join(blocks)[:size]


# file name → (its bytes, the reason it must fail with)
BAD: dict[str, tuple[Callable[[], bytes], str]] = {
    "zero bytes.pdf": (lambda: b"", r"^empty file \(0 bytes\)$"),
    "truncated.pdf": (lambda: truncated(SMALL_PDF), r"^broken PDF: truncated"),
    "corrupt.pdf": (lambda: b"%PDF-1.7\n" + noise(20_000) + b"\n%%EOF\n", r"^broken PDF \("),
    "locked.pdf": (
        lambda: encrypted_pdf(text_pdf(["Board minutes, confidential."])),
        r"encrypted with a password",
    ),
    "scanned.pdf": (lambda: scanned_pdf(3), r"^no extractable text"),
    "invoice.pdf": (lambda: b"PK\x03\x04 a zip archive renamed to .pdf", r"^not a PDF"),
    "binary.txt": (lambda: noise(4096), r"^binary data"),
    "empty.md": (lambda: b"", r"^empty file"),
    "blank.md": (lambda: b"\n   \n\t\n", r"^no text: only blank lines"),
    "endless.txt": (lambda: b"word " * 2_500_000, r"^text too long"),  # 12.5 MB on one line
}
# file name → (its bytes, a string its pages must contain once decoded)
GOOD: dict[str, tuple[Callable[[], bytes], str]] = {
    "latin-1.txt": (lambda: (LATIN * 40).encode("latin-1"), "Crème brûlée"),
    "utf-16.txt": (lambda: (UNICODE * 40).encode("utf-16"), "東京"),
    "one line.txt": (lambda: ONE_LINE.encode(), "token3999"),
    "Résumé 日本語 notes.md": (lambda: "# 茶道\n\nTea ceremony notes: matcha, chawan.".encode(), "chawan"),
    SMALL_PDF.name: (SMALL_PDF.read_bytes, "PepsiCo"),
}


def assert_holds_exactly(engine: Engine, names: set[str]) -> None:
    """The index lists exactly these documents, each whole, and no other point."""
    docs = engine.documents()
    assert {d.file_name for d in docs} == names
    for doc in docs:
        assert len(engine.tree(doc.file_name)) == doc.nodes
    assert engine.store.count() == sum(d.nodes for d in docs), "points outside complete documents"


def page_text(engine: Engine, file_name: str) -> str:
    return "\n".join(n.text for n in engine.tree(file_name, with_text=True) if n.level == 0)


def test_upload_batch_indexes_the_good_files_and_explains_each_bad_one(
    make_engine: Callable[..., Engine],
) -> None:
    engine = make_engine()
    batch = sorted({**BAD, **GOOD}.items())  # good and bad files mixed
    reports = {name: engine.ingest_bytes(name, make()) for name, (make, _) in batch}

    for name, (_, reason) in BAD.items():
        report = reports[name]
        assert report.status == "failed", name
        assert re.search(reason, report.reason), (name, report.reason)
        assert "\n" not in report.line() and name in report.line()
    for name, (_, expected) in GOOD.items():
        assert reports[name].status == "indexed", reports[name].line()
        assert expected in page_text(engine, name), name
    assert_holds_exactly(engine, set(GOOD))

    one_line = [n.text for n in engine.tree("one line.txt", with_text=True) if n.level == 0]
    assert len(one_line) >= len(ONE_LINE) // SECTION_CHARS
    assert max(map(len, one_line)) <= SECTION_CHARS
    assert " ".join(one_line).split() == ONE_LINE.split(), "no word lost or cut at a section boundary"


def test_cli_batch_exits_non_zero_names_each_failure_and_indexes_the_rest(tmp_path: Path) -> None:
    folder = tmp_path / "uploads"
    (folder / "sub").mkdir(parents=True)
    for name, (make, _) in {**BAD, **GOOD}.items():
        (folder / name).write_bytes(make())
    paths = [str(folder / name) for name in {**BAD, **GOOD} if name != "latin-1.txt"]
    paths.append(str(folder / "sub" / ".." / "latin-1.txt"))  # a path through ..
    env = {"DRAG_STORE": str(tmp_path / "index" / "qdrant")}

    done = run_cli("ingest", *paths, env=env)

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == len(BAD) + len(GOOD), "one line per file"
    by_name = {line.split(": ", 1)[0]: line for line in lines}
    for name, (_, reason) in BAD.items():
        assert by_name[name].startswith(f"{name}: FAILED — "), by_name[name]
        assert re.search(reason, by_name[name].split(" — ", 1)[1]), by_name[name]
    for name in GOOD:
        assert by_name[name].startswith(f"{name}: indexed"), by_name[name]

    listed = run_cli("docs", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    assert {d["file_name"] for d in json.loads(listed.stdout)} == set(GOOD)


@pytest.mark.parametrize(
    ("upload_name", "stored_name"),
    [
        ("../../etc/passwd.txt", "passwd.txt"),
        ("reports/2023/q1 summary.md", "q1 summary.md"),
        ("C:\\Users\\me\\Desktop\\notes.txt", "notes.txt"),
        ("  quarterly report (final).txt  ", "quarterly report (final).txt"),
        ("résumé – 日本語.md", "résumé – 日本語.md"),
        ("bell\x07and\x00null.txt", "bellandnull.txt"),
    ],
)
def test_file_names_are_reduced_to_a_plain_base_name(
    make_engine: Callable[..., Engine], upload_name: str, stored_name: str
) -> None:
    engine = make_engine()
    report = engine.ingest_bytes(upload_name, b"Minutes of the tea committee: oolong, sencha and matcha.")
    assert report.status == "indexed", report.line()
    assert report.file_name == stored_name
    assert [d.file_name for d in engine.documents()] == [stored_name]
    assert engine.tree(stored_name)[0].file_name == stored_name


@pytest.mark.parametrize("upload_name", ["..", "../", "/", "a/..", "\x00\x01", "   "])
def test_a_name_with_no_file_part_is_refused(make_engine: Callable[..., Engine], upload_name: str) -> None:
    engine = make_engine()
    report = engine.ingest_bytes(upload_name, b"some text")
    assert report.status == "failed"
    assert report.reason.startswith("unusable file name")
    assert "\n" not in report.line()
    assert engine.store.count() == 0


def test_a_failed_upload_with_a_line_break_in_its_name_still_reports_one_line(
    make_engine: Callable[..., Engine],
) -> None:
    report = make_engine().ingest_bytes("evil\nname\r.pdf", b"not a pdf")
    assert report.status == "failed"
    assert report.line() == "evilname.pdf: FAILED — not a PDF (no %PDF header)"


def test_a_500_page_pdf_is_indexed_whole_and_reports_progress(make_engine: Callable[..., Engine]) -> None:
    engine = make_engine()
    events: list[ProgressEvent] = []
    report = engine.ingest_bytes("long report.pdf", text_pdf(numbered_pages(500)), progress=events.append)

    assert report.status == "indexed", report.line()
    assert (report.pages, report.empty_pages) == (500, 0)
    assert_holds_exactly(engine, {"long report.pdf"})
    for stage in STAGES:
        seen = [e for e in events if e.stage == stage]
        assert seen and seen[-1].done == seen[-1].total > 0, stage
        if stage != "tree":  # the tree stage counts each level's groups afresh
            assert [e.done for e in seen] == sorted(e.done for e in seen), f"{stage} progress goes backwards"
    assert max(e.total for e in events if e.stage == "summaries") == 500
    assert len([e for e in events if e.stage == "summaries"]) > 2, "progress is reported along the way"

    # every page ends in "unit <page> was recorded in ledger <n>.": shaped like a footer, it is left out of
    # the bodies (the page text keeps it); the rest of each page is what search finds
    (footer, pages), *_ = engine.documents()[0].running_lines
    assert footer.startswith("unit ") and pages > 400
    hits = engine.search(
        "page 377 of the long report: section 37, topic 6, item 53", "flat", SearchParams(top_k=5)
    )
    assert 377 in {n.page_start for n in hits.nodes}


@pytest.mark.parametrize("engine", PDF_ENGINES)
def test_each_pdf_engine_explains_each_bad_pdf(engine: str) -> None:
    for name, (make, reason) in BAD.items():
        if name.endswith(".pdf"):
            with pytest.raises(LoadError, match=reason):
                load_bytes(name, make(), pdf_engine=engine)


@pytest.mark.parametrize("engine", PDF_ENGINES)
def test_a_pdf_damaged_in_the_middle_keeps_its_readable_pages(engine: str) -> None:
    clean = SAMPLE_PDF.read_bytes()
    damaged = bytearray(clean)
    middle = len(clean) // 4
    damaged[middle : middle + 5000] = noise(5000)

    original = load_bytes("R-data.pdf", clean, pdf_engine=engine)
    recovered = load_bytes("R-data.pdf", bytes(damaged), pdf_engine=engine)

    assert len(recovered.pages) == len(original.pages)
    same = sum(a.text == b.text for a, b in zip(original.pages, recovered.pages))
    assert same >= len(original.pages) - 5, "only the damaged pages are lost"
    assert recovered.doc_id != original.doc_id
